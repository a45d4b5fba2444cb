import { afterEach, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { createUser, json } from "../helpers/context.ts";
import { MINT, MINT2, startTrading, type TradingContext } from "../helpers/trading.ts";

// Issue 44 item 5: POST /agents/:id/buy goes through the checks an automated entry does — the
// pause and the limits (the guard rails' gate), the token screening (the executor) — and what it
// buys is recorded as manual: a signal of source `manual`, never queued, that the BUY and the
// position name. SOL at $100, BONK at $0.01.

let t: TradingContext;
afterEach(() => t?.close());

const buy = async (agentId: string, body: unknown, token = t.token) => {
  const res = await t.ctx.request("POST", `/api/v1/agents/${agentId}/buy`, { token, body });
  return { status: res.status, body: (await json(res)) as any };
};
const call = async (method: string, path: string, body?: unknown) => {
  const res = await t.ctx.request(method, `/api/v1${path}`, { token: t.token, body });
  return { status: res.status, body: (await json(res)) as any };
};

describe("a manual buy", () => {
  test("opens a position recorded as manual, through the engine (fees, ledgers)", async () => {
    t = await startTrading();
    // Automation off: the operator's buy does not need the agent to trade signals on its own.
    const agent = await t.createAgent({ automated: false });
    const r = await buy(agent.id, { tokenAddress: MINT, amountSol: 0.5 });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ status: "opened", tradingMode: "simulation" });
    const [pos] = await t.positions(agent.id);
    expect(pos.id).toBe(r.body.positionId);
    expect(pos.purchase.amount).toBe(5000);
    expect(
      t.count("trading_signals", "id = ? AND source = 'manual' AND processing_status = 'processed'", r.body.signalId),
    ).toBe(1);
    expect(
      t.count(
        "agent_transactions",
        "agent_id = ? AND transaction_type = 'BUY' AND signal_id = ?",
        agent.id,
        r.body.signalId,
      ),
    ).toBe(1);
    // 10 SOL less the 0.5 and the fees.
    expect(Number(t.solBalance(agent.id))).toBeLessThan(9.5);
    // The same token again: one open position per token, as for a signal.
    const again = await buy(agent.id, { tokenAddress: MINT, amountSol: 0.5 });
    expect(again.status).toBe(409);
    expect(again.body.details).toEqual({ rule: "open_position" });
  });

  test("paused: refused with rule paused, nothing swapped", async () => {
    t = await startTrading();
    const agent = await t.createAgent();
    expect((await call("POST", "/trading/pause", { mode: "all" })).status).toBe(200);
    const swaps = t.fake.requests.filter((q) => q.route.startsWith("jupiter.") && q.route !== "jupiter.price").length;
    const r = await buy(agent.id, { tokenAddress: MINT, amountSol: 0.5 });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({
      error: "Trading is paused for simulation mode; POST /api/v1/trading/resume resumes it",
      details: { rule: "paused" },
    });
    expect(t.count("agent_transactions", "agent_id = ?", agent.id)).toBe(0);
    expect(t.fake.requests.filter((q) => q.route.startsWith("jupiter.") && q.route !== "jupiter.price").length).toBe(
      swaps,
    );
  });

  test("over the account's maxOpenPositions: refused by the gate (risk_limit)", async () => {
    t = await startTrading();
    expect((await call("PUT", "/risk-limits", { simulation: { maxOpenPositions: 1 } })).status).toBe(200);
    const agent = await t.createAgent();
    expect((await buy(agent.id, { tokenAddress: MINT, amountSol: 0.1 })).status).toBe(201);
    const r = await buy(agent.id, { tokenAddress: MINT2, amountSol: 0.1 });
    expect(r.status).toBe(409);
    expect(r.body.details).toEqual({ rule: "risk_limit" });
    expect(r.body.error).toStartWith("maxOpenPositions");
    expect(t.count("positions", "agent_id = ?", agent.id)).toBe(1);
  });

  test("a token the screening refuses (a freeze authority) buys nothing: 400 with the screening's reason", async () => {
    t = await startTrading({ rpc: true });
    const freezer = Keypair.generate().publicKey.toBase58();
    t.rpc!.mintAuthorities.set(MINT, { freeze: freezer });
    const agent = await t.createAgent();
    const r = await buy(agent.id, { tokenAddress: MINT, amountSol: 0.5 });
    expect(r.status).toBe(400);
    expect(r.body.error).toContain("freeze authority");
    expect(t.count("positions", "agent_id = ?", agent.id)).toBe(0);
    expect(t.solBalance(agent.id)).toBe("10");
  });

  test("bad input is a 400, another user's agent a 404, a signals-only API key a 403", async () => {
    t = await startTrading();
    const agent = await t.createAgent();
    for (const body of [
      { tokenAddress: "BONK", amountSol: 0.1 },
      { tokenAddress: MINT, amountSol: 0 },
      { tokenAddress: MINT, amountSol: 20_000 },
      { tokenAddress: MINT, amountSol: "0.1" },
      { amountSol: 0.1 },
    ]) {
      const r = await buy(agent.id, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(typeof r.body.error).toBe("string");
    }
    const other = await createUser(t.ctx);
    expect((await buy(agent.id, { tokenAddress: MINT, amountSol: 0.1 }, other.token)).status).toBe(404);
    const byKey = await t.ctx.request("POST", `/api/v1/agents/${agent.id}/buy`, {
      apiKey: t.apiKey,
      body: { tokenAddress: MINT, amountSol: 0.1 },
    });
    expect(byKey.status).toBe(403);
    expect(t.count("agent_transactions", "agent_id = ?", agent.id)).toBe(0);
  });
});
