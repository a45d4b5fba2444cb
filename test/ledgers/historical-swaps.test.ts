import { beforeAll, describe, expect, test } from "bun:test";
import { createAgent } from "../agents/fixtures.ts";
import { createApiKey, json } from "../helpers/context.ts";
import { contextPerFile, expectError, UUID } from "../helpers/file-context.ts";

// SPEC "Historical swap", "Historical swap endpoints" (list filters, CSV export columns).

const { ctx, token, other } = await contextPerFile();

const now = () => new Date(ctx.clock.now()).toISOString();
const HEADER =
  "id,tokenAddress,tokenSymbol,amount,purchasePrice,salePrice,changePercent,profitLossUsd,profitLossSol,purchaseTime,saleTime,closeReason";
const swap = (agentId: string, extra: Record<string, unknown> = {}) => ({
  agentId,
  walletAddress: "sim_W1",
  tokenAddress: "MintA",
  tokenSymbol: "AAA",
  amount: "35712.5",
  purchasePrice: "0.000028",
  salePrice: "0.000035",
  profitLossUsd: "37.9",
  purchaseTime: "2026-01-01T01:00:00.000Z",
  saleTime: "2026-01-01T02:00:00.000Z",
  closeReason: "manual",
  ...extra,
});
const post = async (body: unknown, t = token) => {
  const res = await ctx.request("POST", "/api/v1/agent-historical-swaps", { token: t, body });
  expect(res.status).toBe(201);
  return json(res);
};
const ids = (list: Array<{ id: string }>) => list.map((x) => x.id);

describe("POST /agent-historical-swaps", () => {
  test("creates the record; changePercent and profitLossSol derived exactly when not sent", async () => {
    const agent = await createAgent(ctx, token);
    ctx.clock.advance(1000);
    const body = await post(
      swap(agent.id, { signalId: 12, purchaseTransactionId: "tx-buy", saleTransactionId: "tx-sell" }),
    );
    expect(body).toEqual({
      id: expect.stringMatching(UUID),
      agentId: agent.id,
      walletAddress: "sim_W1",
      tokenAddress: "MintA",
      tokenSymbol: "AAA",
      amount: "35712.5",
      purchasePrice: "0.000028",
      salePrice: "0.000035",
      changePercent: "25",
      profitLossUsd: "37.9",
      profitLossSol: "0.2499875",
      purchaseTime: "2026-01-01T01:00:00.000Z",
      saleTime: "2026-01-01T02:00:00.000Z",
      purchaseTransactionId: "tx-buy",
      saleTransactionId: "tx-sell",
      signalId: "12",
      closeReason: "manual",
      createdAt: now(),
      updatedAt: now(),
    });
    const sent = await post(swap(agent.id, { changePercent: "-10.5", profitLossSol: "-0.1", signalId: "99" }));
    expect([sent.changePercent, sent.profitLossSol, sent.signalId]).toEqual(["-10.5", "-0.1", "99"]);
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ["missing agentId", { agentId: undefined }, "Agent ID is required"],
    ["missing walletAddress", { walletAddress: undefined }, "walletAddress is required"],
    ["missing tokenAddress", { tokenAddress: undefined }, "tokenAddress is required"],
    ["missing tokenSymbol", { tokenSymbol: "" }, "tokenSymbol is required"],
    ["missing amount", { amount: undefined }, "amount is required and must be a decimal string"],
    [
      "negative purchasePrice",
      { purchasePrice: "-1" },
      'purchasePrice must be a non-negative decimal string such as "12.5"',
    ],
    ["missing salePrice", { salePrice: undefined }, "salePrice is required and must be a decimal string"],
    ["missing profitLossUsd", { profitLossUsd: undefined }, "profitLossUsd is required and must be a decimal string"],
    ["profitLossUsd not a decimal", { profitLossUsd: "1,5" }, 'profitLossUsd must be a decimal string such as "-3.25"'],
    ["bad purchaseTime", { purchaseTime: "soon" }, "purchaseTime must be an ISO 8601 date"],
    ["missing saleTime", { saleTime: undefined }, "saleTime must be an ISO 8601 date"],
    ["sale before purchase", { saleTime: "2026-01-01T00:59:59.000Z" }, "saleTime must not be before purchaseTime"],
    [
      "unknown closeReason",
      { closeReason: "panic" },
      "Close reason must be one of: manual, stop_loss, stale_trade, take_profit, signal",
    ],
    ["signalId not a number", { signalId: "abc" }, "signalId must be a signal id (whole number)"],
    ["signalId a boolean", { signalId: true }, "signalId must be a signal id (whole number)"],
  ];
  for (const [label, patch, error] of invalid) {
    test(`400 for ${label}`, async () => {
      const agent = await createAgent(ctx, token);
      await expectError(
        await ctx.request("POST", "/api/v1/agent-historical-swaps", { token, body: swap(agent.id, patch) }),
        400,
        error,
      );
    });
  }

  test("404 for another user's agent", async () => {
    const theirs = await createAgent(ctx, other.token);
    await expectError(
      await ctx.request("POST", "/api/v1/agent-historical-swaps", { token, body: swap(theirs.id) }),
      404,
      "Agent not found",
    );
  });
});

describe("GET /agent-historical-swaps filters and export", () => {
  let agentId: string;
  let s1: { id: string };
  let s2: { id: string };
  let s3: { id: string };
  const list = async (query: string) => {
    const res = await ctx.request("GET", `/api/v1/agent-historical-swaps?agentId=${agentId}${query}`, { token });
    expect(res.status).toBe(200);
    return ids(await json(res));
  };

  beforeAll(async () => {
    agentId = (await createAgent(ctx, token)).id;
    s1 = await post(swap(agentId, { signalId: 7, profitLossUsd: "10" }));
    s2 = await post(
      swap(agentId, {
        walletAddress: "sim_W2",
        tokenAddress: "MintB",
        tokenSymbol: "BBB",
        purchaseTime: "2026-01-01T03:00:00.000Z",
        saleTime: "2026-01-01T05:00:00.000Z",
        signalId: 8,
        profitLossUsd: "-5",
        closeReason: "stop_loss",
      }),
    );
    s3 = await post(
      swap(agentId, {
        purchaseTime: "2026-01-01T04:00:00.000Z",
        saleTime: "2026-01-01T06:00:00.000Z",
        profitLossUsd: "100.5",
        closeReason: "stale_trade",
      }),
    );
    await post(swap((await createAgent(ctx, token)).id, { saleTime: "2026-01-01T05:30:00.000Z" }));
  });

  test("no filter: the agent's swaps, most recent sale first", async () =>
    expect(await list("")).toEqual([s3.id, s2.id, s1.id]));
  test("walletAddress", async () => expect(await list("&walletAddress=sim_W2")).toEqual([s2.id]));
  test("tokenAddress", async () => expect(await list("&tokenAddress=MintA")).toEqual([s3.id, s1.id]));
  test("tokenSymbol", async () => expect(await list("&tokenSymbol=BBB")).toEqual([s2.id]));
  test("purchase time range", async () => {
    expect(await list("&startPurchaseTime=2026-01-01T03:00:00.000Z")).toEqual([s3.id, s2.id]);
    expect(await list("&endPurchaseTime=2026-01-01T03:00:00.000Z")).toEqual([s2.id, s1.id]);
  });
  test("sale time range", async () => {
    expect(await list("&startSaleTime=2026-01-01T05:00:00.000Z")).toEqual([s3.id, s2.id]);
    expect(await list("&endSaleTime=2026-01-01T02:00:00.000Z")).toEqual([s1.id]);
    expect(await list("&startSaleTime=2026-01-01T03:00:00Z&endSaleTime=2026-01-01T05:59:00Z")).toEqual([s2.id]);
  });
  test("signalId", async () => expect(await list("&signalId=7")).toEqual([s1.id]));
  test("profit/loss bounds, compared as numbers", async () => {
    expect(await list("&minProfitLossUsd=0")).toEqual([s3.id, s1.id]);
    expect(await list("&maxProfitLossUsd=10")).toEqual([s2.id, s1.id]);
    expect(await list("&minProfitLossUsd=-5&maxProfitLossUsd=-5")).toEqual([s2.id]);
    expect(await list("&minProfitLossUsd=9.5")).toEqual([s3.id, s1.id]); // "100.5" > "9.5" numerically, not as text
  });
  test("closeReason", async () => {
    expect(await list("&closeReason=stop_loss")).toEqual([s2.id]);
    expect(await list("&closeReason=take_profit")).toEqual([]);
  });
  test("limit and offset", async () => {
    expect(await list("&limit=2")).toEqual([s3.id, s2.id]);
    expect(await list("&limit=2&offset=2")).toEqual([s1.id]);
  });

  const invalid: Array<[string, string]> = [
    ["&closeReason=panic", "Close reason must be one of: manual, stop_loss, stale_trade, take_profit, signal"],
    ["&minProfitLossUsd=abc", "minProfitLossUsd must be a number"],
    ["&maxProfitLossUsd=x", "maxProfitLossUsd must be a number"],
    ["&startSaleTime=x", "startSaleTime must be an ISO 8601 date"],
    ["&endPurchaseTime=x", "endPurchaseTime must be an ISO 8601 date"],
    ["&signalId=1.5", "signalId must be a whole number"],
    ["&limit=1001", "limit must be at most 1000"],
    ["&limit=0", "limit must be at least 1"],
    ["&offset=-3", "offset must be at least 0"],
  ];
  for (const [query, error] of invalid) {
    test(`400 for ${query} (list and export)`, async () => {
      await expectError(
        await ctx.request("GET", `/api/v1/agent-historical-swaps?agentId=${agentId}${query}`, { token }),
        400,
        error,
      );
      await expectError(
        await ctx.request("GET", `/api/v1/agent-historical-swaps/export?agentId=${agentId}${query}`, { token }),
        400,
        error,
      );
    });
  }

  test("agentId is required, well-formed and the caller's (list and export)", async () => {
    for (const base of ["/api/v1/agent-historical-swaps", "/api/v1/agent-historical-swaps/export"]) {
      await expectError(await ctx.request("GET", base, { token }), 400, "Agent ID is required");
      await expectError(await ctx.request("GET", `${base}?agentId=zz`, { token }), 400, "Invalid agent ID format");
      const theirs = await createAgent(ctx, other.token);
      await expectError(await ctx.request("GET", `${base}?agentId=${theirs.id}`, { token }), 404, "Agent not found");
    }
  });

  test("export: exactly the spec's columns, filters applied", async () => {
    const res = await ctx.request(
      "GET",
      `/api/v1/agent-historical-swaps/export?agentId=${agentId}&closeReason=stop_loss`,
      { token },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="historical-swaps.csv"');
    expect(await res.text()).toBe(
      `${HEADER}\r\n${s2.id},MintB,BBB,35712.5,0.000028,0.000035,25,-5,0.2499875,2026-01-01T03:00:00.000Z,2026-01-01T05:00:00.000Z,stop_loss\r\n`,
    );
    const all = (
      await (await ctx.request("GET", `/api/v1/agent-historical-swaps/export?agentId=${agentId}`, { token })).text()
    ).split("\r\n");
    expect(all[0]).toBe(HEADER);
    expect(all.slice(1, -1).map((l) => l.split(",")[0])).toEqual([s3.id, s2.id, s1.id]);
    const page = (
      await (
        await ctx.request("GET", `/api/v1/agent-historical-swaps/export?agentId=${agentId}&limit=1&offset=1`, { token })
      ).text()
    ).split("\r\n");
    expect(page.slice(1, -1).map((l) => l.split(",")[0])).toEqual([s2.id]);
  });

  test("a history key reads the list and the export", async () => {
    const key = await createApiKey(ctx, token, ["history"]);
    expect(
      (await ctx.request("GET", `/api/v1/agent-historical-swaps?agentId=${agentId}`, { apiKey: key.key })).status,
    ).toBe(200);
    expect(
      (await ctx.request("GET", `/api/v1/agent-historical-swaps/export?agentId=${agentId}`, { apiKey: key.key }))
        .status,
    ).toBe(200);
  });
});

test("export: RFC 4180 quoting and formula-injection protection", async () => {
  const agent = await createAgent(ctx, token);
  const cases: Array<[string, string]> = [
    ['He said "hi", then left', '"He said ""hi"", then left"'],
    ["line\nbreak", '"line\nbreak"'],
    ['=HYPERLINK("http://x")', '"\'=HYPERLINK(""http://x"")"'],
    ["+SUM(A1)", "'+SUM(A1)"],
    ["-2+3", "'-2+3"],
    ["@cmd", "'@cmd"],
    ["plain", "plain"],
  ];
  const created: string[] = [];
  for (let i = 0; i < cases.length; i++) {
    const [symbol] = cases[i]!;
    const saleTime = new Date(Date.parse("2026-02-01T00:00:00Z") - i * 1000).toISOString();
    created.push(
      (await post(swap(agent.id, { tokenSymbol: symbol, tokenAddress: `Mint${i}`, saleTime, profitLossUsd: "-12.5" })))
        .id,
    );
  }
  const text = await (
    await ctx.request("GET", `/api/v1/agent-historical-swaps/export?agentId=${agent.id}`, { token })
  ).text();
  expect(text.endsWith("\r\n")).toBe(true);
  const records = text
    .slice(HEADER.length + 2)
    .split(/\r\n/)
    .slice(0, -1);
  expect(records).toHaveLength(cases.length);
  for (let i = 0; i < cases.length; i++) {
    const [, cell] = cases[i]!;
    // A plain negative number is data, not a formula: it stays a number (docs/decisions.md).
    expect(records[i]).toBe(
      `${created[i]},Mint${i},${cell},35712.5,0.000028,0.000035,25,-12.5,0.2499875,2026-01-01T01:00:00.000Z,${new Date(Date.parse("2026-02-01T00:00:00Z") - i * 1000).toISOString()},manual`,
    );
  }
});

test("export streams every matching row across pages (no limit given)", async () => {
  const agent = await createAgent(ctx, token);
  const values: string[] = [];
  for (let i = 0; i < 1234; i++) {
    // Pairs of rows share a sale time, so the keyset pagination must break ties correctly.
    const sale = new Date(Date.parse("2026-03-01T00:00:00Z") + Math.floor(i / 2) * 1000).toISOString();
    values.push(
      `('${crypto.randomUUID()}', '${agent.id}', 'W', 'Mint', 'SYM', '1', '1', '2', '100', '1', '1', '2026-01-01T00:00:00.000Z', '${sale}', 'manual', '${sale}', '${sale}')`,
    );
  }
  ctx.database.sqlite.exec(
    `INSERT INTO historical_swaps (id, agent_id, wallet_address, token_address, token_symbol, amount, purchase_price, sale_price, change_percent, profit_loss_usd, profit_loss_sol, purchase_time, sale_time, close_reason, created_at, updated_at) VALUES ${values.join(",")}`,
  );
  const res = await ctx.request("GET", `/api/v1/agent-historical-swaps/export?agentId=${agent.id}`, { token });
  expect(res.body).toBeInstanceOf(ReadableStream);
  const lines = (await res.text()).split("\r\n").slice(1, -1);
  expect(lines).toHaveLength(1234);
  const idsSeen = lines.map((l) => l.split(",")[0]);
  expect(new Set(idsSeen).size).toBe(1234);
  const saleTimes = lines.map((l) => l.split(",")[10] as string);
  expect([...saleTimes].sort().reverse()).toEqual(saleTimes);
  // The list keeps its own default and maximum.
  expect(
    await json(await ctx.request("GET", `/api/v1/agent-historical-swaps?agentId=${agent.id}`, { token })),
  ).toHaveLength(100);
  expect(
    await json(await ctx.request("GET", `/api/v1/agent-historical-swaps?agentId=${agent.id}&limit=1000`, { token })),
  ).toHaveLength(1000);
});

describe("GET one, PUT, DELETE", () => {
  test("GET /agent-historical-swaps/:id; 404 foreign and missing; 400 malformed", async () => {
    const agent = await createAgent(ctx, token);
    const created = await post(swap(agent.id));
    expect(await json(await ctx.request("GET", `/api/v1/agent-historical-swaps/${created.id}`, { token }))).toEqual(
      created,
    );
    const theirs = await post(swap((await createAgent(ctx, other.token)).id), other.token);
    await expectError(
      await ctx.request("GET", `/api/v1/agent-historical-swaps/${theirs.id}`, { token }),
      404,
      "Historical swap not found",
    );
    await expectError(
      await ctx.request("GET", "/api/v1/agent-historical-swaps/00000000-0000-4000-8000-000000000000", { token }),
      404,
      "Historical swap not found",
    );
    await expectError(
      await ctx.request("GET", "/api/v1/agent-historical-swaps/nope", { token }),
      400,
      "Invalid historical swap ID format",
    );
  });

  test("PUT changes only the sent fields; the time order is kept", async () => {
    const agent = await createAgent(ctx, token);
    const created = await post(swap(agent.id));
    ctx.clock.advance(4000);
    const res = await ctx.request("PUT", `/api/v1/agent-historical-swaps/${created.id}`, {
      token,
      body: { closeReason: "stop_loss", profitLossUsd: "-1" },
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ ...created, closeReason: "stop_loss", profitLossUsd: "-1", updatedAt: now() });
    await expectError(
      await ctx.request("PUT", `/api/v1/agent-historical-swaps/${created.id}`, {
        token,
        body: { saleTime: "2025-01-01T00:00:00Z" },
      }),
      400,
      "saleTime must not be before purchaseTime",
    );
    await expectError(
      await ctx.request("PUT", `/api/v1/agent-historical-swaps/${created.id}`, { token, body: {} }),
      400,
      "At least one field must be provided",
    );
    const theirs = await post(swap((await createAgent(ctx, other.token)).id), other.token);
    await expectError(
      await ctx.request("PUT", `/api/v1/agent-historical-swaps/${theirs.id}`, {
        token,
        body: { closeReason: "signal" },
      }),
      404,
      "Historical swap not found",
    );
  });

  test("DELETE removes the record", async () => {
    const agent = await createAgent(ctx, token);
    const created = await post(swap(agent.id));
    const res = await ctx.request("DELETE", `/api/v1/agent-historical-swaps/${created.id}`, { token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ success: true });
    await expectError(
      await ctx.request("GET", `/api/v1/agent-historical-swaps/${created.id}`, { token }),
      404,
      "Historical swap not found",
    );
  });
});

// The route security matrix is generated for every route (test/http/route-security.test.ts);
// what it cannot know is that a list filtered by another user's agent is a 404.
test("a list filtered by another user's agent answers 404", async () => {
  const theirs = await createAgent(ctx, other.token);
  const res = await ctx.request("GET", `/api/v1/agent-historical-swaps?agentId=${theirs.id}`, { token });
  expect(res.status).toBe(404);
});
