import { describe, expect, test } from "bun:test";
import { json } from "../helpers/context.ts";
import { type LiveContext, livePerTest, MINT } from "./live-context.ts";

// Sent but not confirmed in time (PRODUCT.md §5: "a trade whose outcome is unknown is never
// re-sent: it is reconciled from the chain by signature"). The executor gives up after its polls
// (3 here); the trade is recorded as PENDING (agent_transactions.status 'pending', the trade key
// written, no position or balance change); each monitor tick asks the chain about it: confirmed
// → settled from the chain's amounts, failed or expired → marked failed, nothing else changes.

let l: LiveContext;
livePerTest((c) => {
  l = c;
});
const evaluation = (signalId: number, agentId: string) => l.evaluation(signalId, agentId);
const txRows = (agentId: string) =>
  l.ctx.database.sqlite
    .query<Record<string, any>, [string]>(
      "SELECT * FROM agent_transactions WHERE agent_id = ? ORDER BY created_at, rowid",
    )
    .all(agentId);

async function pendingBuy() {
  const agent = await l.liveAgent();
  l.rpc.landNext({ kind: "hold" });
  const signal = await l.postSignal();
  await l.settle();
  const [tx] = l.rpc.sentTransactions();
  expect(tx!.state).toBe("held");
  // Pending: the transaction row and the trade key, nothing else.
  const rows = txRows(agent.id);
  expect(rows.length).toBe(1);
  expect(rows[0]).toMatchObject({
    status: "pending",
    transaction_hash: tx!.signature,
    transaction_type: "BUY",
    input_amount: "0.1",
    output_amount: "1000",
    trading_mode: "live",
  });
  expect(l.count("positions", "agent_id = ?", agent.id)).toBe(0);
  expect(l.balance(agent.id)).toBe("2");
  expect(l.balance(agent.id, MINT)).toBe("none");
  expect(l.count("trade_idempotency", "agent_id = ? AND signal_id = ? AND action = 'BUY'", agent.id, signal.id)).toBe(
    1,
  );
  expect(
    l.count("live_trades", "signature = ? AND status = 'pending' AND transaction_id = ?", tx!.signature, rows[0]!.id),
  ).toBe(1);
  expect(evaluation(signal.id, agent.id)?.outcome).toBe("pending");
  expect(l.logLines().find((x) => x.msg.startsWith("live trade pending"))).toMatchObject({
    agentId: agent.id,
    signalId: signal.id,
    signature: tx!.signature,
    intent: "open",
  });
  return { agent, signal, signature: tx!.signature, txId: rows[0]!.id as string };
}

describe("a buy not confirmed in time", () => {
  test("→ pending → reconciled as success on the next tick; never sent again", async () => {
    const { agent, signal, signature, txId } = await pendingBuy();

    // While in doubt nothing else is sent for the token: another signal is refused, and a tick
    // that finds it still unconfirmed leaves it pending.
    await l.postSignal({ signalStrength: 5 });
    await l.settle();
    expect(
      l
        .logLines()
        .filter((x) => x.msg === "trade failed")
        .at(-1),
    ).toMatchObject({
      agentId: agent.id,
      reason:
        "A live trade of this token is still awaiting confirmation; it will be reconciled from the chain before another is sent",
    });
    const sendsBefore = l.rpc.callsOf("sendTransaction").length;
    await l.tick();
    expect(l.count("live_trades", "status = 'pending'")).toBe(1);

    l.rpc.land(signature);
    const report = await l.tick();
    expect(report.positions).toBe(1); // reconciled before the tick read its positions
    // The executor rebroadcast the same bytes while confirming; nothing was sent after that.
    expect(l.rpc.callsOf("sendTransaction").length).toBe(sendsBefore);
    expect(l.rpc.sentTransactions().length).toBe(1);
    const rows = txRows(agent.id);
    expect(rows.length).toBe(1);
    expect(rows[0]).toMatchObject({
      id: txId,
      status: "confirmed",
      transaction_hash: signature,
      input_amount: "0.1",
      output_amount: "1000",
      fees: "0.000055",
    });
    const [pos] = await json(await l.request("GET", `/api/v1/agent-positions/${agent.id}`));
    expect(pos).toMatchObject({
      tokenAddress: MINT,
      purchase: { amount: 1000, priceNative: 0.0001, transaction: { id: txId, hash: signature } },
    });
    expect(l.balance(agent.id)).toBe("1.899945");
    expect(l.balance(agent.id, MINT)).toBe("1000");
    expect(l.count("live_trades", "signature = ? AND status = 'confirmed'", signature)).toBe(1);
    expect(evaluation(signal.id, agent.id)).toEqual({ outcome: "traded", reason: null });
    expect(l.logLines().find((x) => x.msg === "trade executed")).toMatchObject({
      agentId: agent.id,
      signalId: signal.id,
      mode: "live",
      hash: signature,
      reconciled: true,
    });
    // Settled once: another tick changes nothing.
    await l.tick();
    expect(l.count("positions", "agent_id = ?", agent.id)).toBe(1);
    expect(l.count("balance_snapshots", "agent_id = ? AND reason = 'trade'", agent.id)).toBe(1);
  });

  test("→ pending → blockhash expired → failed; nothing else changes; the token can trade again", async () => {
    const { agent, signal, signature, txId } = await pendingBuy();
    l.rpc.expire();
    await l.tick();
    expect(txRows(agent.id)).toMatchObject([{ id: txId, status: "failed" }]);
    expect(l.count("positions", "agent_id = ?", agent.id)).toBe(0);
    expect(l.balance(agent.id)).toBe("2");
    expect(l.count("live_trades", "signature = ? AND status = 'expired'", signature)).toBe(1);
    expect(evaluation(signal.id, agent.id)).toEqual({
      outcome: "failed",
      reason: "live: transaction expired before it was confirmed (blockhash expired)",
    });
    expect(
      l
        .logLines()
        .filter((x) => x.msg === "trade failed")
        .at(-1),
    ).toMatchObject({
      agentId: agent.id,
      signature,
      mode: "live",
      reason: "transaction expired before it was confirmed (blockhash expired)",
    });
    expect(l.rpc.sentTransactions().length).toBe(1);
    // The transaction list shows nothing as traded; the signal stays used (its key is kept).
    expect(l.count("trade_idempotency", "agent_id = ? AND signal_id = ?", agent.id, signal.id)).toBe(1);
    l.rpc.blockHeight = l.fake.swap.lastValidBlockHeight - 10;
    await l.postSignal({ signalStrength: 5 });
    await l.settle();
    expect(l.count("positions", "agent_id = ? AND status = 'open'", agent.id)).toBe(1);
  });

  test("→ pending → landed with an error → failed; nothing else changes", async () => {
    const { agent, signature, txId } = await pendingBuy();
    l.rpc.failHeld(signature);
    await l.tick();
    expect(txRows(agent.id)).toMatchObject([{ id: txId, status: "failed" }]);
    expect(l.count("positions", "agent_id = ?", agent.id)).toBe(0);
    expect(l.balance(agent.id)).toBe("2");
    expect(l.count("live_trades", "signature = ? AND status = 'failed'", signature)).toBe(1);
    expect(
      l
        .logLines()
        .filter((x) => x.msg === "trade failed")
        .at(-1)?.reason,
    ).toBe('transaction failed on chain: {"InstructionError":[2,{"Custom":6001}]}');
  });

  test("an RPC outage during reconciliation decides nothing; the next tick does", async () => {
    const { agent, signature } = await pendingBuy();
    l.rpc.land(signature);
    l.rpc.failNext("getSignatureStatuses", { status: 503 });
    await l.tick();
    expect(l.count("live_trades", "status = 'pending'")).toBe(1);
    expect(l.logLines().some((x) => x.msg === "live reconciliation skipped: RPC unavailable")).toBe(true);
    await l.tick();
    expect(l.count("positions", "agent_id = ? AND status = 'open'", agent.id)).toBe(1);
  });

  test("sendTransaction's answer lost (HTTP 503): maybe sent, rebroadcast; a proven expiry fails it, nothing new is sent", async () => {
    const agent = await l.liveAgent();
    // The node answers 503 without taking the transaction; the executor cannot know that. The
    // chain holds what it does take: the outcome stays unknown while confirming.
    l.rpc.landNext({ kind: "hold" });
    l.rpc.failNext("sendTransaction", { status: 503, body: "upstream unavailable" });
    await l.postSignal();
    await l.settle();
    expect(l.count("agent_transactions", "agent_id = ? AND status = 'pending'", agent.id)).toBe(1);
    expect(l.logLines().some((x) => x.msg === "send errored; the transaction may have been sent")).toBe(true);
    const sends = l.rpc.callsOf("sendTransaction").map((p) => p[0]);
    expect(new Set(sends).size).toBe(1); // the same signed bytes every round
    l.rpc.expire();
    await l.tick();
    expect(l.count("agent_transactions", "agent_id = ? AND status = 'failed'", agent.id)).toBe(1);
    expect(l.rpc.callsOf("sendTransaction").length).toBe(sends.length);
    expect(l.balance(agent.id)).toBe("2");
  });
});

describe("a sale not confirmed in time", () => {
  test("manual close answers 502 (pending), the monitor leaves the position alone, the reconciler closes it", async () => {
    const agent = await l.liveAgent();
    await l.postSignal();
    await l.settle();
    const [pos] = await json(await l.request("GET", `/api/v1/agent-positions/${agent.id}`));
    l.rpc.landNext({ kind: "hold" });
    const res = await l.request("POST", `/api/v1/agent-positions/${agent.id}/${pos.id}/close`);
    const sale = l.rpc.sentTransactions()[1]!;
    expect(res.status).toBe(502);
    expect(await json(res)).toEqual({
      success: false,
      error: "The swap transaction was sent but is not confirmed yet; it will be reconciled from the chain",
      code: "EXTERNAL_SERVICE_ERROR",
      details: { service: "solanaRpc", signature: sale.signature, status: "pending" },
    });
    expect(l.count("positions", "id = ? AND status = 'open'", pos.id)).toBe(1);
    expect(
      l.count("agent_transactions", "agent_id = ? AND transaction_type = 'SELL' AND status = 'pending'", agent.id),
    ).toBe(1);
    expect(l.balance(agent.id, MINT)).toBe("1000");
    expect(l.logLines().some((x) => x.msg === "trade failed" && x.side === "sell")).toBe(false);

    // A second close while in doubt is refused without sending anything.
    const again = await l.request("POST", `/api/v1/agent-positions/${agent.id}/${pos.id}/close`);
    expect(again.status).toBe(409);
    expect((await json(again)).error).toBe(
      "A live trade of this token is still awaiting confirmation; it will be reconciled from the chain before another is sent",
    );
    // A stop-loss price: the monitor prices the position but does not sell while the sale is in doubt.
    l.fake.setToken(MINT, { priceUsd: "0.007" });
    expect(await l.tick()).toMatchObject({ positions: 1, actions: 0 });
    expect(l.rpc.sentTransactions().length).toBe(2);

    l.fake.setToken(MINT, { priceUsd: "0.01" });
    l.rpc.land(sale.signature);
    expect(await l.tick()).toMatchObject({ positions: 0 });
    const swaps = await json(await l.request("GET", `/api/v1/agent-historical-swaps?agentId=${agent.id}`));
    expect(swaps).toMatchObject([
      { closeReason: "manual", amount: "1000", salePrice: "0.0001", profitLossSol: "-0.00011" },
    ]);
    expect(
      l.count(
        "agent_transactions",
        "agent_id = ? AND transaction_type = 'SELL' AND status = 'confirmed' AND transaction_hash = ?",
        agent.id,
        sale.signature,
      ),
    ).toBe(1);
    expect(l.balance(agent.id)).toBe("1.99989");
    expect(l.balance(agent.id, MINT)).toBe("0");
    expect(l.rpc.sentTransactions().length).toBe(2);
  });
});

describe("a swap the service lost track of (stopped while confirming)", () => {
  test("after a restart the journal's row is resolved by signature and recorded without touching positions", async () => {
    const { agent, signature } = await pendingBuy();
    // As if the process had died between sending and recording: only the write-ahead row is left.
    const db = l.ctx.database.sqlite;
    db.query("DELETE FROM agent_transactions").run();
    db.query("DELETE FROM trade_idempotency").run();
    db.query("UPDATE live_trades SET status = 'sending', intent = NULL, transaction_id = NULL").run();
    l.ctx = await l.ctx.restart();
    l.rpc.land(signature);
    await l.ctx.services.trading.monitor.tick();
    expect(l.count("live_trades", "signature = ? AND status = 'confirmed'", signature)).toBe(1);
    expect(l.count("positions", "agent_id = ?", agent.id)).toBe(0);
    expect(
      l.count(
        "agent_transactions",
        "agent_id = ? AND status = 'confirmed' AND transaction_hash = ?",
        agent.id,
        signature,
      ),
    ).toBe(1);
    expect(l.balance(agent.id, MINT)).toBe("1000");
    expect(l.balance(agent.id)).toBe("1.899945");
    expect(l.ctx.logs.map((x) => JSON.parse(x)).find((x) => x.level === "error")?.msg).toStartWith(
      "live swap landed after the service lost track of it",
    );
  });
});
