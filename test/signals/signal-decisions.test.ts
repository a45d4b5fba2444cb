import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createApiKey, createUser, json } from "../helpers/context.ts";
import { MINT, MINT2, startTrading, type TradingContext } from "../helpers/trading.ts";

// Issue 13 item 4: GET /trading-signals/:id says what each of the owner's agents made of the
// signal (traded with its position and transaction, ineligible with the rule and reason, failed
// with the reason), and the list adds the same with include=processing. The trades run against the
// fake market; the failing agent's quote size is one the fake aggregator answers with a 500.

let t: TradingContext;
beforeEach(async () => {
  t = await startTrading();
});
afterEach(() => t.close());

const fixed = (sol: number) => ({ positionSizing: { type: "fixed", fixedAmountSol: sol } });

async function threeAgentsOneSignal() {
  const trader = await t.createAgent({ name: "trader", config: fixed(1) });
  const picky = await t.createAgent({ name: "picky", config: { filters: { allowedTokens: [MINT2] } } });
  // All 10 SOL: eligible (balance = trade size), but the swap's fees cannot be paid on top, so the
  // trade fails in execution (one quote serves the signal's agents, so a quote failure would fail
  // them all alike).
  // Its 10 SOL buy must reach the swap to fail there: simulation's default 5 SOL exposure limit
  // would refuse it first (rule risk_limit), so this account lifts it.
  const lifted = await t.ctx.request("PUT", "/api/v1/risk-limits", {
    token: t.token,
    body: { simulation: { maxExposureSol: null } },
  });
  expect(lifted.status).toBe(200);
  const unlucky = await t.createAgent({ name: "unlucky", config: fixed(10) });
  // Another user's automated agent: it never evaluates this user's signal, and never appears.
  const other = await createUser(t.ctx);
  const stranger = await t.createAgent({ name: "stranger", token: other.token });
  const signal = await t.postSignal();
  await t.settle();
  return { trader, picky, unlucky, stranger, other, signal };
}

describe("signal decisions", () => {
  test("GET /trading-signals/:id: traded (position, transaction), ineligible (rule, reason), failed (reason)", async () => {
    const { trader, picky, unlucky, stranger, signal } = await threeAgentsOneSignal();
    const res = await t.ctx.request("GET", `/api/v1/trading-signals/${signal.id}`, { token: t.token });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.id).toBe(signal.id);
    expect(body.tokenAddress).toBe(MINT);
    expect(body.processing.status).toBe("done");
    const byAgent = new Map<string, any>(body.processing.evaluations.map((e: any) => [e.agentId, e]));
    expect([...byAgent.keys()].sort()).toEqual([trader.id, picky.id, unlucky.id].sort());
    expect(byAgent.has(stranger.id)).toBe(false);

    const [position] = await t.positions(trader.id);
    const buy = t.ctx.database.sqlite
      .query<{ id: string }, [string, number]>(
        "SELECT id FROM agent_transactions WHERE agent_id = ? AND signal_id = ? AND transaction_type = 'BUY'",
      )
      .get(trader.id, signal.id);
    expect(byAgent.get(trader.id)).toEqual({
      agentId: trader.id,
      agentName: "trader",
      outcome: "traded",
      rule: null,
      reason: null,
      positionId: position.id,
      transactionId: buy!.id,
      at: expect.any(String),
    });
    expect(byAgent.get(picky.id)).toMatchObject({
      agentName: "picky",
      outcome: "ineligible",
      rule: "allowed_tokens",
      positionId: null,
      transactionId: null,
    });
    expect(byAgent.get(picky.id).reason).toBe(`Token ${MINT} is not in allowedTokens`);
    expect(byAgent.get(unlucky.id)).toMatchObject({
      agentName: "unlucky",
      outcome: "failed",
      rule: null,
      positionId: null,
      transactionId: null,
    });
    expect(byAgent.get(unlucky.id).reason).toBe("Insufficient SOL balance");
    expect(await t.positions(unlucky.id)).toEqual([]);
    // The refused settlement wrote nothing: no token balance row, the SOL untouched.
    expect(t.count("agent_balances", "agent_id = ? AND token_address = ?", unlucky.id, MINT)).toBe(0);
    expect(t.solBalance(unlucky.id)).toBe("10");
    for (const e of body.processing.evaluations) expect(Number.isNaN(Date.parse(e.at))).toBe(false);
  });

  test("an evaluation row naming another user's agent is never shown; another user gets 404", async () => {
    const { stranger, other, signal } = await threeAgentsOneSignal();
    // Should a row ever name an agent that is not the signal owner's, the detail leaves it out.
    t.ctx.database.sqlite
      .query(
        "INSERT INTO signal_evaluations (signal_id, agent_id, eligible, reason, outcome, created_at) VALUES (?, ?, 1, NULL, 'traded', ?)",
      )
      .run(signal.id, stranger.id, new Date().toISOString());
    const body = await json(await t.ctx.request("GET", `/api/v1/trading-signals/${signal.id}`, { token: t.token }));
    expect(body.processing.evaluations.map((e: any) => e.agentName).sort()).toEqual(["picky", "trader", "unlucky"]);
    const theirs = await t.ctx.request("GET", `/api/v1/trading-signals/${signal.id}`, { token: other.token });
    expect(theirs.status).toBe(404);
  });

  test("a signal not processed yet is pending with no evaluations; an expired one says expired", async () => {
    await t.createAgent({ name: "trader", config: fixed(1) });
    const id = (await t.postSignal()).id;
    await t.settle();
    t.ctx.database.sqlite.query("UPDATE trading_signals SET processing_status = 'pending' WHERE id = ?").run(id);
    t.ctx.database.sqlite.query("DELETE FROM signal_evaluations WHERE signal_id = ?").run(id);
    let body = await json(await t.ctx.request("GET", `/api/v1/trading-signals/${id}`, { token: t.token }));
    expect(body.processing).toEqual({ status: "pending", evaluations: [] });
    t.ctx.database.sqlite.query("UPDATE trading_signals SET processing_status = 'expired' WHERE id = ?").run(id);
    body = await json(await t.ctx.request("GET", `/api/v1/trading-signals/${id}`, { token: t.token }));
    expect(body.processing.status).toBe("expired");
  });

  test("the list adds processing only with include=processing, and takes a signals key", async () => {
    const { trader, signal } = await threeAgentsOneSignal();
    const second = await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
    await t.settle();
    const plain = await json(await t.ctx.request("GET", "/api/v1/trading-signals", { token: t.token }));
    expect(plain.map((s: any) => s.id)).toEqual([second.id, signal.id]);
    expect(plain.every((s: any) => !("processing" in s))).toBe(true);

    const key = (await createApiKey(t.ctx, t.token, ["signals"])).key;
    const res = await t.ctx.request("GET", "/api/v1/trading-signals?include=processing", { apiKey: key });
    expect(res.status).toBe(200);
    const withProcessing = await json(res);
    expect(withProcessing.map((s: any) => s.id)).toEqual([second.id, signal.id]);
    const detail = await json(await t.ctx.request("GET", `/api/v1/trading-signals/${signal.id}`, { token: t.token }));
    expect(withProcessing[1].processing).toEqual(detail.processing);
    expect(withProcessing[0].processing.status).toBe("done");
    // The trader holds MINT now; on MINT2 it is the one agent that may trade (picky allows MINT2).
    expect(withProcessing[0].processing.evaluations.map((e: any) => e.agentName).sort()).toEqual([
      "picky",
      "trader",
      "unlucky",
    ]);
    expect(withProcessing[0].processing.evaluations.find((e: any) => e.agentId === trader.id).outcome).toBe("traded");

    const bad = await t.ctx.request("GET", "/api/v1/trading-signals?include=everything", { token: t.token });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error).toBe('include must be "processing"');
  });
});

describe("an owner without agents", () => {
  test("the signal is stored processed in the commit that stores it and never queued; an agent's owner's is queued", async () => {
    const queued: number[] = [];
    const queue = t.ctx.services.signalQueue;
    const enqueue = queue.enqueue.bind(queue);
    queue.enqueue = (id: number) => {
      queued.push(id);
      return enqueue(id);
    };
    const lonely = await createUser(t.ctx);
    const lonelyKey = (await createApiKey(t.ctx, lonely.token, ["signals"])).key;
    const signal = await t.postSignal({}, lonelyKey);
    expect(queued).toEqual([]);
    const row = t.ctx.database.sqlite
      .query<{ status: string; processedAt: string | null; createdAt: string }, [number]>(
        "SELECT processing_status AS status, processed_at AS processedAt, created_at AS createdAt FROM trading_signals WHERE id = ?",
      )
      .get(signal.id);
    expect(row).toEqual({ status: "processed", processedAt: row!.createdAt, createdAt: expect.any(String) });
    const res = await t.ctx.request("GET", `/api/v1/trading-signals/${signal.id}`, { token: lonely.token });
    expect((await json(res)).processing).toEqual({ status: "done", evaluations: [] });

    await t.createAgent({ name: "present" });
    const second = await t.postSignal();
    expect(queued).toEqual([second.id]);
    await t.settle();
    const detail = await json(await t.ctx.request("GET", `/api/v1/trading-signals/${second.id}`, { token: t.token }));
    expect(detail.processing.status).toBe("done");
    expect(detail.processing.evaluations).toHaveLength(1);
  });
});
