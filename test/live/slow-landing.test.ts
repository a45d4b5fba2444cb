import { expect, test } from "bun:test";
import { json } from "../helpers/context.ts";
import { until } from "../helpers/until.ts";
import { type LiveContext, livePerTest, MINT, MINT2 } from "./live-context.ts";

// Issue 41 item 4 (docs/decisions/under-load.md "Trades in flight"): a live buy waiting to land
// is a trade in flight, not a signal waiting to be decided. The node withholds its answer to
// getSignatureStatuses (rpc.hold) while the clock moves on: no sleeps. The queue's lag, and with it
// the 503 of POST /trading-signals, counts only signals waiting for a decision; the live agent's
// own next signal waits for its turn and is judged by SIGNAL_MAX_AGE_SECONDS when the turn comes.

let l: LiveContext;
const live = livePerTest((c) => {
  l = c;
});

const LAG_LIMIT = 5;
const MAX_AGE = 30;

async function simulationAgent(): Promise<string> {
  const created = await l.request("POST", "/api/v1/agents", { name: "paper", tradingMode: "simulation" });
  expect(created.status).toBe(201);
  const agent = await json(created);
  expect((await l.request("PUT", `/api/v1/agents/${agent.id}`, { automatedTradingSimulation: true })).status).toBe(200);
  return agent.id;
}

async function queueHealth() {
  return (await json(await l.request("GET", "/api/v1/health"))).services.queue;
}

/** A live buy sent and waiting for the node to report its status; resolves once it waits. */
async function liveBuyWaitingToLand() {
  const liveAgent = await l.liveAgent();
  const paper = await simulationAgent();
  const statuses = l.rpc.hold("getSignatureStatuses");
  const first = await l.postSignal();
  await statuses.reached;
  expect(l.rpc.sentTransactions().length).toBe(1);
  return { liveAgent, paper, first, statuses };
}

test("a live buy that takes 11 s to land: another signal is accepted (no 503), the lag stays 0, and the simulation agent decides it at once", async () => {
  await live.restart({ env: { SIGNAL_QUEUE_MAX_LAG_SECONDS: String(LAG_LIMIT), SIGNAL_MAX_AGE_SECONDS: "60" } });
  const { liveAgent, paper, first, statuses } = await liveBuyWaitingToLand();
  // The simulation agent's part of the first signal is decided and traded while the live one waits.
  await until(() => l.evaluation(first.id, paper)?.outcome === "traded", "the simulation agent's first buy");
  l.ctx.clock.advance(11_000);

  expect(await queueHealth()).toMatchObject({ status: "healthy", lagSeconds: 0 });
  const res = await l.ctx.request("POST", "/api/v1/trading-signals", {
    apiKey: l.apiKey,
    body: { tokenAddress: MINT2, symbol: "WIF", signalType: "buy", signalStrength: 4 },
  });
  expect(res.status).toBe(201);
  const second = await json(res);
  // Decided for the simulation agent without waiting for the live trade.
  await until(() => l.evaluation(second.id, paper)?.outcome === "traded", "the simulation agent's second buy");
  expect(l.count("positions", "agent_id = ? AND token_address = ?", paper, MINT2)).toBe(1);
  expect(l.evaluation(first.id, liveAgent.id)).toBeNull();
  expect(await queueHealth()).toMatchObject({ status: "healthy", lagSeconds: 0 });

  statuses.release();
  await l.settle();
  expect(l.evaluation(first.id, liveAgent.id)?.outcome).toBe("traded");
  // 11 s after it arrived, within SIGNAL_MAX_AGE_SECONDS (60): the live agent's turn decides it.
  expect(l.evaluation(second.id, liveAgent.id)?.outcome).toBe("traded");
  expect(l.count("positions", "agent_id = ?", liveAgent.id)).toBe(2);
});

test("the live agent's own next signal waits for its turn behind the trade and is stale when it comes too late; nobody else waits", async () => {
  await live.restart({
    env: { SIGNAL_QUEUE_MAX_LAG_SECONDS: String(LAG_LIMIT), SIGNAL_MAX_AGE_SECONDS: String(MAX_AGE) },
  });
  const { liveAgent, paper, first, statuses } = await liveBuyWaitingToLand();
  const second = await l.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
  await until(() => l.evaluation(second.id, paper)?.outcome === "traded", "the simulation agent's second buy");
  // Waiting behind its agent's trade is not waiting to be decided: the queue does not lag.
  l.ctx.clock.advance((MAX_AGE + 2) * 1000);
  expect(await queueHealth()).toMatchObject({ status: "healthy", lagSeconds: 0 });
  expect(l.evaluation(second.id, liveAgent.id)).toBeNull();
  // An exit signal meanwhile: the simulation agent closes at once; the live agent's turn waits.
  const exit = await l.postSignal({ tokenAddress: MINT2, symbol: "WIF", signalType: "sell" });
  await until(() => l.evaluation(exit.id, paper)?.outcome === "closed", "the simulation agent's exit");
  expect(l.count("positions", "agent_id = ? AND token_address = ? AND status = 'closed'", paper, MINT2)).toBe(1);
  expect(await queueHealth()).toMatchObject({ status: "healthy", lagSeconds: 0 });

  statuses.release();
  await l.settle();
  expect(l.evaluation(first.id, liveAgent.id)?.outcome).toBe("traded");
  const late = await json(await l.request("GET", `/api/v1/trading-signals/${second.id}`));
  expect(late.processing.evaluations.find((e: { agentId: string }) => e.agentId === liveAgent.id)).toMatchObject({
    outcome: "stale",
    rule: null,
    reason: `Signal was ${MAX_AGE + 2}.0 s old when decided (limit ${MAX_AGE} s); a late buy opens nothing`,
  });
  expect(l.count("positions", "agent_id = ? AND token_address = ?", liveAgent.id, MINT2)).toBe(0);
  expect(l.count("positions", "agent_id = ? AND token_address = ?", liveAgent.id, MINT)).toBe(1);
  expect(l.rpc.sentTransactions().length).toBe(1);
});
