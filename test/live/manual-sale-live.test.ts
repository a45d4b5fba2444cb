import { describe, expect, test } from "bun:test";
import { json } from "../helpers/context.ts";
import { type LiveContext, livePerTest, MINT } from "./live-context.ts";

// The sell buttons in live mode (issue 44 item 5): a share of a position is sold on chain through
// the exit path, journaled BEFORE it is sent under its own intent (manual_sale, keyed by the
// request's manual signal, never by a take-profit level), recorded from the chain's amounts. A
// sale whose outcome is unknown is never sent again, across a restart; the reconciler books it.
// Numbers (live-context.ts): the wallet holds 2 SOL; 0.1 SOL buys 1000 BONK at 0.0001 SOL; every
// swap pays 0.000055 SOL of fees; the fake aggregator sells at the same price.

let l: LiveContext;
livePerTest((c) => {
  l = c;
});

const sell = (agentId: string, positionId: string, percent: number) =>
  l.request("POST", `/api/v1/agent-positions/${agentId}/${positionId}/sell`, { percent });
const journalRows = () =>
  l.ctx.database.sqlite
    .query<{ signature: string; status: string; intent: string | null; side: string }, []>(
      "SELECT signature, status, intent, side FROM live_trades ORDER BY rowid",
    )
    .all();

async function openLive() {
  const agent = await l.liveAgent();
  await l.postSignal();
  await l.settle();
  const [pos] = await json(await l.request("GET", `/api/v1/agent-positions/${agent.id}`));
  expect(pos.purchase.amount).toBe(1000);
  expect(l.balance(agent.id)).toBe("1.899945");
  return { agent, pos };
}

describe("a live share of a position", () => {
  test("sold on chain, journaled as a manual sale, recorded from the chain's amounts", async () => {
    const { agent, pos } = await openLive();
    // The operator's own decision, as the manual close: the agent's live automation may be off.
    expect((await l.request("PUT", `/api/v1/agents/${agent.id}`, { automatedTradingLive: false })).status).toBe(200);
    const res = await sell(agent.id, pos.id, 25);
    expect(res.status).toBe(200);
    const body = await json(res);
    const sent = l.rpc.sentTransactions();
    expect(sent.length).toBe(2);
    expect(body).toMatchObject({
      closed: false,
      tokensSold: "250",
      proceedsSol: "0.025",
      remainingAmount: "750",
      // 0.025 − 0.000055 less a quarter of the 0.100055 cost.
      realizedProfitSol: "-0.00006875",
      transactionHash: sent[1]!.signature,
    });
    // The journal row of the sale names what it was for: this request's manual signal.
    const row = journalRows().find((r) => r.signature === sent[1]!.signature)!;
    expect(row.status).toBe("confirmed");
    expect(JSON.parse(row.intent!)).toEqual({
      kind: "manual_sale",
      positionId: pos.id,
      signalId: body.signalId,
      percent: "25",
    });
    expect(l.balance(agent.id)).toBe("1.92489");
    expect(l.balance(agent.id, MINT)).toBe("750");
    const [p] = await json(await l.request("GET", `/api/v1/agent-positions/${agent.id}`));
    expect(p.takeProfit).toMatchObject({ remainingAmount: 750, levelsHit: 0 });
    const tx = await json(await l.request("GET", `/api/v1/agent-transactions/${body.transactionId}`));
    expect(tx).toMatchObject({
      transactionType: "SELL",
      inputAmount: "250",
      outputAmount: "0.025",
      fees: "0.000055",
      isTakeProfit: false,
      signalId: body.signalId,
      status: "confirmed",
      tradingMode: "live",
    });
  });

  test("outcome unknown, then a restart: refused while in doubt, never re-sent, booked once the chain speaks", async () => {
    const { agent, pos } = await openLive();
    l.rpc.landNext({ kind: "hold" });
    const res = await sell(agent.id, pos.id, 50);
    expect(res.status).toBe(502);
    expect((await json(res)).details).toMatchObject({ status: "pending" });
    const sale = l.rpc.sentTransactions()[1]!;
    expect(JSON.parse(journalRows().find((r) => r.signature === sale.signature)!.intent!)).toMatchObject({
      kind: "manual_sale",
      positionId: pos.id,
      percent: "50",
    });

    // As if the process died after sending, before recording anything but the write-ahead row.
    const db = l.ctx.database.sqlite;
    db.query("DELETE FROM agent_transactions WHERE transaction_type = 'SELL'").run();
    db.query("DELETE FROM trade_idempotency WHERE action = 'SELL'").run();
    db.query("UPDATE live_trades SET status = 'sending', transaction_id = NULL WHERE signature = ?").run(
      sale.signature,
    );
    l.ctx = await l.ctx.restart();

    // The operator presses again: refused while the first sale is in doubt; nothing is sent.
    const again = await sell(agent.id, pos.id, 50);
    expect(again.status).toBe(409);
    expect((await json(again)).error).toBe(
      "A live trade of this token is still awaiting confirmation; it will be reconciled from the chain before another is sent",
    );
    await l.tick();
    expect(l.rpc.sentTransactions().length).toBe(2);
    expect(l.balance(agent.id, MINT)).toBe("1000");

    // The chain confirms it: the reconciler books the manual sale from the chain's amounts.
    const sends = l.rpc.callsOf("sendTransaction").length;
    l.rpc.land(sale.signature);
    await l.tick();
    expect(l.rpc.callsOf("sendTransaction").length).toBe(sends);
    expect(l.rpc.sentTransactions().length).toBe(2);
    expect(journalRows().find((r) => r.signature === sale.signature)!.status).toBe("confirmed");
    const [p] = await json(await l.request("GET", `/api/v1/agent-positions/${agent.id}`));
    expect(p.takeProfit).toMatchObject({ remainingAmount: 500, levelsHit: 0 });
    expect(l.balance(agent.id, MINT)).toBe("500");
    // 1.899945 + 0.05 − 0.000055.
    expect(l.balance(agent.id)).toBe("1.94989");
    const sells = l.ctx.database.sqlite
      .query<{ input_amount: string; is_take_profit: number; status: string }, []>(
        "SELECT input_amount, is_take_profit, status FROM agent_transactions WHERE transaction_type = 'SELL'",
      )
      .all();
    expect(sells).toEqual([{ input_amount: "500", is_take_profit: 0, status: "confirmed" }]);
    // Booked once: another tick changes nothing.
    await l.tick();
    expect(l.count("agent_transactions", "transaction_type = 'SELL'")).toBe(1);
  });
});
