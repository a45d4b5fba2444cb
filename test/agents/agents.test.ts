import { describe, expect, test } from "bun:test";
import { SOL_MINT } from "../../src/money.ts";
import { createApiKey, createTestContext, createUser, json, login } from "../helpers/context.ts";
import { contextPerFile, expectError, UUID } from "../helpers/file-context.ts";
import { type AgentBody, createAgent, insertPosition, simulationWalletOf } from "./fixtures.ts";

// SPEC "Agent", "Agent endpoints", "States and transitions"; PRODUCT.md §3.

const { ctx, token, userId, other } = await contextPerFile();

const now = () => new Date(ctx.clock.now()).toISOString();
const missingId = "00000000-0000-4000-8000-000000000000";

describe("POST /agents", () => {
  test("creates a simulation agent with the spec's defaults", async () => {
    ctx.clock.advance(1000);
    const res = await ctx.request("POST", "/api/v1/agents", { token, body: { name: "Alpha" } });
    expect(res.status).toBe(201);
    const body = await json<AgentBody>(res);
    expect(body.id).toMatch(UUID);
    expect(body).toEqual({
      id: body.id,
      userId,
      name: "Alpha",
      tradingMode: "simulation",
      automatedTradingSimulation: false,
      automatedTradingLive: false,
      createdAt: now(),
      updatedAt: now(),
    });
  });

  test("accepts tradingMode live and trims the name", async () => {
    const res = await ctx.request("POST", "/api/v1/agents", {
      token,
      body: { name: "  Live one  ", tradingMode: "live" },
    });
    expect(res.status).toBe(201);
    const body = await json<AgentBody>(res);
    expect(body.name).toBe("Live one");
    expect(body.tradingMode).toBe("live");
  });

  test("assigns a simulation wallet holding SIMULATION_INITIAL_SOL (PRODUCT.md §3)", async () => {
    const agent = await createAgent(ctx, token, { tradingMode: "live" });
    const address = simulationWalletOf(ctx, agent.id);
    expect(address).toMatch(/^sim_[1-9A-HJ-NP-Za-km-z]{32}$/);
    const rows = ctx.database.sqlite
      .query<{ token_address: string; token_symbol: string; balance: string; wallet_address: string }, [string]>(
        "SELECT token_address, token_symbol, balance, wallet_address FROM agent_balances WHERE agent_id = ?",
      )
      .all(agent.id);
    expect(rows).toEqual([{ token_address: SOL_MINT, token_symbol: "SOL", balance: "10", wallet_address: address }]);
    // Every agent gets its own wallet.
    const second = await createAgent(ctx, token);
    expect(simulationWalletOf(ctx, second.id)).not.toBe(address);
  });

  test("the initial amount follows SIMULATION_INITIAL_SOL exactly", async () => {
    const c2 = await createTestContext({ env: { SIMULATION_INITIAL_SOL: "2.125" } });
    try {
      const { token: t } = await login(c2);
      const agent = await createAgent(c2, t);
      const res = await c2.request("GET", `/api/v1/agent-balances?agentId=${agent.id}`, { token: t });
      expect((await json(res))[0].balance).toBe("2.125");
    } finally {
      await c2.close();
    }
  });

  const invalid: Array<[string, unknown, string]> = [
    ["missing name", { tradingMode: "simulation" }, "Name is required"],
    ["empty name", { name: "" }, "Name is required"],
    ["blank name", { name: "   " }, "Name is required"],
    ["name not a string", { name: 42 }, "Name is required"],
    ["name over 255 characters", { name: "n".repeat(256) }, "Name must be at most 255 characters"],
    ["unknown trading mode", { name: "x", tradingMode: "paper" }, "Trading mode must be either 'simulation' or 'live'"],
    [
      "trading mode wrong case",
      { name: "x", tradingMode: "LIVE" },
      "Trading mode must be either 'simulation' or 'live'",
    ],
  ];
  for (const [label, body, error] of invalid) {
    test(`400 for ${label}`, async () => {
      const body400 = await expectError(await ctx.request("POST", "/api/v1/agents", { token, body }), 400, error);
      expect(body400.code).toBe("VALIDATION_ERROR");
    });
  }

  test("a 255-character name is accepted", async () => {
    const agent = await createAgent(ctx, token, { name: "n".repeat(255) });
    expect(agent.name).toHaveLength(255);
  });
});

describe("GET /agents", () => {
  test("lists only the caller's agents, newest first", async () => {
    const c2 = await createTestContext();
    try {
      const { token: t } = await login(c2);
      const u2 = await createUser(c2);
      const a = await createAgent(c2, t, { name: "first" });
      c2.clock.advance(1000);
      const b = await createAgent(c2, t, { name: "second" });
      // Same millisecond: creation order still decides.
      const c = await createAgent(c2, t, { name: "third" });
      await createAgent(c2, u2.token, { name: "someone else's" });
      const res = await c2.request("GET", "/api/v1/agents", { token: t });
      expect(res.status).toBe(200);
      const list = await json<AgentBody[]>(res);
      expect(list.map((x) => x.id)).toEqual([c.id, b.id, a.id]);
      expect(list[2]).toEqual(a);

      const page = await json<AgentBody[]>(await c2.request("GET", "/api/v1/agents?limit=1&offset=1", { token: t }));
      expect(page.map((x) => x.id)).toEqual([b.id]);
      const beyond = await json<AgentBody[]>(await c2.request("GET", "/api/v1/agents?offset=3", { token: t }));
      expect(beyond).toEqual([]);
    } finally {
      await c2.close();
    }
  });

  test("default limit is 50 (SPEC pagination convention)", async () => {
    const c2 = await createTestContext();
    try {
      const { token: t } = await login(c2);
      for (let i = 0; i < 52; i++) await createAgent(c2, t, { name: `a${i}` });
      expect(await json<unknown[]>(await c2.request("GET", "/api/v1/agents", { token: t }))).toHaveLength(50);
      expect(await json<unknown[]>(await c2.request("GET", "/api/v1/agents?limit=1000", { token: t }))).toHaveLength(
        52,
      );
    } finally {
      await c2.close();
    }
  });

  const bounds: Array<[string, string]> = [
    ["limit=0", "limit must be at least 1"],
    ["limit=1001", "limit must be at most 1000"],
    ["limit=abc", "limit must be a whole number"],
    ["limit=1.5", "limit must be a whole number"],
    ["offset=-1", "offset must be at least 0"],
  ];
  for (const [query, error] of bounds) {
    test(`400 for ${query}`, async () => {
      await expectError(await ctx.request("GET", `/api/v1/agents?${query}`, { token }), 400, error);
    });
  }

  test("an API key with the agents scope reads the list of its owner", async () => {
    const agent = await createAgent(ctx, token);
    const key = await createApiKey(ctx, token, ["agents"]);
    const res = await ctx.request("GET", "/api/v1/agents?limit=1000", { apiKey: key.key });
    expect(res.status).toBe(200);
    expect((await json<AgentBody[]>(res)).some((a) => a.id === agent.id)).toBe(true);
    const full = await createApiKey(ctx, token, ["full_access"]);
    expect((await ctx.request("GET", `/api/v1/agents/${agent.id}`, { apiKey: full.key })).status).toBe(200);
  });
});

describe("GET /agents/:id", () => {
  test("returns the agent", async () => {
    const agent = await createAgent(ctx, token);
    const res = await ctx.request("GET", `/api/v1/agents/${agent.id}`, { token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual(agent);
  });
  test("404 for a missing agent and for another user's", async () => {
    await expectError(await ctx.request("GET", `/api/v1/agents/${missingId}`, { token }), 404, "Agent not found");
    const theirs = await createAgent(ctx, other.token);
    const res = await expectError(
      await ctx.request("GET", `/api/v1/agents/${theirs.id}`, { token }),
      404,
      "Agent not found",
    );
    expect(res.code).toBe("NOT_FOUND");
  });
  test("400 for a malformed id", async () => {
    await expectError(await ctx.request("GET", "/api/v1/agents/not-a-uuid", { token }), 400, "Invalid agent ID format");
  });
});

describe("PUT /agents/:id", () => {
  test("updates each field; updatedAt changes, createdAt does not", async () => {
    const agent = await createAgent(ctx, token, { name: "before" });
    ctx.clock.advance(5000);
    const res = await ctx.request("PUT", `/api/v1/agents/${agent.id}`, {
      token,
      body: { name: "after", tradingMode: "live", automatedTradingSimulation: true, automatedTradingLive: true },
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      ...agent,
      name: "after",
      tradingMode: "live",
      automatedTradingSimulation: true,
      automatedTradingLive: true,
      updatedAt: now(),
    });
    // live → simulation, one flag only
    ctx.clock.advance(1000);
    const back = await json<AgentBody>(
      await ctx.request("PUT", `/api/v1/agents/${agent.id}`, { token, body: { tradingMode: "simulation" } }),
    );
    expect(back.tradingMode).toBe("simulation");
    expect(back.automatedTradingLive).toBe(true);
    expect(back.updatedAt).toBe(now());
    const flagOnly = await json<AgentBody>(
      await ctx.request("PUT", `/api/v1/agents/${agent.id}`, { token, body: { automatedTradingLive: false } }),
    );
    expect(flagOnly.automatedTradingLive).toBe(false);
    expect(flagOnly.name).toBe("after");
  });

  test("updatedAt changes even when the clock has not moved", async () => {
    const agent = await createAgent(ctx, token);
    const a = await json<AgentBody>(
      await ctx.request("PUT", `/api/v1/agents/${agent.id}`, { token, body: { name: "x" } }),
    );
    const b = await json<AgentBody>(
      await ctx.request("PUT", `/api/v1/agents/${agent.id}`, { token, body: { name: "x" } }),
    );
    expect(a.updatedAt > agent.updatedAt).toBe(true);
    expect(b.updatedAt > a.updatedAt).toBe(true);
  });

  const emptyMessage =
    "At least one field must be provided: name, tradingMode, automatedTradingSimulation or automatedTradingLive";
  const invalid: Array<[string, unknown, string]> = [
    ["an empty body", {}, emptyMessage],
    ["only unknown fields", { colour: "red" }, emptyMessage],
    ["a bad trading mode", { tradingMode: "paper" }, "Trading mode must be either 'simulation' or 'live'"],
    ["a name over 255 characters", { name: "n".repeat(256) }, "Name must be at most 255 characters"],
    ["an empty name", { name: " " }, "Name must not be empty"],
    ["a non-boolean flag", { automatedTradingLive: "yes" }, "automatedTradingLive must be true or false"],
  ];
  for (const [label, body, error] of invalid) {
    test(`400 for ${label}, nothing changes`, async () => {
      const agent = await createAgent(ctx, token);
      await expectError(await ctx.request("PUT", `/api/v1/agents/${agent.id}`, { token, body }), 400, error);
      expect(await json(await ctx.request("GET", `/api/v1/agents/${agent.id}`, { token }))).toEqual(agent);
    });
  }

  test("404 for another user's agent, 400 for a malformed id", async () => {
    const theirs = await createAgent(ctx, other.token);
    await expectError(
      await ctx.request("PUT", `/api/v1/agents/${theirs.id}`, { token, body: { name: "mine now" } }),
      404,
      "Agent not found",
    );
    expect((await json(await ctx.request("GET", `/api/v1/agents/${theirs.id}`, { token: other.token }))).name).toBe(
      theirs.name,
    );
    await expectError(
      await ctx.request("PUT", "/api/v1/agents/123", { token, body: { name: "x" } }),
      400,
      "Invalid agent ID format",
    );
  });
});

describe("DELETE /agents/:id", () => {
  test("deletes the agent with its positions, balance history and configuration", async () => {
    const agent = await createAgent(ctx, token);
    const wallet = simulationWalletOf(ctx, agent.id);
    expect(
      (
        await ctx.request("PUT", `/api/v1/agents/${agent.id}/config`, {
          token,
          body: { config: { stopLoss: { percentage: 10 } } },
        })
      ).status,
    ).toBe(200);
    insertPosition(ctx, { agentId: agent.id, walletAddress: wallet });
    const count = (table: string) =>
      ctx.database.sqlite
        .query<{ n: number }, [string]>(`SELECT COUNT(*) AS n FROM ${table} WHERE agent_id = ?`)
        .get(agent.id)?.n;
    for (const t of ["positions", "balance_snapshots", "agent_configs", "agent_balances", "agent_wallets"])
      expect(count(t)).toBe(1);

    const res = await ctx.request("DELETE", `/api/v1/agents/${agent.id}`, { token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ success: true, message: "Agent deleted successfully" });
    for (const t of ["positions", "balance_snapshots", "agent_configs", "agent_balances", "agent_wallets"])
      expect(count(t)).toBe(0);
    await expectError(await ctx.request("GET", `/api/v1/agents/${agent.id}`, { token }), 404, "Agent not found");
    await expectError(await ctx.request("DELETE", `/api/v1/agents/${agent.id}`, { token }), 404, "Agent not found");
  });

  test("another user's agent is not deleted", async () => {
    const theirs = await createAgent(ctx, other.token);
    await expectError(await ctx.request("DELETE", `/api/v1/agents/${theirs.id}`, { token }), 404, "Agent not found");
    expect((await ctx.request("GET", `/api/v1/agents/${theirs.id}`, { token: other.token })).status).toBe(200);
    await expectError(await ctx.request("DELETE", "/api/v1/agents/zzz", { token }), 400, "Invalid agent ID format");
  });
});

describe("auth matrix", () => {});
