import { beforeAll, describe, expect, test } from "bun:test";
import { SOL_MINT } from "../../src/money.ts";
import { createAgent } from "../agents/fixtures.ts";
import { createApiKey, json } from "../helpers/context.ts";
import { contextPerFile, expectError, UUID } from "../helpers/file-context.ts";

// SPEC "Agent transaction", "Agent transaction endpoints".

const { ctx, token, other } = await contextPerFile();

const now = () => new Date(ctx.clock.now()).toISOString();
const minimal = (agentId: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  agentId,
  walletAddress: "sim_W1",
  transactionType: "BUY",
  transactionValueUsd: "150.5",
  inputMint: SOL_MINT,
  inputAmount: "1",
  outputMint: "MintTok",
  outputAmount: "35000",
  ...extra,
});
const post = async (body: unknown, t = token) => {
  const res = await ctx.request("POST", "/api/v1/agent-transactions", { token: t, body });
  expect(res.status).toBe(201);
  return json(res);
};
const ids = (list: Array<{ id: string }>) => list.map((x) => x.id);

describe("POST /agent-transactions", () => {
  test("creates a record from the required fields, with defaults for the rest", async () => {
    const agent = await createAgent(ctx, token);
    ctx.clock.advance(1000);
    const body = await post(minimal(agent.id));
    expect(body).toEqual({
      id: expect.stringMatching(UUID),
      agentId: agent.id,
      walletAddress: "sim_W1",
      transactionType: "BUY",
      transactionValueUsd: "150.5",
      transactionTime: now(),
      destinationAddress: null,
      signalId: null,
      fees: null,
      rentDepositSol: "0",
      rentRefundSol: "0",
      routes: [],
      inputMint: SOL_MINT,
      inputSymbol: null,
      inputAmount: "1",
      inputPrice: null,
      outputMint: "MintTok",
      outputSymbol: null,
      outputAmount: "35000",
      outputPrice: null,
      slippage: null,
      priceImpact: null,
      isDca: false,
      isTakeProfit: false,
      tradingMode: "simulation",
      transactionHash: null,
      status: "confirmed",
      createdAt: now(),
      updatedAt: now(),
    });
  });

  test("stores every optional field exactly as sent", async () => {
    const agent = await createAgent(ctx, token);
    const full = minimal(agent.id, {
      transactionType: "SELL",
      transactionTime: "2026-01-01T10:00:00Z",
      destinationAddress: "sim_W1",
      signalId: 42,
      fees: "0.000105",
      routes: ["Raydium", "Orca"],
      inputMint: "MintTok",
      inputSymbol: "TOK",
      inputAmount: "35000",
      inputPrice: "0.0000285714285714285714",
      outputMint: SOL_MINT,
      outputSymbol: "SOL",
      outputAmount: "0.998",
      outputPrice: "1",
      slippage: "300",
      priceImpact: "-0.12",
      isDca: false,
      isTakeProfit: true,
      transactionHash: "5sig",
    });
    const body = await post(full);
    const { agentId: _a, transactionTime: _t, ...rest } = full;
    expect(body).toMatchObject({ ...rest, transactionTime: "2026-01-01T10:00:00.000Z" });
    expect(await json(await ctx.request("GET", `/api/v1/agent-transactions/${body.id}`, { token }))).toEqual(body);
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ["missing agentId", { agentId: undefined }, "Agent ID is required"],
    ["malformed agentId", { agentId: "x" }, "Invalid agent ID format"],
    ["missing walletAddress", { walletAddress: undefined }, "walletAddress is required"],
    ["bad transactionType", { transactionType: "HOLD" }, "Transaction type must be either 'BUY' or 'SELL'"],
    ["missing transactionType", { transactionType: undefined }, "Transaction type must be either 'BUY' or 'SELL'"],
    [
      "missing transactionValueUsd",
      { transactionValueUsd: undefined },
      "transactionValueUsd is required and must be a decimal string",
    ],
    [
      "transactionValueUsd as number",
      { transactionValueUsd: 150.5 },
      "transactionValueUsd is required and must be a decimal string",
    ],
    ["missing inputMint", { inputMint: undefined }, "inputMint is required"],
    ["missing inputAmount", { inputAmount: undefined }, "inputAmount is required and must be a decimal string"],
    ["negative inputAmount", { inputAmount: "-1" }, 'inputAmount must be a non-negative decimal string such as "12.5"'],
    ["missing outputMint", { outputMint: "" }, "outputMint is required"],
    ["missing outputAmount", { outputAmount: undefined }, "outputAmount is required and must be a decimal string"],
    ["bad transactionTime", { transactionTime: "yesterday" }, "transactionTime must be an ISO 8601 date"],
    ["fractional signalId", { signalId: 1.5 }, "signalId must be a whole number"],
    ["routes not an array", { routes: "Raydium" }, "routes must be an array of strings"],
    ["isDca as text", { isDca: "true" }, "isDca must be true or false"],
  ];
  for (const [label, patch, error] of invalid) {
    test(`400 for ${label}`, async () => {
      const agent = await createAgent(ctx, token);
      const res = await ctx.request("POST", "/api/v1/agent-transactions", { token, body: minimal(agent.id, patch) });
      await expectError(res, 400, error);
    });
  }

  test("404 for another user's agent", async () => {
    const theirs = await createAgent(ctx, other.token);
    await expectError(
      await ctx.request("POST", "/api/v1/agent-transactions", { token, body: minimal(theirs.id) }),
      404,
      "Agent not found",
    );
  });
});

describe("GET /agent-transactions filters", () => {
  let agentId: string;
  let t1: string;
  let t2: string;
  let t3: string;
  const list = async (query: string) => {
    const res = await ctx.request("GET", `/api/v1/agent-transactions?agentId=${agentId}${query}`, { token });
    expect(res.status).toBe(200);
    return ids(await json(res));
  };

  beforeAll(async () => {
    agentId = (await createAgent(ctx, token)).id;
    t1 = (
      await post(
        minimal(agentId, {
          walletAddress: "W1",
          transactionType: "BUY",
          transactionTime: "2026-01-01T01:00:00.000Z",
          signalId: 1,
        }),
      )
    ).id;
    t2 = (
      await post(
        minimal(agentId, {
          walletAddress: "W2",
          transactionType: "SELL",
          transactionTime: "2026-01-01T02:00:00.000Z",
          signalId: 2,
          isTakeProfit: true,
        }),
      )
    ).id;
    t3 = (
      await post(
        minimal(agentId, {
          walletAddress: "W1",
          transactionType: "BUY",
          transactionTime: "2026-01-01T03:00:00.000Z",
          signalId: 1,
          isDca: true,
        }),
      )
    ).id;
    // Another agent's row never appears.
    await post(minimal((await createAgent(ctx, token)).id, { transactionTime: "2026-01-01T02:30:00.000Z" }));
  });

  test("no filter: all of the agent's, newest transactionTime first", async () => {
    expect(await list("")).toEqual([t3, t2, t1]);
  });
  test("walletAddress", async () => expect(await list("&walletAddress=W2")).toEqual([t2]));
  test("transactionType", async () => {
    expect(await list("&transactionType=SELL")).toEqual([t2]);
    expect(await list("&transactionType=BUY")).toEqual([t3, t1]);
  });
  test("startTime and endTime (inclusive)", async () => {
    expect(await list("&startTime=2026-01-01T02:00:00.000Z")).toEqual([t3, t2]);
    expect(await list("&endTime=2026-01-01T02:00:00.000Z")).toEqual([t2, t1]);
    expect(await list("&startTime=2026-01-01T01:30:00Z&endTime=2026-01-01T02:30:00Z")).toEqual([t2]);
  });
  test("signalId", async () => {
    expect(await list("&signalId=2")).toEqual([t2]);
    expect(await list("&signalId=1")).toEqual([t3, t1]);
  });
  test("isDca", async () => {
    expect(await list("&isDca=true")).toEqual([t3]);
    expect(await list("&isDca=false")).toEqual([t2, t1]);
  });
  test("isTakeProfit returns only partial take-profit sales", async () => {
    expect(await list("&isTakeProfit=true")).toEqual([t2]);
    expect(await list("&isTakeProfit=false")).toEqual([t3, t1]);
  });
  test("filters combine", async () => expect(await list("&walletAddress=W1&isDca=false")).toEqual([t1]));
  test("limit and offset", async () => {
    expect(await list("&limit=1")).toEqual([t3]);
    expect(await list("&offset=1")).toEqual([t2, t1]);
    expect(await list("&limit=1&offset=2")).toEqual([t1]);
  });

  const invalid: Array<[string, string]> = [
    ["&transactionType=HOLD", "Transaction type must be either 'BUY' or 'SELL'"],
    ["&startTime=abc", "startTime must be an ISO 8601 date"],
    ["&endTime=abc", "endTime must be an ISO 8601 date"],
    ["&signalId=x", "signalId must be a whole number"],
    ["&isDca=maybe", "isDca must be true or false"],
    ["&isTakeProfit=2", "isTakeProfit must be true or false"],
    ["&limit=0", "limit must be at least 1"],
    ["&limit=1001", "limit must be at most 1000"],
    ["&offset=-1", "offset must be at least 0"],
  ];
  for (const [query, error] of invalid) {
    test(`400 for ${query}`, async () => {
      await expectError(
        await ctx.request("GET", `/api/v1/agent-transactions?agentId=${agentId}${query}`, { token }),
        400,
        error,
      );
    });
  }

  test("agentId is required, well-formed and the caller's", async () => {
    await expectError(await ctx.request("GET", "/api/v1/agent-transactions", { token }), 400, "Agent ID is required");
    await expectError(
      await ctx.request("GET", "/api/v1/agent-transactions?agentId=1", { token }),
      400,
      "Invalid agent ID format",
    );
    const theirs = await createAgent(ctx, other.token);
    await expectError(
      await ctx.request("GET", `/api/v1/agent-transactions?agentId=${theirs.id}`, { token }),
      404,
      "Agent not found",
    );
  });

  test("a transactions key reads the list", async () => {
    const key = await createApiKey(ctx, token, ["transactions"]);
    const res = await ctx.request("GET", `/api/v1/agent-transactions?agentId=${agentId}`, { apiKey: key.key });
    expect(res.status).toBe(200);
    expect(ids(await json(res))).toEqual([t3, t2, t1]);
  });
});

test("limit defaults to 100 and goes up to 1000", async () => {
  const agent = await createAgent(ctx, token);
  const rows = Array.from({ length: 101 }, (_, i) => {
    const time = new Date(Date.parse("2026-01-01T00:00:00Z") + i * 1000).toISOString();
    return `('${crypto.randomUUID()}', '${agent.id}', 'W', 'BUY', '1', '${time}', 'a', '1', 'b', '1', '${time}', '${time}')`;
  });
  ctx.database.sqlite.exec(
    `INSERT INTO agent_transactions (id, agent_id, wallet_address, transaction_type, transaction_value_usd, transaction_time, input_mint, input_amount, output_mint, output_amount, created_at, updated_at) VALUES ${rows.join(",")}`,
  );
  expect(
    await json(await ctx.request("GET", `/api/v1/agent-transactions?agentId=${agent.id}`, { token })),
  ).toHaveLength(100);
  expect(
    await json(await ctx.request("GET", `/api/v1/agent-transactions?agentId=${agent.id}&limit=1000`, { token })),
  ).toHaveLength(101);
});

describe("GET one, PUT, DELETE", () => {
  test("GET /agent-transactions/:id; 404 foreign and missing; 400 malformed", async () => {
    const agent = await createAgent(ctx, token);
    const created = await post(minimal(agent.id));
    expect(await json(await ctx.request("GET", `/api/v1/agent-transactions/${created.id}`, { token }))).toEqual(
      created,
    );
    const theirs = await post(minimal((await createAgent(ctx, other.token)).id), other.token);
    await expectError(
      await ctx.request("GET", `/api/v1/agent-transactions/${theirs.id}`, { token }),
      404,
      "Transaction not found",
    );
    await expectError(
      await ctx.request("GET", "/api/v1/agent-transactions/00000000-0000-4000-8000-000000000000", { token }),
      404,
      "Transaction not found",
    );
    await expectError(
      await ctx.request("GET", "/api/v1/agent-transactions/abc", { token }),
      400,
      "Invalid transaction ID format",
    );
  });

  test("PUT changes only the sent fields and updatedAt", async () => {
    const agent = await createAgent(ctx, token);
    const created = await post(minimal(agent.id));
    ctx.clock.advance(3000);
    const res = await ctx.request("PUT", `/api/v1/agent-transactions/${created.id}`, {
      token,
      body: { fees: "0.0001", isDca: true, routes: ["Meteora"], signalId: null },
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ ...created, fees: "0.0001", isDca: true, routes: ["Meteora"], updatedAt: now() });
    await expectError(
      await ctx.request("PUT", `/api/v1/agent-transactions/${created.id}`, { token, body: {} }),
      400,
      "At least one field must be provided",
    );
    await expectError(
      await ctx.request("PUT", `/api/v1/agent-transactions/${created.id}`, {
        token,
        body: { transactionType: "SWAP" },
      }),
      400,
      "Transaction type must be either 'BUY' or 'SELL'",
    );
    const theirs = await post(minimal((await createAgent(ctx, other.token)).id), other.token);
    await expectError(
      await ctx.request("PUT", `/api/v1/agent-transactions/${theirs.id}`, { token, body: { fees: "1" } }),
      404,
      "Transaction not found",
    );
    expect(
      (await json(await ctx.request("GET", `/api/v1/agent-transactions/${theirs.id}`, { token: other.token }))).fees,
    ).toBeNull();
  });

  test("DELETE removes the record", async () => {
    const agent = await createAgent(ctx, token);
    const created = await post(minimal(agent.id));
    const res = await ctx.request("DELETE", `/api/v1/agent-transactions/${created.id}`, { token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ success: true });
    await expectError(
      await ctx.request("DELETE", `/api/v1/agent-transactions/${created.id}`, { token }),
      404,
      "Transaction not found",
    );
  });
});

// The route security matrix is generated for every route (test/http/route-security.test.ts);
// what it cannot know is that a list filtered by another user's agent is a 404.
test("a list filtered by another user's agent answers 404", async () => {
  const theirs = await createAgent(ctx, other.token);
  const res = await ctx.request("GET", `/api/v1/agent-transactions?agentId=${theirs.id}`, { token });
  expect(res.status).toBe(404);
});
