import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createPublicApp } from "../../src/app.ts";
import { Big } from "../../src/money.ts";
import { createApiKey, createTestContext, createUser, json, login, type TestContext } from "../helpers/context.ts";
import { MINT, MINT2, startTrading, type TradingContext } from "../helpers/trading.ts";

// The public API (SPEC "Public API"; payloads in docs/decisions.md "Public API and live events"):
// every path with an API key of any scope as a Bearer value; another user's agent is 404.

const SOL_MINT = "So11111111111111111111111111111111111111112";
const NOT_A_UUID = "not-a-uuid";
const MISSING = "0b5e2a4c-7a1d-4d8e-9a51-2f6a3c1d9e10";

let t: TradingContext;
/** A key with an unrelated scope: the public API takes any scope. */
let key: string;
beforeEach(async () => {
  t = await startTrading();
  key = (await createApiKey(t.ctx, t.token, ["history"])).key;
});
afterEach(() => t.close());

const get = (ctx: TestContext, path: string, k = key) =>
  ctx.request("GET", path, { headers: { authorization: `Bearer ${k}` } });
const pub = (path: string, k = key) => get(t.ctx, path, k);

async function expectError(res: Response, status: number, body: Record<string, unknown>) {
  expect(res.status).toBe(status);
  expect(await json(res)).toEqual({ success: false, ...body });
}

/** An agent of another user, for the cross-user 404s. */
async function foreignAgent(): Promise<string> {
  const bob = await createUser(t.ctx);
  return (await t.createAgent({ token: bob.token, automated: false })).id;
}

describe("auth", () => {
  test("every path: 401 without a key or with a bad one, another user's agent 404", async () => {
    const agent = await t.createAgent();
    const signal = await t.postSignal();
    await t.settle();
    const foreign = await foreignAgent();
    const paths: Array<[string, string?]> = [
      ["/v1/platform/health"],
      ["/v1/platform/usage"],
      ["/v1/agents"],
      ["/v1/agents/"],
      [`/v1/agents/${agent.id}`, `/v1/agents/${foreign}`],
      [`/v1/agents/${agent.id}/wallet`, `/v1/agents/${foreign}/wallet`],
      [`/v1/agents/${agent.id}/live-trades`, `/v1/agents/${foreign}/live-trades`],
      ["/v1/prices/sol"],
      [`/v1/agents/${agent.id}/signals`, `/v1/agents/${foreign}/signals`],
      [`/v1/agents/${agent.id}/signals/${signal.id}`, `/v1/agents/${foreign}/signals/${signal.id}`],
      ["/v1/whale-trades/latest"],
      [`/v1/whale-trades/${MINT}`],
    ];
    for (const [path, foreignPath] of paths) {
      // The spec's form: the key as a Bearer value.
      const bad = await pub(path, `svc_${"y".repeat(32)}`);
      await expectError(bad, 401, { error: "Invalid API key", code: "AUTHENTICATION_ERROR" });
      // A JWT is not an API key.
      await expectError(await pub(path, t.token), 401, { error: "API key required", code: "AUTHENTICATION_ERROR" });
      expect((await pub(path)).status, path).toBe(200);
      if (foreignPath) expect((await pub(foreignPath)).status, foreignPath).toBe(404);
    }
  });

  test("any scope is enough, and X-API-Key works too", async () => {
    for (const scopes of [["signals"], ["balances"], ["full_access"]]) {
      const k = (await createApiKey(t.ctx, t.token, scopes)).key;
      expect((await pub("/v1/agents", k)).status).toBe(200);
      expect((await t.ctx.request("GET", "/v1/agents", { apiKey: k })).status).toBe(200);
    }
  });
});

describe("platform", () => {
  test("health: status, version, uptime and each dependency's status", async () => {
    t.ctx.clock.advance(90_000);
    const res = await pub("/v1/platform/health");
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toEqual({
      status: body.services.priceFeed === "healthy" ? "healthy" : "degraded",
      timestamp: "2026-01-01T00:01:30.000Z",
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      uptime: 90,
      services: {
        database: "healthy",
        cache: "healthy",
        queue: "healthy",
        priceFeed: body.services.priceFeed,
        // Reachability of the configured swap aggregator and SOL price sources: never tried yet.
        swapAggregator: "healthy",
        solPriceFeed: "healthy",
        priceNetwork: "healthy",
      },
    });
  });

  test("health: an unhealthy database answers 503 unhealthy", async () => {
    t.ctx.services.health.register("database", () => ({ status: "unhealthy", message: "gone" }), { critical: true });
    const res = await pub("/v1/platform/health");
    expect(res.status).toBe(503);
    expect(await json(res)).toMatchObject({ status: "unhealthy", services: { database: "unhealthy" } });
  });

  test("usage: requests counted for the calling key (this one included) and the user's totals", async () => {
    await t.createAgent();
    await t.postSignal(); // one request on the signals key
    await t.settle();
    await pub("/v1/agents");
    await pub("/v1/agents");
    const res = await pub("/v1/platform/usage");
    expect(res.status).toBe(200);
    const body = await json(res);
    const keys = await json(await t.ctx.request("GET", "/api/v1/api-keys", { token: t.token }));
    const mine = keys.find((k: { prefix: string }) => k.prefix === key.slice(0, 8));
    expect(body).toEqual({
      apiKey: {
        id: mine.id,
        name: mine.name,
        prefix: key.slice(0, 8),
        scopes: ["history"],
        requestCount: 3,
        lastUsedAt: "2026-01-01T00:00:00.000Z",
        createdAt: mine.createdAt,
      },
      user: { apiKeys: 2, requestCount: 4, agents: 1 },
    });
    // Another user's keys and agents are not counted.
    const bob = await createUser(t.ctx);
    const bobKey = (await createApiKey(t.ctx, bob.token, ["signals"])).key;
    expect((await json(await pub("/v1/platform/usage", bobKey))).user).toEqual({
      apiKeys: 1,
      requestCount: 1,
      agents: 0,
    });
  });
});

describe("agents", () => {
  test("list (with or without the trailing slash) is the main API's agent list; limit and offset", async () => {
    const a = await t.createAgent({ name: "first" });
    const b = await t.createAgent({ name: "second" });
    await foreignAgent();
    const main = await json(await t.ctx.request("GET", "/api/v1/agents", { token: t.token }));
    for (const path of ["/v1/agents", "/v1/agents/"]) {
      const res = await pub(path);
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual(main);
    }
    expect(main.map((x: { id: string }) => x.id)).toEqual([b.id, a.id]);
    expect((await json(await pub("/v1/agents?limit=1&offset=1"))).map((x: { id: string }) => x.id)).toEqual([a.id]);
    await expectError(await pub("/v1/agents?limit=1001"), 400, {
      error: "limit must be at most 1000",
      code: "VALIDATION_ERROR",
      details: ["limit: limit must be at most 1000"],
    });
  });

  test("one agent; bad id 400, unknown 404", async () => {
    const a = await t.createAgent();
    const res = await pub(`/v1/agents/${a.id}`);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual(
      await json(await t.ctx.request("GET", `/api/v1/agents/${a.id}`, { token: t.token })),
    );
    for (const suffix of ["", "/wallet", "/live-trades", "/signals", "/signals/1"]) {
      await expectError(await pub(`/v1/agents/${NOT_A_UUID}${suffix}`), 400, {
        error: "Invalid agent ID format",
        code: "VALIDATION_ERROR",
        details: ["agentId: Invalid agent ID format"],
      });
      await expectError(await pub(`/v1/agents/${MISSING}${suffix}`), 404, {
        error: "Agent not found",
        code: "NOT_FOUND",
      });
    }
  });
});

describe("wallet", () => {
  test("balances of the trading wallet valued at market prices, with the total", async () => {
    const a = await t.createAgent();
    await t.postSignal();
    await t.settle();
    const res = await pub(`/v1/agents/${a.id}/wallet`);
    expect(res.status).toBe(200);
    const body = await json(res);
    // 9.49785572 SOL (after fees and the token account's rent) × $100 + 5000 BONK × $0.01
    expect(body).toEqual({
      agentId: a.id,
      walletType: "simulation",
      walletAddress: a.walletAddress,
      solPriceUsd: "100.00000000",
      holdings: [
        {
          tokenAddress: SOL_MINT,
          tokenSymbol: "SOL",
          balance: "9.49785572",
          priceUsd: "100.00000000",
          valueUsd: "949.785572",
          lastUpdated: expect.any(String),
        },
        {
          tokenAddress: MINT,
          tokenSymbol: "BONK",
          balance: "5000",
          priceUsd: "0.01",
          valueUsd: "50",
          lastUpdated: expect.any(String),
        },
      ],
      totalValueUsd: "999.785572",
      unpricedTokens: [],
    });
  });

  test("a token the market cannot price is null, never zero, and left out of the total", async () => {
    const a = await t.createAgent();
    await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
    await t.settle();
    t.fake.setToken(MINT2, { symbol: "WIF", priceUsd: null, decimals: 6 });
    const body = await json(await pub(`/v1/agents/${a.id}/wallet`));
    const sol = new Big(t.solBalance(a.id));
    expect(body.holdings[1]).toEqual({
      tokenAddress: MINT2,
      tokenSymbol: "WIF",
      balance: t.tokenBalance(a.id, MINT2),
      priceUsd: null,
      valueUsd: null,
      lastUpdated: expect.any(String),
    });
    expect(body.totalValueUsd).toBe(sol.times(100).toFixed());
    expect(body.unpricedTokens).toEqual([MINT2]);
  });

  test("a token sold off (zero balance) is not listed", async () => {
    const a = await t.createAgent();
    await t.postSignal();
    await t.settle();
    const [pos] = await t.positions(a.id);
    const close = await t.ctx.request("POST", `/api/v1/agent-positions/${a.id}/${pos.id}/close`, { token: t.token });
    expect(close.status).toBe(200);
    expect(t.tokenBalance(a.id)).toBe("0");
    const body = await json(await pub(`/v1/agents/${a.id}/wallet`));
    expect(body.holdings.map((h: { tokenAddress: string }) => h.tokenAddress)).toEqual([SOL_MINT]);
    expect(body.totalValueUsd).toBe(new Big(t.solBalance(a.id)).times(100).toFixed());
  });

  test("a live agent without a live wallet has no wallet and a zero total", async () => {
    const a = await t.createAgent({ tradingMode: "live", automated: false });
    expect(await json(await pub(`/v1/agents/${a.id}/wallet`))).toEqual({
      agentId: a.id,
      walletType: "live",
      walletAddress: null,
      solPriceUsd: null,
      holdings: [],
      totalValueUsd: "0",
      unpricedTokens: [],
    });
  });
});

describe("live trades", () => {
  function insertTx(agentId: string, mode: string, time: string, type: "BUY" | "SELL" = "BUY"): string {
    const id = crypto.randomUUID();
    t.ctx.database.sqlite
      .query(
        `INSERT INTO agent_transactions (id, agent_id, wallet_address, transaction_type, transaction_value_usd, transaction_time, input_mint,
           input_amount, output_mint, output_amount, trading_mode, transaction_hash, status, created_at, updated_at)
         VALUES (?, ?, 'LiveWa11et1111111111111111111111111111111111', ?, '50', ?, ?, '0.5', ?, '5000', ?, 'sig', 'confirmed', ?, ?)`,
      )
      .run(id, agentId, type, time, SOL_MINT, MINT, mode, time, time);
    return id;
  }

  test("only the agent's live-mode transactions, newest first, paginated", async () => {
    const a = await t.createAgent({ automated: false });
    const old = insertTx(a.id, "live", "2026-01-01T00:00:00.000Z");
    insertTx(a.id, "simulation", "2026-01-01T00:00:30.000Z");
    const recent = insertTx(a.id, "live", "2026-01-01T00:01:00.000Z", "SELL");
    insertTx(await foreignAgent(), "live", "2026-01-01T00:02:00.000Z");
    const body = await json(await pub(`/v1/agents/${a.id}/live-trades`));
    expect(body.map((x: { id: string }) => x.id)).toEqual([recent, old]);
    expect(body[0]).toMatchObject({
      agentId: a.id,
      transactionType: "SELL",
      tradingMode: "live",
      transactionHash: "sig",
      status: "confirmed",
      inputAmount: "0.5",
      outputAmount: "5000",
    });
    expect(
      (await json(await pub(`/v1/agents/${a.id}/live-trades?limit=1&offset=1`))).map((x: { id: string }) => x.id),
    ).toEqual([old]);
  });

  test("a simulation agent's trades are not live trades", async () => {
    const a = await t.createAgent();
    await t.postSignal();
    await t.settle();
    expect(t.count("agent_transactions", "agent_id = ?", a.id)).toBe(1);
    expect(await json(await pub(`/v1/agents/${a.id}/live-trades`))).toEqual([]);
  });
});

describe("SOL price", () => {
  test("the latest SOL/USD price", async () => {
    const res = await pub("/v1/prices/sol");
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({
      price: "100.00000000",
      isStale: false,
      lastUpdated: "2026-01-01T00:00:00.000Z",
    });
  });
});

describe("agent signals", () => {
  test("signals the agent traded on, newest first, with its evaluation; refused ones are left out", async () => {
    const trader = await t.createAgent({ name: "trader" });
    const idle = await t.createAgent({ name: "idle", automated: false });
    const first = await t.postSignal();
    await t.settle();
    t.ctx.clock.advance(1_000);
    const second = await t.postSignal({ tokenAddress: MINT2, symbol: "WIF", signalStrength: 5 });
    await t.settle();

    const list = await json(await pub(`/v1/agents/${trader.id}/signals`));
    expect(list.map((s: { id: number }) => s.id)).toEqual([second.id, first.id]);
    expect(list[1]).toEqual({
      id: first.id,
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: expect.any(String),
      tokenAddress: MINT,
      symbol: "BONK",
      signalType: "buy",
      activationReason: null,
      signalStrength: 4,
      source: null,
      evaluation: { eligible: true, outcome: "traded", reason: null, evaluatedAt: "2026-01-01T00:00:00.000Z" },
    });
    expect((await json(await pub(`/v1/agents/${trader.id}/signals?limit=1`))).map((s: { id: number }) => s.id)).toEqual(
      [second.id],
    );

    // The idle agent (automation off) was evaluated and refused both: none are listed.
    expect(t.count("signal_evaluations", "agent_id = ? AND eligible = 0", idle.id)).toBe(2);
    expect(await json(await pub(`/v1/agents/${idle.id}/signals`))).toEqual([]);
  });

  test("one signal; unknown, refused or malformed ids", async () => {
    const trader = await t.createAgent();
    const idle = await t.createAgent({ automated: false });
    const s = await t.postSignal();
    await t.settle();
    const one = await json(await pub(`/v1/agents/${trader.id}/signals/${s.id}`));
    expect(one).toMatchObject({ id: s.id, tokenAddress: MINT, evaluation: { eligible: true, outcome: "traded" } });
    await expectError(await pub(`/v1/agents/${idle.id}/signals/${s.id}`), 404, {
      error: "Signal not found",
      code: "NOT_FOUND",
    });
    await expectError(await pub(`/v1/agents/${trader.id}/signals/999999`), 404, {
      error: "Signal not found",
      code: "NOT_FOUND",
    });
    for (const bad of ["abc", "0", "-1", "1.5"]) {
      await expectError(await pub(`/v1/agents/${trader.id}/signals/${bad}`), 400, {
        error: "Invalid signal ID format",
        code: "VALIDATION_ERROR",
        details: ["signalId: Invalid signal ID format"],
      });
    }
  });

  test("a failed trade is listed (the agent was eligible)", async () => {
    const a = await t.createAgent();
    t.fake.quote.noRoute.add(MINT);
    const s = await t.postSignal();
    await t.settle();
    const [entry] = await json(await pub(`/v1/agents/${a.id}/signals`));
    expect(entry.id).toBe(s.id);
    const failed = t.ctx.logs.map((l) => JSON.parse(l)).find((l) => l.msg === "trade failed");
    expect(failed.reason).toContain("swapAggregator");
    expect(entry.evaluation).toEqual({
      eligible: true,
      outcome: "failed",
      reason: failed.reason,
      evaluatedAt: "2026-01-01T00:00:00.000Z",
    });
    expect(t.count("positions", "agent_id = ?", a.id)).toBe(0);
  });
});

describe("whale trades", () => {
  const trade = (txHash: string, blockUnixTime: number, volumeUsd: number) => ({
    txHash,
    blockUnixTime,
    volumeUsd,
    tokenAmount: volumeUsd * 100,
    priceUsd: 0.01,
  });

  test("per token: the provider's whale buys, newest first", async () => {
    t.fake.setWhaleTrades(MINT, [
      trade("tx1", 1_767_225_000, 25_000),
      trade("tx2", 1_767_225_600, 12_000),
      trade("small", 1_767_225_700, 500),
    ]);
    const res = await pub(`/v1/whale-trades/${MINT}`);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      tokenAddress: MINT,
      trades: [
        {
          txHash: "tx2",
          blockTime: "2026-01-01T00:00:00.000Z",
          tokenAddress: MINT,
          side: "buy",
          volumeUsd: 12_000,
          owner: "Whale1111111111111111111111111111111111111",
          source: "raydium",
          tokenAmount: 1_200_000,
          priceUsd: 0.01,
        },
        {
          txHash: "tx1",
          blockTime: "2025-12-31T23:50:00.000Z",
          tokenAddress: MINT,
          side: "buy",
          volumeUsd: 25_000,
          owner: "Whale1111111111111111111111111111111111111",
          source: "raydium",
          tokenAmount: 2_500_000,
          priceUsd: 0.01,
        },
      ],
    });
    const [req] = t.fake.requestsTo("birdeye.txs");
    expect(Object.fromEntries(req!.query)).toMatchObject({
      token_address: MINT,
      min_volume: "10000",
      limit: "50",
      tx_type: "buy",
    });
    // minVolumeUsd and limit reach the provider.
    const small = await json(await pub(`/v1/whale-trades/${MINT}?minVolumeUsd=100&limit=1`));
    expect(small.trades.map((x: { txHash: string }) => x.txHash)).toEqual(["small"]);
  });

  test("per token: answers are cached for 30 s (the provider allows about one request a second)", async () => {
    t.fake.setWhaleTrades(MINT, [trade("tx1", 1_767_225_000, 25_000)]);
    await pub(`/v1/whale-trades/${MINT}`);
    await pub(`/v1/whale-trades/${MINT}`);
    expect(t.fake.requestsTo("birdeye.txs").length).toBe(1);
    t.ctx.clock.advance(30_000);
    await pub(`/v1/whale-trades/${MINT}`);
    expect(t.fake.requestsTo("birdeye.txs").length).toBe(2);
  });

  test("per token: bad address 400, provider failure 502", async () => {
    for (const bad of ["short", `0OIl${"1".repeat(40)}`, "x".repeat(45)]) {
      await expectError(await pub(`/v1/whale-trades/${bad}`), 400, {
        error: "Invalid token address format",
        code: "VALIDATION_ERROR",
        details: ["tokenAddress: Invalid token address format"],
      });
    }
    await expectError(await pub(`/v1/whale-trades/${MINT}?limit=101`), 400, {
      error: "limit must be at most 100",
      code: "VALIDATION_ERROR",
      details: ["limit: limit must be at most 100"],
    });
    t.fake.inject(
      "birdeye.txs",
      { status: 500, body: { success: false, message: "boom" } },
      { status: 500, body: { success: false, message: "boom" } },
      { status: 500, body: { success: false, message: "boom" } },
    );
    const res = await pub(`/v1/whale-trades/${MINT}`);
    expect(res.status).toBe(502);
    expect((await json(res)).code).toBe("EXTERNAL_SERVICE_ERROR");
  });

  test("latest: the tokens of open positions first, then of the last 24 h of signals, merged newest first", async () => {
    await t.createAgent({ config: { filters: { allowedTokens: [MINT] } } });
    await t.postSignal(); // MINT: traded, open position
    await t.settle();
    t.ctx.clock.advance(1_000);
    await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" }); // MINT2: refused by the filter, signal only
    await t.settle();
    t.fake.setWhaleTrades(MINT, [trade("bonk-old", 1_767_225_000, 25_000)]);
    t.fake.setWhaleTrades(MINT2, [trade("wif-new", 1_767_225_500, 40_000)]);

    const body = await json(await pub("/v1/whale-trades/latest"));
    expect(body.tokens).toEqual([MINT, MINT2]);
    expect(body.trades.map((x: { txHash: string; tokenAddress: string }) => [x.txHash, x.tokenAddress])).toEqual([
      ["wif-new", MINT2],
      ["bonk-old", MINT],
    ]);
    expect(
      (await json(await pub("/v1/whale-trades/latest?limit=1"))).trades.map((x: { txHash: string }) => x.txHash),
    ).toEqual(["wif-new"]);

    // A day later the signal-only token drops out; the open position stays watched.
    t.ctx.clock.advance(24 * 3600_000 + 1);
    expect((await json(await pub("/v1/whale-trades/latest"))).tokens).toEqual([MINT]);
    // Another user watches nothing of Alice's.
    const bob = await createUser(t.ctx);
    expect(
      await json(await pub("/v1/whale-trades/latest", (await createApiKey(t.ctx, bob.token, ["signals"])).key)),
    ).toEqual({ tokens: [], trades: [] });
  });
});

describe("without market sources", () => {
  let ctx: TestContext;
  let offlineKey: string;
  beforeAll(async () => {
    ctx = await createTestContext();
    offlineKey = (await createApiKey(ctx, (await login(ctx)).token, ["agents"])).key;
  });
  afterAll(() => ctx.close());

  test("whale trades answer 503 SERVICE_NOT_CONFIGURED naming the variable, before validating", async () => {
    for (const path of [
      "/v1/whale-trades/latest",
      `/v1/whale-trades/${MINT}`,
      "/v1/whale-trades/not-an-address?limit=0",
    ]) {
      await expectError(await get(ctx, path, offlineKey), 503, {
        error: "Whale trade data is not configured: set WHALE_DATA_API_KEY",
        code: "SERVICE_NOT_CONFIGURED",
      });
    }
    // Authentication still comes first.
    expect((await ctx.request("GET", "/v1/whale-trades/latest")).status).toBe(401);
  });

  test("the SOL price answers 503 when no price source is configured", async () => {
    const res = await get(ctx, "/v1/prices/sol", offlineKey);
    expect(res.status).toBe(503);
    expect((await json(res)).code).toBe("SERVICE_NOT_CONFIGURED");
  });

  test("a wallet whose prices are unknown shows nulls, never zero", async () => {
    const token = (await login(ctx)).token;
    const agent = await json(await ctx.request("POST", "/api/v1/agents", { token, body: { name: "offline" } }));
    const body = await json(await get(ctx, `/v1/agents/${agent.id}/wallet`, offlineKey));
    expect(body).toMatchObject({ solPriceUsd: null, totalValueUsd: null, unpricedTokens: [SOL_MINT] });
    expect(body.holdings).toEqual([
      {
        tokenAddress: SOL_MINT,
        tokenSymbol: "SOL",
        balance: "10",
        priceUsd: null,
        valueUsd: null,
        lastUpdated: "2026-01-01T00:00:00.000Z",
      },
    ]);
  });
});

describe("the public app (PUBLIC_PORT)", () => {
  test("serves /v1 only: /api/v1/*, /metrics and the OpenAPI document are 404", async () => {
    const app = createPublicApp(t.ctx.services);
    const res = await app.request("/v1/agents", { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    for (const path of [
      "/api/v1/health/live",
      "/api/v1/agents",
      "/metrics",
      "/api/v1/openapi.json",
      "/api/v1/events",
    ]) {
      const r = await app.request(path, { headers: { authorization: `Bearer ${t.token}` } });
      expect(r.status, path).toBe(404);
      expect(await json(r)).toEqual({ success: false, error: `Route not found: GET ${path}`, code: "NOT_FOUND" });
    }
    expect((await app.request("/v1/agents")).status).toBe(401);
  });
});
