import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { json } from "../helpers/context.ts";
import { startTrading, type TradingContext } from "../helpers/trading.ts";

// slippage.maxExitBps (issue 15 "Exits stall"): a stop-loss or stale exit is capped by maxExitBps
// (default null: no cap, a collapsing thin token is still sold); any other sale, like every buy,
// keeps the entry cap slippage.maxBps.

let t: TradingContext;
beforeEach(async () => {
  t = await startTrading();
});
afterEach(() => t.close());

const close = (positionId: string, reason: string) =>
  t.ctx.request("POST", `/api/v1/agent-positions/${positionId}/close`, { token: t.token, body: { reason } });

async function openOne(config?: Record<string, unknown>) {
  const agent = await t.createAgent({ config });
  await t.postSignal();
  await t.settle();
  const [pos] = await t.positions(agent.id);
  expect(pos).toBeDefined();
  // From here on every quote has a 30 % price impact: far above slippage.maxBps (1000 bps).
  t.fake.quote.priceImpactPct = "0.3";
  return { agent, pos };
}

describe("exit price-impact cap", () => {
  test("default (maxExitBps null): a stop-loss exit sells despite the impact; a manual close is refused", async () => {
    const { pos } = await openOne();
    const manual = await close(pos.id, "manual");
    expect(manual.status).toBe(400);
    expect((await json(manual)).error).toBe("Slippage exceeds maximum allowed");
    const stop = await close(pos.id, "stop_loss");
    expect(stop.status).toBe(200);
    expect(t.count("positions", "id = ? AND status = 'closed'", pos.id)).toBe(1);
  });

  test("maxExitBps set: a stop-loss beyond it is refused like any other sale", async () => {
    const { pos } = await openOne({ slippage: { maxExitBps: 2000 } });
    const stop = await close(pos.id, "stop_loss");
    expect(stop.status).toBe(400);
    expect(await json(stop)).toMatchObject({
      error: "Slippage exceeds maximum allowed",
      details: { requested: 3000, maximum: 2000 },
    });
    expect(t.count("positions", "id = ? AND status = 'open'", pos.id)).toBe(1);
  });
});
