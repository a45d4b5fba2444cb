import { afterEach, describe, expect, test } from "bun:test";
import { createApiKey, createUser, json } from "../helpers/context.ts";
import { MINT, MINT2, startTrading, type TradingContext } from "../helpers/trading.ts";

// Idempotency-Key on the manual trades (docs/decisions/operator-experience-v.md "Idempotency-Key
// on the manual trades"): a repeated POST /agents/:id/buy or .../sell with the same key and body
// answers the first request's result and trades nothing again; another body is 409; a request
// the gate refused leaves the key free. SOL at $100, BONK at $0.01: 0.5 SOL buys 5000 BONK.

const IN_PROGRESS = "A request with this Idempotency-Key is still in progress";
const REUSED = "Idempotency-Key was already used with a different request body";

let t: TradingContext;
afterEach(() => t?.close());

const post = async (path: string, body: unknown, key?: string, auth: { token?: string; apiKey?: string } = {}) => {
  const res = await t.ctx.request("POST", `/api/v1${path}`, {
    ...(auth.apiKey ? { apiKey: auth.apiKey } : { token: auth.token ?? t.token }),
    body,
    headers: key ? { "Idempotency-Key": key } : {},
  });
  return { status: res.status, body: (await json(res)) as any };
};
const buy = (agentId: string, body: unknown, key?: string, auth?: { token?: string; apiKey?: string }) =>
  post(`/agents/${agentId}/buy`, body, key, auth);
const sell = (agentId: string, positionId: string, percent: number, key?: string, auth?: { apiKey?: string }) =>
  post(`/agent-positions/${agentId}/${positionId}/sell`, { percent }, key, auth);
const buys = (agentId: string) => t.count("agent_transactions", "agent_id = ? AND transaction_type = 'BUY'", agentId);
const sells = (agentId: string) => t.count("agent_transactions", "agent_id = ? AND transaction_type = 'SELL'", agentId);
const BONK = { tokenAddress: MINT, amountSol: 0.5 };
type Answer = Awaited<ReturnType<typeof post>>;

/** Two requests at once with one key: one trades; the other answers the same or "in progress". */
function oneOfTwo(pair: Answer[], ok: number): Answer {
  const [first, second] = [...pair].sort((x, y) => x.status - y.status) as [Answer, Answer];
  expect(first.status).toBe(ok);
  if (second.status === 409) expect(second.body.error).toBe(IN_PROGRESS);
  else expect(second).toEqual(first);
  return first;
}

describe("a manual buy with an Idempotency-Key", () => {
  test("repeated: the first answer again, one position, one debit; even after the position closed", async () => {
    t = await startTrading();
    const agent = await t.createAgent();
    const first = await buy(agent.id, BONK, "buy-1");
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ status: "opened", tradingMode: "simulation" });
    const balance = t.solBalance(agent.id);
    expect(Number(balance)).toBeLessThan(9.5);
    const again = await buy(agent.id, BONK, "buy-1");
    expect(again).toEqual(first);
    expect(t.count("positions", "agent_id = ?", agent.id)).toBe(1);
    expect(buys(agent.id)).toBe(1);
    expect(t.count("trading_signals", "source = 'manual'")).toBe(1);
    expect(t.solBalance(agent.id)).toBe(balance);
    // Closed since: the same key still answers the first buy and buys nothing.
    expect((await post(`/agent-positions/${first.body.positionId}/close`, {})).status).toBe(200);
    expect(await buy(agent.id, BONK, "buy-1")).toEqual(first);
    expect(buys(agent.id)).toBe(1);
    // Without a key the same request buys again (the position is closed): as before.
    const other = await buy(agent.id, BONK);
    expect(other.status).toBe(201);
    expect(other.body.positionId).not.toBe(first.body.positionId);
    expect(buys(agent.id)).toBe(2);
  });

  test("two at once with the same key: one trade; the other answers the same or 'in progress'", async () => {
    t = await startTrading();
    const agent = await t.createAgent();
    const first = oneOfTwo(await Promise.all([buy(agent.id, BONK, "twin"), buy(agent.id, BONK, "twin")]), 201);
    expect(buys(agent.id)).toBe(1);
    expect(t.count("trading_signals", "source = 'manual'")).toBe(1);
    // Once it is done the key answers the first buy.
    expect(await buy(agent.id, BONK, "twin")).toEqual(first);
  });

  test("the same key with another body: 409, nothing bought; a signal's key space is the caller's", async () => {
    t = await startTrading();
    const agent = await t.createAgent();
    expect((await buy(agent.id, BONK, "k")).status).toBe(201);
    const other = await buy(agent.id, { tokenAddress: MINT2, amountSol: 0.5 }, "k");
    expect(other.status).toBe(409);
    expect(other.body.error).toBe(REUSED);
    expect(buys(agent.id)).toBe(1);
    // Another user's key space is their own: the same key buys for them.
    const bob = await createUser(t.ctx);
    const bobs = await t.createAgent({ token: bob.token });
    const theirs = await buy(bobs.id, BONK, "k", { token: bob.token });
    expect(theirs.status).toBe(201);
    expect(buys(bobs.id)).toBe(1);
    // The owner's full_access key is a key space of its own too (a login's keys are the user's).
    const full = await createApiKey(t.ctx, t.token, ["full_access"]);
    const byKey = await buy(agent.id, { tokenAddress: MINT2, amountSol: 0.5 }, "k", { apiKey: full.key });
    expect(byKey.status).toBe(201);
    expect(byKey.body).toMatchObject({ status: "opened", tradingMode: "simulation" });
    expect(buys(agent.id)).toBe(2);
    expect(await buy(agent.id, { tokenAddress: MINT2, amountSol: 0.5 }, "k", { apiKey: full.key })).toEqual(byKey);
  });

  test("refused while paused: the same key answers the refusal again, and buys once resumed", async () => {
    t = await startTrading();
    const agent = await t.createAgent();
    expect((await post("/trading/pause", { mode: "all" })).status).toBe(200);
    const refused = await buy(agent.id, BONK, "after-pause");
    expect(refused.status).toBe(409);
    expect(refused.body.details).toEqual({ rule: "paused" });
    expect(await buy(agent.id, BONK, "after-pause")).toEqual(refused);
    expect((await post("/trading/resume", { mode: "all" })).status).toBe(200);
    const bought = await buy(agent.id, BONK, "after-pause");
    expect(bought.status).toBe(201);
    expect(await buy(agent.id, BONK, "after-pause")).toEqual(bought);
    expect(buys(agent.id)).toBe(1);
  });
});

describe("a manual sale with an Idempotency-Key", () => {
  async function openOne() {
    const agent = await t.createAgent();
    const r = await buy(agent.id, BONK);
    expect(r.status).toBe(201);
    return { agent, positionId: r.body.positionId as string };
  }

  test("a part repeated: one sale, the first answer again; without a key two sales", async () => {
    t = await startTrading();
    const { agent, positionId } = await openOne();
    const first = await sell(agent.id, positionId, 25, "sale-1");
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ closed: false, tokensSold: "1250", remainingAmount: "3750" });
    const balance = t.solBalance(agent.id);
    expect(await sell(agent.id, positionId, 25, "sale-1")).toEqual(first);
    expect(sells(agent.id)).toBe(1);
    // One sale, one audit entry: the repeat did nothing.
    expect(t.count("audit_log", "action = 'position.sold_manually'")).toBe(1);
    expect(t.tokenBalance(agent.id)).toBe("3750");
    expect(t.solBalance(agent.id)).toBe(balance);
    // Same key, another share: 409.
    const other = await sell(agent.id, positionId, 50, "sale-1");
    expect(other.status).toBe(409);
    expect(other.body.error).toBe(REUSED);
    // No key: each request sells (25 % of 3750, then of 2812.5).
    expect((await sell(agent.id, positionId, 25)).body.remainingAmount).toBe("2812.5");
    expect((await sell(agent.id, positionId, 25)).body.remainingAmount).toBe("2109.375");
    expect(sells(agent.id)).toBe(3);
  });

  test("two parts at once with the same key sell once", async () => {
    t = await startTrading();
    const { agent, positionId } = await openOne();
    const twins = [sell(agent.id, positionId, 50, "twin"), sell(agent.id, positionId, 50, "twin")];
    const first = oneOfTwo(await Promise.all(twins), 200);
    expect(sells(agent.id)).toBe(1);
    expect(t.tokenBalance(agent.id)).toBe("2500");
    expect(await sell(agent.id, positionId, 50, "twin")).toEqual(first);
  });

  test("100 % repeated: the close's answer again, not 'already closed'", async () => {
    t = await startTrading();
    const { agent, positionId } = await openOne();
    const first = await sell(agent.id, positionId, 100, "close-1");
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ closed: true, remainingAmount: "0", percent: 100 });
    expect(typeof first.body.historicalSwapId).toBe("string");
    // The replay reads the close's historical swap, which keeps changePercent to 4 decimals.
    const { changePercent, ...rest } = first.body;
    const { changePercent: replayedPercent, ...replayed } = (await sell(agent.id, positionId, 100, "close-1")).body;
    expect(replayed).toEqual(rest);
    expect(replayedPercent).toBeCloseTo(changePercent, 3);
    expect(sells(agent.id)).toBe(1);
    expect(t.count("historical_swaps", "agent_id = ?", agent.id)).toBe(1);
    expect(t.count("audit_log", "action = 'position.closed_manually'")).toBe(1);
    // Without a key a repeated close is refused, as before.
    const again = await sell(agent.id, positionId, 100);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("Position is already closed");
  });
});

test("the OpenAPI document lists the optional Idempotency-Key header on both routes", async () => {
  t = await startTrading();
  const doc = (await json(await t.ctx.request("GET", "/api/v1/openapi.json"))) as any;
  for (const path of ["/api/v1/agents/{id}/buy", "/api/v1/agent-positions/{agentId}/{positionId}/sell"]) {
    const params = doc.paths[path].post.parameters as any[];
    expect(params.find((p) => p.in === "header" && p.name === "idempotency-key")).toMatchObject({ required: false });
  }
});
