import { afterEach, describe, expect, test } from "bun:test";
import { Big } from "../../src/money.ts";
import { createUser, json } from "../helpers/context.ts";
import { MINT, startTrading, type TradingContext } from "../helpers/trading.ts";

// The sell buttons (issue 44 item 5): POST /agent-positions/:agentId/:positionId/sell { percent }
// sells that share of what the position holds through the exit path a take-profit sale takes;
// 100 is the manual close. Numbers as in manual-close.test.ts, worked out by hand: SOL at $100,
// the token at $0.01 (0.0001 SOL); 5 % of 10 SOL = 0.5 SOL buys 5000 tokens; every swap pays
// 0.000105 SOL of fees; the opening buy pays 0.00203928 SOL of token-account rent beside its
// cost (0.500105), and the close gets it back and pays the account close's 0.000005 SOL fee.

const SOL = "So11111111111111111111111111111111111111112";
let t: TradingContext;
afterEach(() => t?.close());

const sell = async (agentId: string, positionId: string, body: unknown, token = t.token) => {
  const res = await t.ctx.request("POST", `/api/v1/agent-positions/${agentId}/${positionId}/sell`, { token, body });
  return { status: res.status, body: await json(res) };
};
const price = (usd: string) => t.fake.setToken(MINT, { priceUsd: usd });
const txs = async (agentId: string) =>
  (await json(
    await t.ctx.request("GET", `/api/v1/agent-transactions?agentId=${agentId}`, { token: t.token }),
  )) as any[];

async function openOne() {
  const agent = await t.createAgent();
  await t.postSignal();
  await t.settle();
  const [pos] = await t.positions(agent.id);
  expect(pos.purchase.amount).toBe(5000);
  return { agent, pos };
}

/** The wallet's SOL as its records say: 10 − Σ BUY(in + fees + rent) + Σ SELL(out − fees + rent back). */
function ledgerSum(rows: any[]): string {
  let sol = new Big(10);
  for (const r of rows) {
    if (r.status !== "confirmed") continue;
    if (r.transactionType === "BUY")
      sol = sol
        .minus(r.inputAmount)
        .minus(r.fees)
        .minus(r.rentDepositSol ?? 0);
    else
      sol = sol
        .plus(r.outputAmount)
        .minus(r.fees)
        .plus(r.rentRefundSol ?? 0);
  }
  return sol.toString();
}

describe("selling a share of a position", () => {
  test("25 %, then 50 % of the rest, then 100 %: exact amounts, cost basis, P/L and ledger", async () => {
    t = await startTrading();
    const { agent, pos } = await openOne();
    expect(t.solBalance(agent.id)).toBe("9.49785572");

    // 25 % of 5000 = 1250 tokens at 0.0001 SOL: 0.125 SOL, less 0.000105 of fees. The cost of
    // those tokens is a quarter of 0.500105 (0.12502625): realized −0.00013125.
    const first = await sell(agent.id, pos.id, { percent: 25 });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      success: true,
      percent: 25,
      closed: false,
      transactionId: expect.any(String),
      transactionHash: expect.stringMatching(/^sim_/),
      signalId: expect.any(Number),
      tokensSold: "1250",
      proceedsSol: "0.125",
      remainingAmount: "3750",
      realizedProfitSol: "-0.00013125",
    });
    expect(t.solBalance(agent.id)).toBe("9.62275072");
    expect(t.tokenBalance(agent.id)).toBe("3750");
    let [p] = await t.positions(agent.id);
    expect(p.takeProfit).toMatchObject({ remainingAmount: 3750, levelsHit: 0, realizedProfitSol: -0.00013125 });

    // The SELL is a manual sale: not a take-profit, its signal a manual SELL signal.
    const sale = (await txs(agent.id)).find((x) => x.id === first.body.transactionId);
    expect(sale).toMatchObject({
      transactionType: "SELL",
      inputMint: MINT,
      inputAmount: "1250",
      outputMint: SOL,
      outputAmount: "0.125",
      fees: "0.000105",
      isTakeProfit: false,
      isDca: false,
      signalId: first.body.signalId,
    });
    const signal = await json(
      await t.ctx.request("GET", `/api/v1/trading-signals/${first.body.signalId}`, { token: t.token }),
    );
    expect(signal).toMatchObject({ source: "manual", signalType: "sell", tokenAddress: MINT });

    // 50 % of 3750 = 1875 tokens at 0.00012 SOL: 0.225 SOL. Their cost: half the held 0.37507875.
    price("0.012");
    const second = await sell(agent.id, pos.id, { percent: 50 });
    expect(second.body).toMatchObject({
      tokensSold: "1875",
      proceedsSol: "0.225",
      remainingAmount: "1875",
      realizedProfitSol: "0.037224375",
    });
    expect(t.solBalance(agent.id)).toBe("9.84764572");
    [p] = await t.positions(agent.id);
    expect(p.takeProfit).toMatchObject({ remainingAmount: 1875, realizedProfitSol: 0.037224375 });

    // 100 %: the manual close. P/L = every net proceed less the cost: 0.57468 − 0.500105.
    const last = await sell(agent.id, pos.id, { percent: 100 });
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({
      success: true,
      percent: 100,
      closed: true,
      remainingAmount: "0",
      profitLossSol: 0.074575,
      historicalSwapId: expect.any(String),
    });
    expect(await t.positions(agent.id)).toEqual([]);
    expect(t.solBalance(agent.id)).toBe("10.074575");
    expect(t.tokenBalance(agent.id)).toBe("0");
    const swaps = await json(
      await t.ctx.request("GET", `/api/v1/agent-historical-swaps?agentId=${agent.id}`, { token: t.token }),
    );
    expect(swaps).toMatchObject([{ closeReason: "manual", amount: "5000", profitLossSol: "0.074575" }]);

    const rows = await txs(agent.id);
    expect(rows.map((r) => `${r.transactionType}:${r.inputAmount}`).sort()).toEqual([
      "BUY:0.5",
      "SELL:1250",
      "SELL:1875",
      "SELL:1875",
    ]);
    expect(ledgerSum(rows)).toBe(t.solBalance(agent.id));
    // The P/L report replays the same sales: three, summing to the close's P/L.
    const report = await json(
      await t.ctx.request("GET", `/api/v1/reports/pnl?groupBy=token&agentId=${agent.id}`, { token: t.token }),
    );
    expect(report.total).toMatchObject({ sales: 3, realizedProfitLossSol: "0.074575" });

    // Audited: each part as a manual sale, the 100 % as the manual close.
    const audit = await json(await t.ctx.request("GET", "/api/v1/audit-log?limit=50", { token: t.token }));
    const entries = (audit.entries ?? audit) as any[];
    expect(entries.filter((e) => e.action === "position.sold_manually").map((e) => e.details.percent)).toEqual([
      50, 25,
    ]);
    expect(entries.find((e) => e.action === "position.closed_manually")).toMatchObject({ target: pos.id });
  });

  test("trade.executed and position.updated say the sale is manual", async () => {
    t = await startTrading();
    const { agent, pos } = await openOne();
    const seen: Array<{ type: string; data: any }> = [];
    t.ctx.services.events.subscribe((e: any) => seen.push({ type: e.type, data: e.data }));
    expect((await sell(agent.id, pos.id, { percent: 50 })).status).toBe(200);
    expect(seen.find((e) => e.type === "trade.executed")?.data).toMatchObject({
      side: "sell",
      reason: "manual",
      percent: 50,
      isTakeProfit: false,
      tokens: "2500",
    });
    expect(seen.find((e) => e.type === "position.updated")?.data).toMatchObject({
      positionId: pos.id,
      change: "manual_sale",
      percent: 50,
      remainingAmount: "2500",
    });
  });
});

describe("refusals", () => {
  test("bad percent 400, another user's or an unknown position 404, a closed one 409, dust 400", async () => {
    t = await startTrading();
    const { agent, pos } = await openOne();
    for (const body of [{ percent: 0 }, { percent: -5 }, { percent: 101 }, { percent: "25" }, {}, { percent: null }]) {
      const r = await sell(agent.id, pos.id, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({
        success: false,
        error: "percent must be a number greater than 0 and at most 100",
      });
    }
    const other = await createUser(t.ctx);
    expect(await sell(agent.id, pos.id, { percent: 25 }, other.token)).toMatchObject({
      status: 404,
      body: { error: "Position not found" },
    });
    const otherAgent = await t.createAgent();
    expect((await sell(otherAgent.id, pos.id, { percent: 25 })).status).toBe(404);
    expect((await sell(agent.id, crypto.randomUUID(), { percent: 25 })).status).toBe(404);
    // A share smaller than one atomic unit of the token (6 decimals): 1e-12 % of 5000 tokens.
    const dust = await sell(agent.id, pos.id, { percent: 1e-12 });
    expect(dust.status).toBe(400);
    expect(dust.body.error).toContain("less than the smallest unit of the token");
    // Nothing was sold by any of them.
    expect(t.tokenBalance(agent.id)).toBe("5000");
    expect(t.count("agent_transactions", "agent_id = ? AND transaction_type = 'SELL'", agent.id)).toBe(0);

    expect((await sell(agent.id, pos.id, { percent: 100 })).status).toBe(200);
    expect(await sell(agent.id, pos.id, { percent: 25 })).toMatchObject({
      status: 409,
      body: { error: "Position is already closed" },
    });
    expect((await sell(agent.id, pos.id, { percent: 100 })).status).toBe(409);
    // A signals-only API key may not sell.
    const byKey = await t.ctx.request("POST", `/api/v1/agent-positions/${agent.id}/${pos.id}/sell`, {
      apiKey: t.apiKey,
      body: { percent: 25 },
    });
    expect(byKey.status).toBe(403);
  });

  test("concurrent requests never sell more than the position holds", async () => {
    t = await startTrading();
    const { agent, pos } = await openOne();
    // Two halves at once: one after the other under the position's lock, each half of what is left.
    const halves = await Promise.all([
      sell(agent.id, pos.id, { percent: 50 }),
      sell(agent.id, pos.id, { percent: 50 }),
    ]);
    expect(halves.map((r) => r.status)).toEqual([200, 200]);
    expect(halves.map((r) => r.body.tokensSold).sort()).toEqual(["1250", "2500"]);
    expect(t.tokenBalance(agent.id)).toBe("1250");
    const [p] = await t.positions(agent.id);
    expect(p.takeProfit.remainingAmount).toBe(1250);

    // Two closes and a part at once: one close sells everything; the others find it closed.
    const all = await Promise.all([
      sell(agent.id, pos.id, { percent: 100 }),
      sell(agent.id, pos.id, { percent: 100 }),
      sell(agent.id, pos.id, { percent: 25 }),
    ]);
    const statuses = all.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 409).length).toBeGreaterThanOrEqual(1);
    expect(all.filter((r) => r.status === 200 && r.body.closed).length).toBe(1);
    expect(all.every((r) => r.status === 200 || r.body.error === "Position is already closed")).toBe(true);
    expect(t.tokenBalance(agent.id)).toBe("0");
    const sold = (await txs(agent.id))
      .filter((r) => r.transactionType === "SELL")
      .reduce((a, r) => a.plus(r.inputAmount), new Big(0));
    expect(sold.toString()).toBe("5000");
    expect(ledgerSum(await txs(agent.id))).toBe(t.solBalance(agent.id));
  });
});
