import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEFAULT_TRADING_CONFIG, resolveConfig } from "../../src/agents/trading-config.ts";
import { createTestContext, createUser, json, login, type TestContext } from "../helpers/context.ts";
import { createAgent } from "./fixtures.ts";

// SPEC "Agent trading configuration", GET/PUT /agents/:id/config; PRODUCT.md §3 extra fields.

let ctx: TestContext;
let token: string;

beforeAll(async () => {
  ctx = await createTestContext();
  token = (await login(ctx)).token;
});
afterAll(() => ctx.close());

const DEFAULTS = {
  positionSizing: { type: "percentage", percentage: 5, fixedAmountSol: null },
  stopLoss: { enabled: true, percentage: 25 },
  takeProfit: { enabled: false, percentage: 50, sellPercentage: 50, maxLevels: 3 },
  dca: { enabled: false, maxOrders: 3, priceDropTriggerPercentage: 10, amountPercentage: 50 },
  filters: {
    minMarketCap: null,
    maxMarketCap: null,
    minLiquidity: null,
    maxPositionAgeDays: null,
    allowedTokens: [],
    blockedTokens: [],
    minSignalStrength: 1,
    signalTypes: [],
    sources: [],
    // Issue 15 token screening.
    rejectFreezeAuthority: true,
    rejectMintAuthority: false,
    rejectPermanentDelegate: true,
    rejectPausable: true,
    rejectTransferHook: true,
    rejectDefaultFrozen: true,
    rejectUnknownExtensions: true,
    maxTransferFeeBps: 100,
    requireSellable: true,
  },
  slippage: { defaultBps: 300, maxBps: 1000, maxExitBps: null },
  timing: { minTimeBetweenTradesSeconds: 0 },
  risk: { maxOpenPositions: null },
  minimumAgentBalance: 0.5,
};

const getConfig = async (id: string) => {
  const res = await ctx.request("GET", `/api/v1/agents/${id}/config`, { token });
  expect(res.status).toBe(200);
  return (await json(res)).config;
};
const putConfig = (id: string, config: unknown) =>
  ctx.request("PUT", `/api/v1/agents/${id}/config`, { token, body: { config } });

describe("GET /agents/:id/config", () => {
  test("a new agent has the complete default configuration", async () => {
    const agent = await createAgent(ctx, token);
    const res = await ctx.request("GET", `/api/v1/agents/${agent.id}/config`, { token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ config: DEFAULTS });
  });
  test("the exported defaults are the spec's and cannot be mutated through resolveConfig", () => {
    expect(DEFAULT_TRADING_CONFIG).toEqual(DEFAULTS as never);
    const c = resolveConfig(null);
    c.stopLoss.percentage = 99;
    c.filters.allowedTokens.push("x");
    expect(DEFAULT_TRADING_CONFIG.stopLoss.percentage).toBe(25);
    expect(DEFAULT_TRADING_CONFIG.filters.allowedTokens).toEqual([]);
    expect(resolveConfig({ stopLoss: { percentage: 10 } })).toEqual({
      ...DEFAULTS,
      stopLoss: { enabled: true, percentage: 10 },
    } as never);
  });
  test("404 for another user's agent and a missing one; 400 for a malformed id", async () => {
    const other = await createUser(ctx);
    const theirs = await createAgent(ctx, other.token);
    for (const id of [theirs.id, "00000000-0000-4000-8000-000000000000"]) {
      const res = await ctx.request("GET", `/api/v1/agents/${id}/config`, { token });
      expect(res.status).toBe(404);
      expect((await json(res)).error).toBe("Agent not found");
    }
    const bad = await ctx.request("GET", "/api/v1/agents/nope/config", { token });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error).toBe("Invalid agent ID format");
  });
});

describe("PUT /agents/:id/config", () => {
  test("merges only the sent fields and returns the complete configuration", async () => {
    const agent = await createAgent(ctx, token);
    const res = await putConfig(agent.id, { stopLoss: { percentage: 15 }, takeProfit: { enabled: true } });
    expect(res.status).toBe(200);
    const expected = {
      ...DEFAULTS,
      stopLoss: { enabled: true, percentage: 15 },
      takeProfit: { ...DEFAULTS.takeProfit, enabled: true },
    };
    expect(await json(res)).toEqual({ config: expected });
    expect(await getConfig(agent.id)).toEqual(expected);

    // A later update keeps the earlier one.
    const second = await putConfig(agent.id, { dca: { enabled: true, maxOrders: 5 }, minimumAgentBalance: 1.25 });
    const expected2 = { ...expected, dca: { ...DEFAULTS.dca, enabled: true, maxOrders: 5 }, minimumAgentBalance: 1.25 };
    expect(await json(second)).toEqual({ config: expected2 });
    expect(await getConfig(agent.id)).toEqual(expected2);
  });

  test("arrays replace, null clears a nullable field, {} changes nothing", async () => {
    const agent = await createAgent(ctx, token);
    await putConfig(agent.id, { filters: { allowedTokens: ["MintA", "MintB"], minMarketCap: 1000 } });
    await putConfig(agent.id, { filters: { allowedTokens: ["MintC"] } });
    let config = await getConfig(agent.id);
    expect(config.filters.allowedTokens).toEqual(["MintC"]);
    expect(config.filters.minMarketCap).toBe(1000);
    await putConfig(agent.id, { filters: { minMarketCap: null } });
    config = await getConfig(agent.id);
    expect(config.filters.minMarketCap).toBeNull();
    const same = await putConfig(agent.id, {});
    expect(same.status).toBe(200);
    expect((await json(same)).config).toEqual(config);
  });

  test("{config: null} resets to the defaults", async () => {
    const agent = await createAgent(ctx, token);
    await putConfig(agent.id, { stopLoss: { enabled: false }, slippage: { defaultBps: 50 } });
    const res = await putConfig(agent.id, null);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ config: DEFAULTS });
    expect(await getConfig(agent.id)).toEqual(DEFAULTS);
  });

  test("PRODUCT.md §3 fields are accepted and returned", async () => {
    const agent = await createAgent(ctx, token);
    const res = await putConfig(agent.id, {
      minimumAgentBalance: 2,
      filters: { minSignalStrength: 4 },
      positionSizing: { type: "fixed", fixedAmountSol: 0.25 },
      takeProfit: { sellPercentage: 30, maxLevels: 5 },
    });
    expect(res.status).toBe(200);
    const config = (await json(res)).config;
    expect(config.minimumAgentBalance).toBe(2);
    expect(config.filters.minSignalStrength).toBe(4);
    expect(config.positionSizing).toEqual({ type: "fixed", percentage: 5, fixedAmountSol: 0.25 });
    expect(config.takeProfit).toEqual({ enabled: false, percentage: 50, sellPercentage: 30, maxLevels: 5 });
  });

  // Each row: the partial configuration, then the exact details strings.
  const invalid: Array<[string, unknown, string[]]> = [
    [
      "stopLoss.percentage below 1",
      { stopLoss: { percentage: 0.5 } },
      ["stopLoss.percentage must be between 1 and 100"],
    ],
    [
      "stopLoss.percentage above 100",
      { stopLoss: { percentage: 101 } },
      ["stopLoss.percentage must be between 1 and 100"],
    ],
    ["stopLoss.percentage as text", { stopLoss: { percentage: "25" } }, ["stopLoss.percentage must be a number"]],
    ["stopLoss.enabled as text", { stopLoss: { enabled: "yes" } }, ["stopLoss.enabled must be true or false"]],
    [
      "positionSizing.type unknown",
      { positionSizing: { type: "kelly" } },
      ["positionSizing.type must be 'percentage' or 'fixed'"],
    ],
    [
      "positionSizing.percentage 0",
      { positionSizing: { percentage: 0 } },
      ["positionSizing.percentage must be greater than 0 and at most 100"],
    ],
    [
      "positionSizing.percentage 150",
      { positionSizing: { percentage: 150 } },
      ["positionSizing.percentage must be greater than 0 and at most 100"],
    ],
    [
      "fixedAmountSol 0",
      { positionSizing: { fixedAmountSol: 0 } },
      ["positionSizing.fixedAmountSol must be greater than 0 and at most 1000000"],
    ],
    [
      "fixed without fixedAmountSol",
      { positionSizing: { type: "fixed" } },
      ["positionSizing.fixedAmountSol is required when positionSizing.type is 'fixed'"],
    ],
    [
      "takeProfit.percentage 0",
      { takeProfit: { percentage: 0 } },
      ["takeProfit.percentage must be greater than 0 and at most 10000"],
    ],
    [
      "takeProfit.sellPercentage 101",
      { takeProfit: { sellPercentage: 101 } },
      ["takeProfit.sellPercentage must be greater than 0 and at most 100"],
    ],
    [
      "takeProfit.maxLevels 0",
      { takeProfit: { maxLevels: 0 } },
      ["takeProfit.maxLevels must be a whole number between 1 and 100"],
    ],
    ["takeProfit.maxLevels 2.5", { takeProfit: { maxLevels: 2.5 } }, ["takeProfit.maxLevels must be a whole number"]],
    ["dca.maxOrders 101", { dca: { maxOrders: 101 } }, ["dca.maxOrders must be a whole number between 1 and 100"]],
    [
      "dca.priceDropTriggerPercentage 100",
      { dca: { priceDropTriggerPercentage: 100 } },
      ["dca.priceDropTriggerPercentage must be greater than 0 and less than 100"],
    ],
    [
      "dca.amountPercentage 0",
      { dca: { amountPercentage: 0 } },
      ["dca.amountPercentage must be greater than 0 and at most 1000"],
    ],
    [
      "filters.minMarketCap negative",
      { filters: { minMarketCap: -1 } },
      ["filters.minMarketCap must be null or a number between 0 and 1000000000000000"],
    ],
    ["filters.minLiquidity text", { filters: { minLiquidity: "lots" } }, ["filters.minLiquidity must be a number"]],
    [
      "filters.maxPositionAgeDays 0",
      { filters: { maxPositionAgeDays: 0 } },
      ["filters.maxPositionAgeDays must be greater than 0 and at most 3650"],
    ],
    [
      "filters.allowedTokens not an array",
      { filters: { allowedTokens: "MintA" } },
      ["filters.allowedTokens must be an array of token addresses"],
    ],
    [
      "filters.blockedTokens with an empty entry",
      { filters: { blockedTokens: ["ok", ""] } },
      ["filters.blockedTokens.1 must not be empty"],
    ],
    [
      "filters.minSignalStrength 6",
      { filters: { minSignalStrength: 6 } },
      ["filters.minSignalStrength must be a whole number between 1 and 5"],
    ],
    [
      "filters.signalTypes not an array",
      { filters: { signalTypes: "buy" } },
      ["filters.signalTypes must be an array of signal types"],
    ],
    [
      "filters.signalTypes with an empty or too long entry",
      { filters: { signalTypes: ["buy", " ", "x".repeat(51)] } },
      ["filters.signalTypes.1 must not be empty", "filters.signalTypes.2 must be at most 50 characters"],
    ],
    [
      "filters.sources with a malformed, repeated or too long entry",
      { filters: { sources: ["wallet:0x12", "hook:", "bot", "bot", "x".repeat(101)] } },
      [
        "filters.sources.0 must be wallet:<base58 address>",
        "filters.sources.1 must name a hook after hook:",
        "filters.sources.4 must be at most 100 characters",
        "filters.sources must not name a source twice",
      ],
    ],
    [
      "filters.rejectFreezeAuthority not a boolean",
      { filters: { rejectFreezeAuthority: "yes" } },
      ["filters.rejectFreezeAuthority must be true or false"],
    ],
    [
      "filters.rejectPermanentDelegate not a boolean",
      { filters: { rejectPermanentDelegate: 1 } },
      ["filters.rejectPermanentDelegate must be true or false"],
    ],
    [
      "filters.maxTransferFeeBps above 10000",
      { filters: { maxTransferFeeBps: 10001 } },
      ["filters.maxTransferFeeBps must be a whole number between 0 and 10000"],
    ],
    [
      "slippage.maxExitBps 0",
      { slippage: { maxExitBps: 0 } },
      ["slippage.maxExitBps must be a whole number between 1 and 10000"],
    ],
    [
      "slippage.defaultBps 0",
      { slippage: { defaultBps: 0 } },
      ["slippage.defaultBps must be a whole number between 1 and 10000"],
    ],
    [
      "slippage.maxBps 10001",
      { slippage: { maxBps: 10001 } },
      ["slippage.maxBps must be a whole number between 1 and 10000"],
    ],
    [
      "slippage.defaultBps above maxBps",
      { slippage: { defaultBps: 1200 } },
      ["slippage.defaultBps must not exceed slippage.maxBps"],
    ],
    [
      "minMarketCap above maxMarketCap",
      { filters: { minMarketCap: 10, maxMarketCap: 5 } },
      ["filters.minMarketCap must not exceed filters.maxMarketCap"],
    ],
    [
      "timing negative",
      { timing: { minTimeBetweenTradesSeconds: -1 } },
      ["timing.minTimeBetweenTradesSeconds must be a whole number between 0 and 31536000"],
    ],
    [
      "minimumAgentBalance negative",
      { minimumAgentBalance: -0.1 },
      ["minimumAgentBalance must be between 0 and 1000000"],
    ],
    ["an unknown top-level key", { leverage: 10 }, ["leverage is not a configuration field"]],
    ["an unknown nested key", { stopLoss: { trailing: true } }, ["stopLoss.trailing is not a configuration field"]],
    ["a group that is not an object", { stopLoss: 5 }, ["stopLoss must be an object"]],
    ["a group set to null", { dca: null }, ["dca must be an object"]],
    [
      "config that is not an object",
      "all of it",
      ["config must be an object (a partial configuration) or null to reset"],
    ],
    [
      "several problems at once",
      { stopLoss: { percentage: 0 }, dca: { maxOrders: 0 }, bogus: 1 },
      [
        "stopLoss.percentage must be between 1 and 100",
        "dca.maxOrders must be a whole number between 1 and 100",
        "bogus is not a configuration field",
      ],
    ],
  ];
  for (const [label, config, details] of invalid) {
    test(`400 for ${label}; nothing changes`, async () => {
      const agent = await createAgent(ctx, token);
      await putConfig(agent.id, { stopLoss: { percentage: 30 } });
      const before = await getConfig(agent.id);
      const res = await putConfig(agent.id, config);
      expect(res.status).toBe(400);
      const body = await json(res);
      expect(body.error).toBe("Invalid trading configuration");
      expect(body.code).toBe("VALIDATION_ERROR");
      expect([...body.details].sort()).toEqual([...details].sort());
      expect(await getConfig(agent.id)).toEqual(before);
    });
  }

  test("a body without config is refused", async () => {
    const agent = await createAgent(ctx, token);
    const res = await ctx.request("PUT", `/api/v1/agents/${agent.id}/config`, {
      token,
      body: { stopLoss: { percentage: 10 } },
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      success: false,
      error: "Invalid trading configuration",
      code: "VALIDATION_ERROR",
      details: [
        'config is missing: send {"config": {...}} with the changed fields inside (or {"config": null} to reset)',
      ],
    });
  });

  test("fixed sizing: allowed with an amount, and the amount cannot then be cleared", async () => {
    const agent = await createAgent(ctx, token);
    expect((await putConfig(agent.id, { positionSizing: { type: "fixed", fixedAmountSol: 0.5 } })).status).toBe(200);
    const res = await putConfig(agent.id, { positionSizing: { fixedAmountSol: null } });
    expect(res.status).toBe(400);
    expect((await json(res)).details).toEqual([
      "positionSizing.fixedAmountSol is required when positionSizing.type is 'fixed'",
    ]);
    expect((await putConfig(agent.id, { positionSizing: { type: "percentage", fixedAmountSol: null } })).status).toBe(
      200,
    );
  });

  test("404 for another user's agent (their configuration unchanged); 400 for a malformed id", async () => {
    const other = await createUser(ctx);
    const theirs = await createAgent(ctx, other.token);
    const res = await putConfig(theirs.id, { stopLoss: { percentage: 2 } });
    expect(res.status).toBe(404);
    expect((await json(res)).error).toBe("Agent not found");
    const theirConfig = await json(
      await ctx.request("GET", `/api/v1/agents/${theirs.id}/config`, { token: other.token }),
    );
    expect(theirConfig.config.stopLoss.percentage).toBe(25);
    const bad = await ctx.request("PUT", "/api/v1/agents/xyz/config", { token, body: { config: {} } });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error).toBe("Invalid agent ID format");
  });
});
