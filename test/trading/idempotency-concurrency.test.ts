import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { SOL_MINT } from "../../src/money.ts";
import { json } from "../helpers/context.ts";
import { MINT, startTrading, type TradingContext } from "../helpers/trading.ts";
import { until } from "../helpers/until.ts";

// Idempotency and concurrency (PRODUCT.md §4; issue 5 acceptance): a signal opens at most one
// position per agent, ever — replayed processing, a crash between steps, concurrent identical
// posts with one Idempotency-Key — and a position is sold once when a close races a stop-loss.

let t: TradingContext;
beforeEach(async () => {
  t = await startTrading();
});
afterEach(() => t.close());

const processor = () => t.ctx.services.trading.processor;
const tick = () => t.ctx.services.trading.monitor.tick();
/** Buy quotes only (SOL in): a buy's screening also asks a reverse quote (issue 15, requireSellable). */
const buyQuotes = () => t.fake.requestsTo("jupiter.build").filter((r) => r.query.get("inputMint") === SOL_MINT);
const setStatus = (signalId: number, status: string) =>
  t.ctx.database.sqlite.query("UPDATE trading_signals SET processing_status = ? WHERE id = ?").run(status, signalId);
const statusOf = (signalId: number) =>
  t.ctx.database.sqlite
    .query<{ s: string }, [number]>("SELECT processing_status AS s FROM trading_signals WHERE id = ?")
    .get(signalId)!.s;
const outcomes = (signalId: number) =>
  t.ctx.database.sqlite
    .query<{ agent_id: string; outcome: string }, [number]>(
      "SELECT agent_id, outcome FROM signal_evaluations WHERE signal_id = ? ORDER BY agent_id",
    )
    .all(signalId);

// Agents of one test buy different sizes (5 %, 6 %, 7 % of 10 SOL): identical requests of one
// signal share one quote, so distinct sizes keep the quote count equal to the swap count.
const PERCENT_BY_NAME: Record<string, number> = { a: 5, b: 6, c: 7 };
const percentOf = new Map<string, number>();

/** Everything one agent's buy leaves behind; all must stay at one. */
function expectOneTrade(agentId: string, signalId: number) {
  const pct = percentOf.get(agentId) ?? 5;
  // pct % of 10 SOL swapped, plus 0.000105 SOL fees and 0.00203928 of token account rent (issue 15);
  // tokens at $100/SOL and $0.01/token.
  const expectedSol = { 5: "9.49785572", 6: "9.39785572", 7: "9.29785572" }[pct];
  const expectedTokens = { 5: "5000", 6: "6000", 7: "7000" }[pct];
  expect(t.count("positions", "agent_id = ?", agentId)).toBe(1);
  expect(t.count("agent_transactions", "agent_id = ? AND signal_id = ?", agentId, signalId)).toBe(1);
  expect(t.count("trade_idempotency", "agent_id = ? AND signal_id = ?", agentId, signalId)).toBe(1);
  expect(t.count("balance_snapshots", "agent_id = ? AND reason = 'trade'", agentId)).toBe(1);
  expect(t.solBalance(agentId)).toBe(expectedSol as string);
  expect(t.tokenBalance(agentId)).toBe(expectedTokens as string);
}

async function createAgentNamed(name: "a" | "b" | "c") {
  const pct = PERCENT_BY_NAME[name] as number;
  const agent = await t.createAgent({
    name,
    ...(pct !== 5 ? { config: { positionSizing: { percentage: pct } } } : {}),
  });
  percentOf.set(agent.id, pct);
  return agent;
}

describe("processing the same signal again", () => {
  test("after it completed: nothing more happens", async () => {
    const a = await createAgentNamed("a");
    const b = await createAgentNamed("b");
    const signal = await t.postSignal();
    await t.settle();
    const quotes = buyQuotes().length;
    // One quote for both same-size buys of the signal (src/trading/signal-quotes.ts).
    expect(quotes).toBe(1);
    await processor().process(signal.id);
    await processor().process(signal.id);
    expectOneTrade(a.id, signal.id);
    expectOneTrade(b.id, signal.id);
    expect(buyQuotes().length).toBe(quotes);
    expect(statusOf(signal.id)).toBe("processed");
  });

  test("a crash after the trades, before the signal was marked processed: the retry trades nothing", async () => {
    const a = await createAgentNamed("a");
    const b = await createAgentNamed("b");
    const signal = await t.postSignal();
    await t.settle();
    // The crash left the row 'processing' and no evaluations written.
    setStatus(signal.id, "processing");
    t.ctx.database.sqlite.query("DELETE FROM signal_evaluations WHERE signal_id = ?").run(signal.id);
    const quotes = buyQuotes().length;
    await processor().process(signal.id);
    expectOneTrade(a.id, signal.id);
    expectOneTrade(b.id, signal.id);
    // No swap was even quoted: the trade key is checked before the swap.
    expect(buyQuotes().length).toBe(quotes);
    expect(statusOf(signal.id)).toBe("processed");
    expect(outcomes(signal.id).map((o) => o.outcome)).toEqual(["traded", "traded"]);
  });

  test("a crash half-way (one agent traded, the other not yet): the retry trades only the missing one", async () => {
    const a = await createAgentNamed("a");
    const b = await createAgentNamed("b");
    const signal = await t.postSignal();
    await t.settle();
    // Undo b's trade as if the process died before it: b's ledger back to 10 SOL, no records.
    const db = t.ctx.database.sqlite;
    db.transaction(() => {
      db.query("DELETE FROM trade_idempotency WHERE agent_id = ?").run(b.id);
      db.query("DELETE FROM positions WHERE agent_id = ?").run(b.id);
      db.query("DELETE FROM agent_transactions WHERE agent_id = ?").run(b.id);
      db.query("DELETE FROM balance_snapshots WHERE agent_id = ?").run(b.id);
      db.query("DELETE FROM agent_balances WHERE agent_id = ? AND token_address = ?").run(b.id, MINT);
      db.query("UPDATE agent_balances SET balance = '10' WHERE agent_id = ?").run(b.id);
      db.query("DELETE FROM signal_evaluations WHERE signal_id = ?").run(signal.id);
    })();
    setStatus(signal.id, "processing");
    await processor().process(signal.id);
    expectOneTrade(a.id, signal.id);
    expectOneTrade(b.id, signal.id);
    // The first run's shared quote, then b's own on the retry; a does not quote again.
    expect(buyQuotes().length).toBe(2);
  });

  test("a crash before processing started ('pending' again) and a restart: recovery trades once", async () => {
    const a = await t.createAgent();
    const signal = await t.postSignal();
    await t.settle();
    setStatus(signal.id, "pending");
    const ctx2 = await t.ctx.restart();
    try {
      await ctx2.services.start();
      await ctx2.services.signalQueue.idle();
      const n = (sql: string, ...p: Array<string | number>) =>
        ctx2.database.sqlite.query<{ n: number }, Array<string | number>>(sql).get(...p)!.n;
      expect(n("SELECT count(*) AS n FROM positions WHERE agent_id = ?", a.id)).toBe(1);
      expect(n("SELECT count(*) AS n FROM agent_transactions WHERE agent_id = ?", a.id)).toBe(1);
      expect(
        n("SELECT count(*) AS n FROM trading_signals WHERE id = ? AND processing_status = 'processed'", signal.id),
      ).toBe(1);
    } finally {
      await ctx2.close();
    }
  });

  test("two concurrent runs of one signal trade once per agent", async () => {
    const a = await createAgentNamed("a");
    const b = await createAgentNamed("b");
    // Stored but not yet run: take the queue out of the picture by processing a fresh row directly.
    const signal = await t.postSignal();
    await t.settle();
    const db = t.ctx.database.sqlite;
    db.transaction(() => {
      for (const table of [
        "trade_idempotency",
        "positions",
        "agent_transactions",
        "balance_snapshots",
        "signal_evaluations",
      ])
        db.query(`DELETE FROM ${table}`).run();
      db.query("DELETE FROM agent_balances WHERE token_address = ?").run(MINT);
      db.query("UPDATE agent_balances SET balance = '10'").run();
    })();
    setStatus(signal.id, "pending");
    const before = buyQuotes().length;
    await Promise.all([processor().process(signal.id), processor().process(signal.id), processor().process(signal.id)]);
    expectOneTrade(a.id, signal.id);
    expectOneTrade(b.id, signal.id);
    // One run swaps: a second concurrent run must not swap (a live swap cannot be undone). The
    // run's two same-size simulated buys share one quote.
    expect(buyQuotes().length - before).toBe(1);
    expect(outcomes(signal.id).map((o) => o.outcome)).toEqual(["traded", "traded"]);
  });
});

describe("exit signals processed again", () => {
  test("a replayed exit signal does not close the position a later buy opened", async () => {
    const agent = await t.createAgent();
    await t.postSignal();
    await t.settle();
    const exit = await t.postSignal({ signalType: "exit" });
    await t.settle();
    expect(t.count("historical_swaps", "agent_id = ?", agent.id)).toBe(1);
    // A new position on the same token, then the exit signal runs again after a "crash".
    await t.postSignal({ signalStrength: 5 });
    await t.settle();
    expect(t.count("positions", "agent_id = ? AND status = 'open'", agent.id)).toBe(1);
    setStatus(exit.id, "processing");
    await processor().process(exit.id);
    expect(t.count("positions", "agent_id = ? AND status = 'open'", agent.id)).toBe(1);
    expect(t.count("agent_transactions", "agent_id = ? AND transaction_type = 'SELL'", agent.id)).toBe(1);
    expect(t.count("historical_swaps", "agent_id = ?", agent.id)).toBe(1);
    expect(outcomes(exit.id).map((o) => o.outcome)).toEqual(["closed"]);
  });
});

describe("20 concurrent identical posts with one Idempotency-Key", () => {
  test("one signal, one trade per agent; every response is the same signal with 201", async () => {
    const agents = [await createAgentNamed("a"), await createAgentNamed("b"), await createAgentNamed("c")];
    const body = { tokenAddress: MINT, symbol: "BONK", signalType: "buy", signalStrength: 4 };
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        t.ctx.request("POST", "/api/v1/trading-signals", {
          apiKey: t.apiKey,
          body,
          headers: { "idempotency-key": "burst-1" },
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    const bodies = await Promise.all(responses.map((r) => json(r)));
    const ids = new Set(bodies.map((b) => b.id));
    expect(ids.size).toBe(1);
    await t.settle();
    const id = [...ids][0] as number;
    expect(t.count("trading_signals")).toBe(1);
    for (const a of agents) expectOneTrade(a.id, id);
    expect(t.count("positions")).toBe(3);
    expect(buyQuotes().length).toBe(1);
    // Only the first was counted as received.
    expect(t.ctx.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === "signal received").length).toBe(1);
  });
});

describe("a close racing a stop-loss", () => {
  async function setup() {
    const agent = await t.createAgent();
    await t.postSignal();
    await t.settle();
    const [pos] = await t.positions(agent.id);
    // Stop price 0.0001 × 0.75 = 0.000075 SOL ($0.0075): $0.007 triggers it.
    t.fake.setToken(MINT, { priceUsd: "0.007" });
    // The next quote (whoever sells first) answers 50 ms late, so the two overlap.
    t.fake.inject("jupiter.build", { delayMs: 50 });
    return { agent, pos };
  }

  function expectOneSale(agentId: string, positionId: string, closeReason: string) {
    expect(t.count("agent_transactions", "agent_id = ? AND transaction_type = 'SELL'", agentId)).toBe(1);
    expect(t.count("historical_swaps", "position_id = ?", positionId)).toBe(1);
    const swap = t.ctx.database.sqlite
      .query<{ close_reason: string }, [string]>("SELECT close_reason FROM historical_swaps WHERE position_id = ?")
      .get(positionId)!;
    expect(swap.close_reason).toBe(closeReason);
    // 5000 tokens sold once for 0.35 SOL: 9.49785572 + 0.349895 + the rent returned 0.00203928
    // less the 0.000005 fee of closing the account.
    expect(t.solBalance(agentId)).toBe("9.849785");
    expect(t.tokenBalance(agentId)).toBe("0");
    expect(t.ctx.services.trading.locks.size).toBe(0);
  }

  test("started together: exactly one SELL and one historical swap; the loser gets 404 or does nothing", async () => {
    const { agent, pos } = await setup();
    const [res, report] = await Promise.all([
      t.ctx.request("POST", `/api/v1/agent-positions/${agent.id}/${pos.id}/close`, { token: t.token }),
      tick(),
    ]);
    if (res.status === 200) {
      expect(report).toMatchObject({ actions: 1, closed: 0 });
      expectOneSale(agent.id, pos.id, "manual");
    } else {
      expect({ status: res.status, body: await json(res) }).toMatchObject({
        status: 404,
        body: { error: "Position not found" },
      });
      expect(report).toMatchObject({ actions: 1, closed: 1 });
      expectOneSale(agent.id, pos.id, "stop_loss");
    }
  });

  test("the close sells first: the monitor's tick finds the position gone", async () => {
    const { agent, pos } = await setup();
    const closing = t.ctx.request("POST", `/api/v1/agent-positions/${pos.id}/close`, { token: t.token });
    await until(() => t.fake.requestsTo("jupiter.build").length === 3, "the close's quote"); // buy, its screening's reverse quote, the sale
    const report = await tick();
    const res = await closing;
    expect(res.status).toBe(200);
    expect(report).toMatchObject({ positions: 1, actions: 1, closed: 0, failed: 0 });
    expectOneSale(agent.id, pos.id, "manual");
  });

  test("the stop-loss sells first: the close answers 404 Position not found", async () => {
    const { agent, pos } = await setup();
    const ticking = tick();
    await until(() => t.fake.requestsTo("jupiter.build").length === 3, "the stop-loss quote");
    const res = await t.ctx.request("POST", `/api/v1/agent-positions/${agent.id}/${pos.id}/close`, {
      token: t.token,
      body: { reason: "manual" },
    });
    expect({ status: res.status, body: await json(res) }).toMatchObject({
      status: 404,
      body: { error: "Position not found" },
    });
    expect(await ticking).toMatchObject({ actions: 1, closed: 1 });
    expectOneSale(agent.id, pos.id, "stop_loss");
  });

  test("two closes at once: one 200, one 404", async () => {
    const { agent, pos } = await setup();
    const responses = await Promise.all([
      t.ctx.request("POST", `/api/v1/agent-positions/${pos.id}/close`, { token: t.token }),
      t.ctx.request("POST", `/api/v1/agent-positions/${agent.id}/${pos.id}/close`, { token: t.token }),
    ]);
    expect(responses.map((r) => r.status).sort()).toEqual([200, 404]);
    expectOneSale(agent.id, pos.id, "manual");
  });
});
