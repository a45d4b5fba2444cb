import { afterEach, expect, test } from "bun:test";
import { json } from "../helpers/context.ts";
import { MINT, MINT2, startTrading, type TradingContext } from "../helpers/trading.ts";
import { drained } from "../helpers/until.ts";

// Issue 35 (docs/decisions/under-load.md): the signal queue knows its lag, says when it is behind,
// and what it refuses or decides late. The queue is held behind a decision whose market data the
// fake market holds (fake.hold), so the backlog is there for as long as the test wants, and the
// injected clock makes it old: no sleeps. A buy held at its swap quote is a trade in flight
// instead: the signals behind it wait for the trade, not for a decision, and are judged stale when
// their turn comes (issue 41; test/live/slow-landing.test.ts for a live buy slow to land).

let t: TradingContext;
afterEach(() => t.close());

const LIMIT = 2;

async function health() {
  const res = await t.ctx.request("GET", "/api/v1/health");
  return { status: res.status, body: await json(res) };
}

async function metric(name: string): Promise<number> {
  const text = await (await t.ctx.request("GET", "/metrics")).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return Number(line?.split(" ")[1]);
}

/** An automated agent whose first buy waits at the quote (its trade in flight) until `release()`. */
async function heldBurst(extra = 0) {
  const agent = await t.createAgent();
  const quote = t.fake.hold("jupiter.build");
  const first = await t.postSignal();
  await quote.reached;
  const more: number[] = [];
  for (let i = 0; i < extra; i++) more.push((await t.postSignal({ signalStrength: 5 })).id);
  return { agent, quote, first, more };
}

/**
 * An automated agent with a liquidity filter whose first decision waits for market data until
 * `release()`; `extra` more signals wait for its turn, undecided. Returns once all are handed over.
 */
async function heldDecisions(extra: number) {
  await t.createAgent({ config: { filters: { minLiquidity: 100_000 } } });
  const market = t.fake.hold("dexscreener.tokens");
  await t.postSignal();
  await market.reached;
  for (let i = 0; i < extra; i++) await t.postSignal({ signalStrength: 5 });
  await drained(); // the queue hands the last one over
  return market;
}

test("lag: the age of the oldest undecided signal, in /health and /metrics; degraded above SIGNAL_QUEUE_MAX_LAG_SECONDS", async () => {
  t = await startTrading({ env: { SIGNAL_QUEUE_MAX_LAG_SECONDS: String(LIMIT) } });
  let h = await health();
  expect(h.body.services.queue).toMatchObject({ status: "healthy", depth: 0, lagSeconds: 0 });

  const quote = await heldDecisions(3);
  t.ctx.clock.advance(1_500);
  h = await health();
  expect(h.body.services.queue).toMatchObject({ status: "healthy", depth: 4, lagSeconds: 1.5 });
  expect(await metric("signal_queue_lag_seconds")).toBe(1.5);

  t.ctx.clock.advance(1_000);
  h = await health();
  expect(h.status).toBe(200);
  expect(h.body.status).toBe("degraded");
  expect(h.body.services.queue).toMatchObject({
    status: "degraded",
    depth: 4,
    lagSeconds: 2.5,
    message: "Signals wait 2.5 s to be decided (limit 2 s)",
  });
  expect(await metric("signal_queue_lag_seconds")).toBe(2.5);

  quote.release();
  await t.settle();
  h = await health();
  expect(h.body.status).toBe("healthy");
  expect(h.body.services.queue).toMatchObject({ status: "healthy", depth: 0, lagSeconds: 0 });
  expect(await metric("signal_queue_lag_seconds")).toBe(0);
  expect(t.count("trading_signals", "processing_status = 'processed'")).toBe(4);
  expect(t.count("positions", "token_address = ?", MINT)).toBe(1);
});

test("backpressure: while the lag is above the limit, POST /trading-signals and the import answer 503 with Retry-After and store nothing", async () => {
  t = await startTrading({ env: { SIGNAL_QUEUE_MAX_LAG_SECONDS: String(LIMIT) } });
  const quote = await heldDecisions(2);
  t.ctx.clock.advance(5_200); // lag 5.2 s, 3.2 s over the limit
  const stored = t.count("trading_signals");

  const res = await t.ctx.request("POST", "/api/v1/trading-signals", {
    apiKey: t.apiKey,
    headers: { "idempotency-key": "while-behind" },
    body: { tokenAddress: MINT, symbol: "BONK", signalType: "buy", signalStrength: 4 },
  });
  expect(res.status).toBe(503);
  expect(res.headers.get("retry-after")).toBe("4");
  expect(await json(res)).toEqual({
    success: false,
    error: "Signal processing is behind (signals wait 5 s to be decided, limit 2 s); retry after 4 s",
    code: "SERVICE_UNAVAILABLE",
    retryAfter: 4,
  });
  const csv =
    "createdAt,tokenAddress,symbol,signalType,signalStrength,activationReason,source\r\n2025-12-31T00:00:00.000Z,So11111111111111111111111111111111111111112,SOL,buy,3,,import\r\n";
  const imp = await t.ctx.request("POST", "/api/v1/trading-signals/import", {
    token: t.token,
    rawBody: csv,
    headers: { "content-type": "text/csv" },
  });
  expect(imp.status).toBe(503);
  expect(imp.headers.get("retry-after")).toBe("4");
  expect(t.count("trading_signals")).toBe(stored);

  quote.release();
  await t.settle();
  // The same Idempotency-Key is free: the refused request stored nothing under it.
  const later = await t.ctx.request("POST", "/api/v1/trading-signals", {
    apiKey: t.apiKey,
    headers: { "idempotency-key": "while-behind" },
    body: { tokenAddress: MINT, symbol: "BONK", signalType: "sell", signalStrength: 4 },
  });
  expect(later.status).toBe(201);
  const again = await t.ctx.request("POST", "/api/v1/trading-signals/import", {
    token: t.token,
    rawBody: csv,
    headers: { "content-type": "text/csv" },
  });
  expect(again.status).toBe(201);
  expect(t.count("trading_signals")).toBe(stored + 2);
});

const MAX_AGE = 30;

async function evaluationsOf(signalId: number, ctx = t.ctx) {
  const res = await ctx.request("GET", `/api/v1/trading-signals/${signalId}`, { token: t.token });
  return (await json(res)).processing.evaluations as Array<Record<string, unknown>>;
}

test("no stale trades: a buy decided more than SIGNAL_MAX_AGE_SECONDS after it arrived opens nothing and says stale with its age; an exit signal still closes", async () => {
  t = await startTrading({ env: { SIGNAL_MAX_AGE_SECONDS: String(MAX_AGE), SIGNAL_QUEUE_MAX_LAG_SECONDS: "3600" } });
  t.fake.setToken(MINT2, { liquidityUsd: 250_000, marketCapUsd: 3_000_000 });
  const { agent, quote, first } = await heldBurst();
  const late = await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" }); // waits for the agent's turn
  t.ctx.clock.advance((MAX_AGE + 1.5) * 1000);
  quote.release();
  await t.settle();

  expect(await evaluationsOf(first.id)).toMatchObject([{ agentId: agent.id, outcome: "traded" }]);
  expect(await evaluationsOf(late.id)).toMatchObject([
    {
      agentId: agent.id,
      outcome: "stale",
      rule: null,
      reason: "Signal was 31.5 s old when decided (limit 30 s); a late buy opens nothing",
      positionId: null,
    },
  ]);
  expect(t.count("positions", "agent_id = ? AND token_address = ?", agent.id, MINT2)).toBe(0);

  // An exit signal that waited as long still acts: the MINT position closes.
  const hold = t.fake.hold("jupiter.build");
  await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" }); // a fresh buy, held at its quote
  await hold.reached;
  const exit = await t.postSignal({ signalType: "sell" });
  t.ctx.clock.advance((MAX_AGE + 10) * 1000);
  hold.release();
  await t.settle();
  expect(await evaluationsOf(exit.id)).toMatchObject([{ agentId: agent.id, outcome: "traded" }]);
  expect(t.count("positions", "agent_id = ? AND token_address = ? AND status = 'closed'", agent.id, MINT)).toBe(1);
});

test("a restart with a backlog decides every accepted signal exactly once (none expires, the late buys are stale)", async () => {
  t = await startTrading({ env: { SIGNAL_MAX_AGE_SECONDS: String(MAX_AGE), SIGNAL_QUEUE_MAX_LAG_SECONDS: "3600" } });
  const manual = await t.createAgent({ automated: false });
  const { agent, quote, first, more } = await heldBurst(23); // 16 run at once; the rest wait in memory
  const accepted = [first.id, ...more];
  t.ctx.clock.advance((MAX_AGE + 10) * 1000);
  const restarting = t.ctx.restart();
  quote.release();
  const restarted = await restarting;
  try {
    await restarted.services.signalQueue.idle();
    const db = restarted.database.sqlite;
    const statuses = db
      .query<{ id: number; s: string }, []>("SELECT id, processing_status AS s FROM trading_signals ORDER BY id")
      .all();
    expect(statuses.map((r) => r.id)).toEqual(accepted);
    expect(statuses.every((r) => r.s === "processed")).toBe(true);
    const rows = db
      .query<{ signal_id: number; agent_id: string; outcome: string }, []>(
        "SELECT signal_id, agent_id, outcome FROM signal_evaluations ORDER BY signal_id",
      )
      .all();
    expect(rows.length).toBe(accepted.length * 2);
    for (const id of accepted) {
      const mine = rows.filter((r) => r.signal_id === id);
      expect(mine.map((r) => r.agent_id).sort()).toEqual([agent.id, manual.id].sort());
      const auto = mine.find((r) => r.agent_id === agent.id)!.outcome;
      expect(auto).toBe(id === first.id ? "traded" : "stale");
    }
    expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM positions").get()!.n).toBe(1);
    expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM trade_idempotency").get()!.n).toBe(1);
  } finally {
    await restarted.close();
  }
});
