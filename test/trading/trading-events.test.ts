import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { ServiceEvent } from "../../src/events/bus.ts";
import { createApiKey, createUser, json } from "../helpers/context.ts";
import { MINT, MINT2, startTrading, type TradingContext } from "../helpers/trading.ts";

// Every trade, failure and position change is published on the in-process bus with the owner's
// userId (issue 5 "Events"; SPEC "Events" item 1), so the SSE stream can filter per user.
// Numbers as in the other end-to-end tests: SOL $100, bought at $0.01, 0.000105 SOL fees a swap.

let t: TradingContext;
let events: ServiceEvent[];
let unsubscribe: () => void;
beforeEach(async () => {
  t = await startTrading();
  events = [];
  unsubscribe = t.ctx.services.events.subscribe((e) => events.push(e));
});
afterEach(async () => {
  unsubscribe();
  await t.close();
});

const tick = () => t.ctx.services.trading.monitor.tick();
const of = (type: string) => events.filter((e) => e.type === type);
/** The trading events since the last call (ids and times left out; the global SOL price ticks too). */
let seen = 0;
const drain = () => {
  const out = events
    .slice(seen)
    .filter((e) => e.type !== "price.sol")
    .map((e) => ({ type: e.type, userId: e.userId, data: e.data }));
  seen = events.length;
  return out;
};

describe("trading events", () => {
  test("open, peak, take-profit sale, close: each published once with the owner's userId", async () => {
    seen = 0;
    const agent = await t.createAgent({
      config: { takeProfit: { enabled: true, percentage: 50, sellPercentage: 50, maxLevels: 3 } },
    });
    drain();
    const signal = await t.postSignal();
    await t.settle();
    const [pos] = await t.positions(agent.id);
    const buyTx = pos.purchase.transaction;
    const me = t.userId;

    expect(drain()).toEqual([
      {
        type: "signal.created",
        userId: me,
        data: { signal: expect.objectContaining({ id: signal.id, tokenAddress: MINT }) },
      },
      {
        type: "trade.executed",
        userId: me,
        data: {
          agentId: agent.id,
          // Every agent event names the agent and the token (PRODUCT.md §7).
          agentName: "agent",
          tokenSymbol: "BONK",
          signalId: signal.id,
          tokenAddress: MINT,
          side: "buy",
          mode: "simulation",
          transactionId: buyTx.id,
          positionId: pos.id,
          amountSol: "0.500105", // 0.5 swapped, 0.000105 fees (the rent is apart: rentDepositSol)
          tokens: "5000",
          hash: buyTx.hash,
        },
      },
      {
        type: "position.opened",
        userId: me,
        data: {
          positionId: pos.id,
          agentId: agent.id,
          agentName: "agent",
          tokenAddress: MINT,
          tokenSymbol: "BONK",
          amount: "5000",
          entryPriceSol: "0.0001",
          signalId: signal.id,
        },
      },
    ]);

    // Take-profit level 1 at $0.015: the peak moves, 2500 tokens sell for 0.375 SOL.
    t.fake.setToken(MINT, { priceUsd: "0.015" });
    await tick();
    const tickEvents = drain();
    expect(tickEvents.map((e) => e.type)).toEqual(["position.updated", "trade.executed", "position.updated"]);
    expect(tickEvents[0]).toEqual({
      type: "position.updated",
      userId: me,
      data: {
        positionId: pos.id,
        agentId: agent.id,
        agentName: "agent",
        tokenSymbol: "BONK",
        change: "peak",
        peakPriceSol: "0.00015",
      },
    });
    expect(tickEvents[1]).toMatchObject({
      userId: me,
      data: {
        agentId: agent.id,
        positionId: pos.id,
        side: "sell",
        isTakeProfit: true,
        tokens: "2500",
        proceedsSol: "0.375",
        takeProfitLevel: 1,
      },
    });
    expect(tickEvents[2]).toEqual({
      type: "position.updated",
      userId: me,
      data: {
        positionId: pos.id,
        agentId: agent.id,
        agentName: "agent",
        tokenSymbol: "BONK",
        change: "take_profit",
        levelsHit: 1,
        remainingAmount: "2500",
        realizedProfitSol: "0.1248425", // 0.374895 − half of the 0.500105 cost
      },
    });

    // The close at $0.012: P/L (0.374895 + 0.29989) − 0.500105 = 0.17468 SOL (the rent and its
    // refund are the wallet's, not the sale's or the P/L's; the account close's fee is in it).
    t.fake.setToken(MINT, { priceUsd: "0.012" });
    const res = await t.ctx.request("POST", `/api/v1/agent-positions/${pos.id}/close`, { token: t.token });
    const closed = await json(res);
    expect(res.status).toBe(200);
    const closeEvents = drain();
    expect(closeEvents.map((e) => e.type)).toEqual(["trade.executed", "position.closed"]);
    expect(closeEvents[0]).toMatchObject({
      userId: me,
      data: {
        side: "sell",
        isTakeProfit: false,
        tokens: "2500",
        proceedsSol: "0.3", // the swap's SOL only: the closed token account's rent is not a proceed
        transactionId: closed.transactionId,
        hash: closed.transactionHash,
        reason: "manual",
      },
    });
    expect(closeEvents[1]).toEqual({
      type: "position.closed",
      userId: me,
      data: {
        positionId: pos.id,
        agentId: agent.id,
        agentName: "agent",
        tokenSymbol: "BONK",
        tokenAddress: MINT,
        reason: "manual",
        historicalSwapId: closed.historicalSwapId,
        profitLossSol: 0.17468,
        profitLossUsd: 17.468,
      },
    });
  });

  test("a failed trade publishes trade.failed (and nothing else of the trade) with the owner's userId", async () => {
    const agent = await t.createAgent();
    const fail = { status: 500, body: { error: "boom" } };
    t.fake.inject("jupiter.build", fail, fail, fail);
    const signal = await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
    await t.settle();
    const failed = of("trade.failed");
    expect(failed.length).toBe(1);
    expect(failed[0]!.userId).toBe(t.userId);
    expect(failed[0]!.data).toMatchObject({
      agentId: agent.id,
      // No position: the symbol comes from the signal.
      agentName: "agent",
      tokenSymbol: "WIF",
      signalId: signal.id,
      tokenAddress: MINT2,
      side: "buy",
      mode: "simulation",
    });
    expect(String(failed[0]!.data.reason)).toContain("swapAggregator");
    expect(of("trade.executed").length).toBe(0);
    expect(of("position.opened").length).toBe(0);
  });

  test("a failed close publishes trade.failed; a DCA buy publishes trade.executed (isDca) and position.updated (dca)", async () => {
    const agent = await t.createAgent({
      config: {
        stopLoss: { enabled: false, percentage: 25 },
        dca: { enabled: true, maxOrders: 1, priceDropTriggerPercentage: 10, amountPercentage: 50 },
      },
    });
    await t.postSignal();
    await t.settle();
    const [pos] = await t.positions(agent.id);
    t.fake.setToken(MINT, { priceUsd: "0.008" }); // below 0.0001 × 0.9: DCA order 1, 0.25 SOL for 3125 tokens
    seen = events.length;
    await tick();
    const dca = drain();
    expect(dca.map((e) => e.type)).toEqual(["trade.executed", "position.updated"]);
    expect(dca[0]).toMatchObject({
      userId: t.userId,
      data: {
        agentId: agent.id,
        positionId: pos.id,
        side: "buy",
        isDca: true,
        dcaOrder: 1,
        amountSol: "0.250105",
        tokens: "3125",
      },
    });
    expect(dca[1]).toMatchObject({
      userId: t.userId,
      data: { positionId: pos.id, change: "dca", dcaOrders: 1, remainingAmount: "8125" },
    });

    const fail = { status: 500, body: { error: "boom" } };
    t.fake.inject("jupiter.build", fail, fail, fail);
    const res = await t.ctx.request("POST", `/api/v1/agent-positions/${pos.id}/close`, { token: t.token });
    expect(res.status).toBe(502);
    const failed = drain();
    expect(failed.map((e) => e.type)).toEqual(["trade.failed"]);
    expect(failed[0]).toMatchObject({
      userId: t.userId,
      data: { agentId: agent.id, positionId: pos.id, side: "sell", reason: expect.stringContaining("swapAggregator") },
    });
  });

  test("another user's trades carry their userId, never mine", async () => {
    const other = await createUser(t.ctx);
    const theirKey = (await createApiKey(t.ctx, other.token, ["signals"])).key;
    const theirs = await t.createAgent({ token: other.token, name: "theirs" });
    const mine = await t.createAgent({ name: "mine" });
    await t.postSignal({}, theirKey);
    await t.settle();
    await t.postSignal();
    await t.settle();
    const trades = of("trade.executed");
    expect(trades.map((e) => [e.data.agentId, e.userId])).toEqual([
      [theirs.id, other.user.id],
      [mine.id, t.userId],
    ]);
    expect(of("position.opened").map((e) => [e.data.agentId, e.userId])).toEqual([
      [theirs.id, other.user.id],
      [mine.id, t.userId],
    ]);
  });
});
