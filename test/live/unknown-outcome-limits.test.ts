import { describe, expect, test } from "bun:test";
import { landBuy } from "../copytrading/copy-context.ts";
import { json } from "../helpers/context.ts";
import { type LiveContext, livePerTest, MINT, MINT2 } from "./live-context.ts";

// Issue 41 item 1: a live buy whose outcome is unknown (sent, the node cannot say whether it
// landed) counts against every limit until the journal resolves it — the account's open
// positions and exposure, the agent's own risk.maxOpenPositions — and keeps counting across a
// restart (it is counted from the journal, not from memory). Once the chain settles it, it is
// counted once, as the position it became. Each buy here is 5 % of 2 SOL = 0.1 SOL.

let l: LiveContext;
livePerTest((c) => {
  l = c;
});

const limits = async () => (await json(await l.request("GET", "/api/v1/risk-limits"))).live;

/** A live buy of MINT sent and held by the node: pending, no position. */
async function heldBuy(config?: Record<string, unknown>) {
  const agent = await l.liveAgent(config ? { config } : {});
  l.rpc.landNext({ kind: "hold" });
  const signal = await l.postSignal();
  await l.settle();
  expect(l.evaluation(signal.id, agent.id)?.outcome).toBe("pending");
  expect(l.count("positions", "agent_id = ?", agent.id)).toBe(0);
  const [tx] = l.rpc.sentTransactions();
  return { agent, signature: tx!.signature };
}

describe("a live buy whose outcome is unknown", () => {
  test("counts against maxOpenPositions until the journal resolves it, across a restart, then once", async () => {
    expect((await l.request("PUT", "/api/v1/risk-limits", { live: { maxOpenPositions: 1 } })).status).toBe(200);
    const { agent, signature } = await heldBuy();
    expect((await limits()).usage).toMatchObject({ openPositions: 1, exposureSol: 0.1 });

    const second = await l.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
    await l.settle();
    expect(l.evaluation(second.id, agent.id)).toEqual({
      outcome: "skipped",
      reason: "risk_limit: maxOpenPositions: 1 positions are open; the limit is 1",
    });
    expect(l.rpc.sentTransactions()).toHaveLength(1);

    // A restart forgets everything held in memory; the journal still holds the buy.
    l.ctx = await l.ctx.restart();
    const third = await l.postSignal({ tokenAddress: MINT2, symbol: "WIF", signalStrength: 5 });
    await l.settle();
    expect(l.evaluation(third.id, agent.id)?.reason).toBe(
      "risk_limit: maxOpenPositions: 1 positions are open; the limit is 1",
    );
    expect(l.rpc.sentTransactions()).toHaveLength(1);

    // Landed and reconciled: one position, counted once (its cost now with the swap's fees).
    l.rpc.land(signature);
    await l.tick();
    expect(l.count("positions", "agent_id = ? AND status = 'open'", agent.id)).toBe(1);
    expect((await limits()).usage).toMatchObject({ openPositions: 1, exposureSol: 0.100055 });
  });

  test("counts against maxExposureSol and the agent's own risk.maxOpenPositions", async () => {
    await l.request("PUT", "/api/v1/risk-limits", { live: { maxOpenPositions: null, maxExposureSol: 0.15 } });
    const { agent } = await heldBuy({ risk: { maxOpenPositions: 1 } });
    const second = await l.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
    await l.settle();
    expect(l.evaluation(second.id, agent.id)?.reason).toBe(
      "risk_limit: risk.maxOpenPositions: the agent holds 1 open positions; its limit is 1",
    );
    // The agent's own limit lifted: the account's exposure still counts the buy in doubt.
    await l.request("PUT", `/api/v1/agents/${agent.id}/config`, { config: { risk: { maxOpenPositions: null } } });
    const third = await l.postSignal({ tokenAddress: MINT2, symbol: "WIF", signalStrength: 5 });
    await l.settle();
    expect(l.evaluation(third.id, agent.id)?.reason).toBe(
      "risk_limit: maxExposureSol: 0.1 SOL open plus this trade's 0.1 SOL is over the limit of 0.15 SOL",
    );
    expect(l.rpc.sentTransactions()).toHaveLength(1);
  });

  test("counts against the watch's maxOpenPositions of a copied buy", async () => {
    const W = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";
    l.rpc.setSol(W, 10);
    const agent = await l.liveAgent();
    const watch = await l.request("POST", "/api/v1/wallet-watches", { address: W, maxOpenPositions: 1 });
    expect(watch.status).toBe(201);
    const copy = async (mint: string) => {
      l.ctx.clock.advance(1_000);
      landBuy(l.rpc, W, mint, l.ctx.clock.now());
      l.ctx.clock.advance(1_000);
      await l.ctx.services.copyTrading.watcher.tick();
      await l.settle();
    };
    l.rpc.landNext({ kind: "hold" });
    await copy(MINT);
    expect(l.count("live_trades", "status = 'pending'")).toBe(1);
    await copy(MINT2);
    const refused = l.ctx.database.sqlite
      .query<{ reason: string }, [string, string]>(
        `SELECT e.reason FROM signal_evaluations e JOIN trading_signals s ON s.id = e.signal_id
         WHERE e.agent_id = ? AND s.token_address = ?`,
      )
      .get(agent.id, MINT2);
    expect(refused?.reason).toBe(
      "copy_max_open_positions: 1 positions copied from this wallet are open (the watch allows 1)",
    );
    expect(l.count("live_trades")).toBe(1);
  });

  test("a buy that failed on chain stops counting: the next entry trades", async () => {
    await l.request("PUT", "/api/v1/risk-limits", { live: { maxOpenPositions: 1 } });
    const { agent } = await heldBuy();
    l.rpc.expire();
    await l.tick();
    expect((await limits()).usage).toMatchObject({ openPositions: 0, exposureSol: 0 });
    l.rpc.blockHeight = l.fake.swap.lastValidBlockHeight - 10;
    const next = await l.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
    await l.settle();
    expect(l.evaluation(next.id, agent.id)).toEqual({ outcome: "traded", reason: null });
  });
});
