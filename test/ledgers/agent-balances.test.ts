import { describe, expect, test } from "bun:test";
import type { TokenPriceLookup } from "../../src/ledgers/token-price-lookup.ts";
import { SOL_MINT } from "../../src/money.ts";
import { createAgent, insertPosition, simulationWalletOf } from "../agents/fixtures.ts";
import { createApiKey, createTestContext, json, login } from "../helpers/context.ts";
import { contextPerFile, expectError, UUID } from "../helpers/file-context.ts";

// SPEC "Agent balance", "Agent balance endpoints".

const { ctx, token, other } = await contextPerFile();

const now = () => new Date(ctx.clock.now()).toISOString();
const post = (body: unknown, t = token) => ctx.request("POST", "/api/v1/agent-balances", { token: t, body });
const validBody = (agentId: string, extra: Record<string, unknown> = {}) => ({
  agentId,
  walletAddress: "sim_Wa11et",
  tokenAddress: `Mint${crypto.randomUUID().slice(0, 8)}`,
  tokenSymbol: "TKN",
  balance: "100.25",
  ...extra,
});

describe("GET /agent-balances", () => {
  test("the agent's balances, SOL first, each with priceSol (stored price fallback; unknown → null)", async () => {
    const agent = await createAgent(ctx, token);
    const sim = simulationWalletOf(ctx, agent.id);
    ctx.clock.advance(1000);
    const priced = await json(
      await post({
        agentId: agent.id,
        walletAddress: sim,
        tokenAddress: "MintPriced",
        tokenSymbol: "PRC",
        balance: "50",
      }),
    );
    const unpriced = await json(
      await post({
        agentId: agent.id,
        walletAddress: sim,
        tokenAddress: "MintUnpriced",
        tokenSymbol: "UNP",
        balance: "7",
      }),
    );
    insertPosition(ctx, { agentId: agent.id, walletAddress: sim, tokenAddress: "MintPriced", lastPriceSol: "0.002" });
    const res = await ctx.request("GET", `/api/v1/agent-balances?agentId=${agent.id}`, { token });
    expect(res.status).toBe(200);
    const list = await json(res);
    expect(list).toHaveLength(3);
    expect(list[0]).toEqual({
      id: expect.stringMatching(UUID),
      agentId: agent.id,
      walletAddress: sim,
      tokenAddress: SOL_MINT,
      tokenSymbol: "SOL",
      balance: "10",
      lastUpdated: "2026-01-01T00:00:00.000Z",
      priceSol: 1,
    });
    expect(list[1]).toEqual({ ...priced, priceSol: 0.002 });
    expect(list[2]).toEqual({ ...unpriced, priceSol: null });
  });

  test("walletAddress filters; limit/offset page", async () => {
    const agent = await createAgent(ctx, token);
    const sim = simulationWalletOf(ctx, agent.id);
    await post(validBody(agent.id, { walletAddress: "sim_Other" }));
    const filtered = await json(
      await ctx.request("GET", `/api/v1/agent-balances?agentId=${agent.id}&walletAddress=${sim}`, { token }),
    );
    expect(filtered.map((b: { walletAddress: string }) => b.walletAddress)).toEqual([sim]);
    const onlyOther = await json(
      await ctx.request("GET", `/api/v1/agent-balances?agentId=${agent.id}&walletAddress=sim_Other`, { token }),
    );
    expect(onlyOther.map((b: { walletAddress: string }) => b.walletAddress)).toEqual(["sim_Other"]);
    const page = await json(
      await ctx.request("GET", `/api/v1/agent-balances?agentId=${agent.id}&limit=1&offset=1`, { token }),
    );
    expect(page.map((b: { walletAddress: string }) => b.walletAddress)).toEqual(["sim_Other"]);
    await expectError(
      await ctx.request("GET", `/api/v1/agent-balances?agentId=${agent.id}&limit=1001`, { token }),
      400,
      "limit must be at most 1000",
    );
    await expectError(
      await ctx.request("GET", `/api/v1/agent-balances?agentId=${agent.id}&offset=-1`, { token }),
      400,
      "offset must be at least 0",
    );
  });

  test("agentId is required and must be the caller's", async () => {
    await expectError(await ctx.request("GET", "/api/v1/agent-balances", { token }), 400, "Agent ID is required");
    await expectError(
      await ctx.request("GET", "/api/v1/agent-balances?agentId=abc", { token }),
      400,
      "Invalid agent ID format",
    );
    const theirs = await createAgent(ctx, other.token);
    await expectError(
      await ctx.request("GET", `/api/v1/agent-balances?agentId=${theirs.id}`, { token }),
      404,
      "Agent not found",
    );
  });

  test("an API key with the balances scope reads the list", async () => {
    const agent = await createAgent(ctx, token);
    const key = await createApiKey(ctx, token, ["balances"]);
    const res = await ctx.request("GET", `/api/v1/agent-balances?agentId=${agent.id}`, { apiKey: key.key });
    expect(res.status).toBe(200);
    expect((await json(res))[0].balance).toBe("10");
  });

  test("prices come from the injected TokenPriceLookup; a failing lookup leaves priceSol null", async () => {
    let fail = false;
    const lookup: TokenPriceLookup = {
      async pricesInSol(mints) {
        if (fail) throw new Error("price provider down");
        return new Map(mints.filter((m) => m === "MintKnown").map((m) => [m, 0.5]));
      },
    };
    const c2 = await createTestContext({ services: { tokenPriceLookup: lookup } });
    try {
      const t = (await login(c2)).token;
      const agent = await createAgent(c2, t);
      for (const mint of ["MintKnown", "MintUnknown"]) {
        await c2.request("POST", "/api/v1/agent-balances", {
          token: t,
          body: { agentId: agent.id, walletAddress: "w", tokenAddress: mint, tokenSymbol: "T", balance: "1" },
        });
      }
      const prices = async () =>
        (await json(await c2.request("GET", `/api/v1/agent-balances?agentId=${agent.id}`, { token: t }))).map(
          (b: { tokenAddress: string; priceSol: number | null }) => [b.tokenAddress, b.priceSol],
        );
      expect(await prices()).toEqual([
        [SOL_MINT, 1],
        ["MintKnown", 0.5],
        ["MintUnknown", null],
      ]);
      fail = true;
      expect(await prices()).toEqual([
        [SOL_MINT, 1],
        ["MintKnown", null],
        ["MintUnknown", null],
      ]);
      expect(
        c2.logs.some(
          (l) => l.includes("token prices unavailable for balance list") && l.includes("price provider down"),
        ),
      ).toBe(true);
    } finally {
      await c2.close();
    }
  });
});

describe("GET /agent-balances/:id", () => {
  test("one balance, without priceSol", async () => {
    const agent = await createAgent(ctx, token);
    const created = await json(await post(validBody(agent.id)));
    const res = await ctx.request("GET", `/api/v1/agent-balances/${created.id}`, { token });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toEqual(created);
    expect("priceSol" in body).toBe(false);
  });
  test("404 for missing and foreign, 400 for malformed ids", async () => {
    await expectError(
      await ctx.request("GET", "/api/v1/agent-balances/00000000-0000-4000-8000-000000000000", { token }),
      404,
      "Balance not found",
    );
    const theirs = await createAgent(ctx, other.token);
    const theirBalance = await json(await post(validBody(theirs.id), other.token));
    await expectError(
      await ctx.request("GET", `/api/v1/agent-balances/${theirBalance.id}`, { token }),
      404,
      "Balance not found",
    );
    await expectError(
      await ctx.request("GET", "/api/v1/agent-balances/12", { token }),
      400,
      "Invalid balance ID format",
    );
  });
});

describe("POST /agent-balances", () => {
  test("creates the record, balance kept exact", async () => {
    const agent = await createAgent(ctx, token);
    ctx.clock.advance(500);
    const res = await post({
      agentId: agent.id,
      walletAddress: "sim_W",
      tokenAddress: "MintX",
      tokenSymbol: "X",
      balance: "0.123456789012345678901",
    });
    expect(res.status).toBe(201);
    expect(await json(res)).toEqual({
      id: expect.stringMatching(UUID),
      agentId: agent.id,
      walletAddress: "sim_W",
      tokenAddress: "MintX",
      tokenSymbol: "X",
      balance: "0.123456789012345678901",
      lastUpdated: now(),
    });
    // Canonical text: trailing zeros dropped, value unchanged.
    expect(
      (
        await json(
          await post({
            agentId: agent.id,
            walletAddress: "sim_W",
            tokenAddress: "MintY",
            tokenSymbol: "Y",
            balance: "10.500",
          }),
        )
      ).balance,
    ).toBe("10.5");
  });

  test("a duplicate (agent, wallet, token) is a conflict", async () => {
    const agent = await createAgent(ctx, token);
    const body = validBody(agent.id);
    expect((await post(body)).status).toBe(201);
    await expectError(await post(body), 409, "A balance for this agent, wallet and token already exists");
  });

  const invalid: Array<[string, (agentId: string) => Record<string, unknown>, string]> = [
    ["missing agentId", (id) => ({ ...validBody(id), agentId: undefined }), "Agent ID is required"],
    ["malformed agentId", (id) => ({ ...validBody(id), agentId: "nope" }), "Invalid agent ID format"],
    ["missing walletAddress", (id) => ({ ...validBody(id), walletAddress: undefined }), "walletAddress is required"],
    ["missing tokenAddress", (id) => ({ ...validBody(id), tokenAddress: "" }), "tokenAddress is required"],
    ["missing tokenSymbol", (id) => ({ ...validBody(id), tokenSymbol: undefined }), "tokenSymbol is required"],
    [
      "tokenSymbol over 50",
      (id) => ({ ...validBody(id), tokenSymbol: "S".repeat(51) }),
      "tokenSymbol must be at most 50 characters",
    ],
    [
      "missing balance",
      (id) => ({ ...validBody(id), balance: undefined }),
      "balance is required and must be a decimal string",
    ],
    [
      "balance as a number",
      (id) => ({ ...validBody(id), balance: 5 }),
      "balance is required and must be a decimal string",
    ],
    [
      "negative balance",
      (id) => ({ ...validBody(id), balance: "-1" }),
      'balance must be a non-negative decimal string such as "12.5"',
    ],
    [
      "balance in exponent form",
      (id) => ({ ...validBody(id), balance: "1e5" }),
      'balance must be a non-negative decimal string such as "12.5"',
    ],
  ];
  for (const [label, make, error] of invalid) {
    test(`400 for ${label}`, async () => {
      const agent = await createAgent(ctx, token);
      await expectError(await post(make(agent.id)), 400, error);
    });
  }

  test("404 for another user's agent", async () => {
    const theirs = await createAgent(ctx, other.token);
    await expectError(await post(validBody(theirs.id)), 404, "Agent not found");
  });
});

describe("PUT and DELETE /agent-balances/:id", () => {
  test("PUT updates balance and symbol; lastUpdated moves", async () => {
    const agent = await createAgent(ctx, token);
    const created = await json(await post(validBody(agent.id)));
    ctx.clock.advance(2000);
    const res = await ctx.request("PUT", `/api/v1/agent-balances/${created.id}`, { token, body: { balance: "99.5" } });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ ...created, balance: "99.5", lastUpdated: now() });
    const sym = await json(
      await ctx.request("PUT", `/api/v1/agent-balances/${created.id}`, { token, body: { tokenSymbol: "NEW" } }),
    );
    expect(sym).toEqual({ ...created, balance: "99.5", tokenSymbol: "NEW", lastUpdated: now() });
    await expectError(
      await ctx.request("PUT", `/api/v1/agent-balances/${created.id}`, { token, body: {} }),
      400,
      "At least one field must be provided: balance or tokenSymbol",
    );
    await expectError(
      await ctx.request("PUT", `/api/v1/agent-balances/${created.id}`, { token, body: { balance: "abc" } }),
      400,
      'balance must be a non-negative decimal string such as "12.5"',
    );
    await expectError(
      await ctx.request("PUT", "/api/v1/agent-balances/x", { token, body: { balance: "1" } }),
      400,
      "Invalid balance ID format",
    );
    const theirs = await json(await post(validBody((await createAgent(ctx, other.token)).id), other.token));
    await expectError(
      await ctx.request("PUT", `/api/v1/agent-balances/${theirs.id}`, { token, body: { balance: "0" } }),
      404,
      "Balance not found",
    );
    expect(
      (await json(await ctx.request("GET", `/api/v1/agent-balances/${theirs.id}`, { token: other.token }))).balance,
    ).toBe("100.25");
  });

  test("DELETE removes the record", async () => {
    const agent = await createAgent(ctx, token);
    const created = await json(await post(validBody(agent.id)));
    const res = await ctx.request("DELETE", `/api/v1/agent-balances/${created.id}`, { token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ success: true });
    await expectError(
      await ctx.request("GET", `/api/v1/agent-balances/${created.id}`, { token }),
      404,
      "Balance not found",
    );
    await expectError(
      await ctx.request("DELETE", `/api/v1/agent-balances/${created.id}`, { token }),
      404,
      "Balance not found",
    );
  });
});

// The route security matrix is generated for every route (test/http/route-security.test.ts);
// what it cannot know is that a list filtered by another user's agent is a 404.
test("a list filtered by another user's agent answers 404", async () => {
  const theirs = await createAgent(ctx, other.token);
  const res = await ctx.request("GET", `/api/v1/agent-balances?agentId=${theirs.id}`, { token });
  expect(res.status).toBe(404);
});
