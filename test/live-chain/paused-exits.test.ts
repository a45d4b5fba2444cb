import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createPauseInstruction, createResumeInstruction } from "@solana/spl-token";
import { Keypair } from "@solana/web3.js";
import type { ServiceEvent } from "../../src/events/bus.ts";
import type { ChainAggregator, Pool } from "../fakes/chain-aggregator.ts";
import type { LiteSvmRpc } from "../fakes/litesvm-rpc.ts";
import { type FakeTelegram, startFakeTelegram } from "../fakes/telegram.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../fakes/webhook-receiver.ts";
import { json, type TestContext } from "../helpers/context.ts";
import { type LiveService, liveServicePerTest } from "./live-service.ts";

// Issue 40 item 2: a position paused because its mint changed after the buy keeps its exits. A
// live sale the chain would refuse is refused by the transaction's simulation before anything is
// signed, so it costs nothing: the stop-loss (and take-profit, stale exit) tries at every tick it
// fires, the position's `waitingReason` says why it waits, its owner is told once per pause (event
// stream, webhook, Telegram) and not at every failed try, and once the mint lets the sale through
// it sells exactly once. DCA buys stay held while paused; a simulated position, whose sale no
// chain judges, keeps its exits held (docs/decisions/paused-positions.md).

const wallet = Keypair.generate();
const LINKED = 4242;
let service: LiveService;
let chain: LiteSvmRpc;
let agg: ChainAggregator;
let ctx: TestContext;
let tg: FakeTelegram;
let receiver: WebhookReceiver;

beforeEach(async () => {
  tg = await startFakeTelegram();
  receiver = await startWebhookReceiver();
});
afterEach(async () => {
  await tg.close();
  await receiver.close();
});

liveServicePerTest(
  wallet,
  (s) => {
    service = s;
    ({ chain, agg, ctx } = s);
  },
  () => ({ env: { ...tg.env(), WEBHOOK_ALLOW_PRIVATE_URLS: "true" } }),
);

const address = wallet.publicKey.toBase58();
const walletTxs = () => [...chain.landed.values()].filter((t) => t.keys.static[0] === address).length;
const positions = async (agentId: string) =>
  json(await ctx.request("GET", `/api/v1/agent-positions/${agentId}`, { token: service.token }));
const tick = () => ctx.services.trading.monitor.tick();
/** Requests for a swap (quote or transaction), not the monitor's price reads. */
const swapAsks = () => agg.requests.filter((r) => r.path.startsWith("/swap/")).length;

/** The owner's Telegram chat linked, a webhook for position updates and failed trades, the bus recorded. */
async function listen() {
  const telegram = ctx.services.notifications.telegram;
  if (!telegram) throw new Error("telegram not configured");
  const poll = async () => {
    await telegram.bot.pollOnce(0);
    await telegram.notifier.flush();
  };
  const { code } = await json(
    await ctx.request("POST", "/api/v1/notifications/telegram/link", { token: service.token }),
  );
  tg.userSends(LINKED, `/start ${code}`);
  await poll();
  const hook = await json(
    await ctx.request("POST", "/api/v1/webhooks", {
      token: service.token,
      body: { url: receiver.url, events: ["position.updated", "trade.failed"] },
    }),
  );
  receiver.setSecret(hook.secret);
  const events: ServiceEvent[] = [];
  ctx.services.events.subscribe((e) => events.push(e));
  const flush = async () => {
    await poll();
    await ctx.services.notifications.webhookWorker.tick();
  };
  const pauseChange = (c: unknown) => c === "paused" || c === "resumed";
  const changes = () =>
    events.filter((e) => e.type === "position.updated" && pauseChange(e.data.change)).map((e) => e.data.change);
  // Read as sent (the service's clock is a test clock, too old for the library's timestamp check).
  const webhooks = (type: string) =>
    receiver.received
      .map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> })
      .filter((m) => m.type === type);
  return { events, flush, changes, webhooks };
}

/** A Pausable mint bought on purpose by a live agent, then paused by its authority. */
async function pausedPosition(mode: "live" | "simulation", config: Record<string, unknown>) {
  const pool = agg.addPool({ lamportsPerToken: 1_000_000n, token2022: true, pausable: true });
  const agentId = await service.agent(mode, { ...config, filters: { rejectPausable: false } });
  await service.signal(pool.mint);
  const [position] = await positions(agentId);
  expect(position).toBeDefined();
  agg.run(pool.owner, [createPauseInstruction(pool.mint, pool.owner.publicKey, [], pool.programId)]);
  ctx.clock.advance(2 * 60_000); // the monitor's next re-read of the mint
  return { pool, agentId, positionId: position.id as string };
}

const resume = (pool: Pool) =>
  agg.run(pool.owner, [createResumeInstruction(pool.mint, pool.owner.publicKey, [], pool.programId)]);

describe("a live position paused by its mint keeps its stop-loss", () => {
  test("the stop-loss tries at every tick, nothing signed; told once; sold exactly once when the mint lets it", async () => {
    const n = await listen();
    const { pool, agentId } = await pausedPosition("live", { stopLoss: { enabled: true, percentage: 20 } });
    expect(walletTxs()).toBe(1);
    pool.opts.lamportsPerToken = 500_000n; // the stop-loss fires
    const asked = swapAsks();
    for (let i = 0; i < 3; i++) {
      expect(await tick()).toMatchObject({ actions: 1, closed: 0, failed: 1 });
      ctx.clock.advance(10_000);
    }
    // Each try asked the aggregator and was refused by the simulation: nothing was signed or sent.
    expect(swapAsks()).toBeGreaterThanOrEqual(asked + 3);
    expect(walletTxs()).toBe(1);
    const [waiting] = await positions(agentId);
    expect(waiting.waitingReason).toBe(
      "Paused: The mint's transfers are paused. Its exits keep trying (a sale the chain would refuse is caught before signing, at no cost); no DCA while it lasts",
    );
    // Told once, not at every failed try: one event, one webhook, one Telegram message.
    await n.flush();
    expect(n.changes()).toEqual(["paused"]);
    const paused = n.events.find((e) => e.type === "position.updated");
    expect(paused?.data).toMatchObject({
      positionId: waiting.id,
      agentId,
      tokenAddress: pool.mint.toBase58(),
      change: "paused",
      reason: waiting.waitingReason,
    });
    expect(n.events.filter((e) => e.type === "trade.failed")).toEqual([]);
    expect(n.webhooks("position.updated").map((m) => m.data.change)).toEqual(["paused"]);
    expect(n.webhooks("trade.failed")).toEqual([]);
    const told = tg.messagesTo(LINKED).filter((m) => m.text.includes("paused"));
    expect(told).toHaveLength(1);
    expect(told[0]?.text).toContain("The mint's transfers are paused");
    expect(told[0]?.disable_notification).toBe(false);

    // Resumed: the next tick's stop-loss sells, once; the owner hears the pause is over.
    resume(pool);
    ctx.clock.advance(2 * 60_000);
    expect(await tick()).toMatchObject({ actions: 1, closed: 1, failed: 0 });
    expect(walletTxs()).toBe(2);
    expect(await tick()).toMatchObject({ positions: 0, actions: 0 });
    expect(walletTxs()).toBe(2);
    expect(await positions(agentId)).toEqual([]);
    await n.flush();
    expect(n.changes()).toEqual(["paused", "resumed"]);
    expect(tg.messagesTo(LINKED).filter((m) => m.text.includes("no longer paused"))).toHaveLength(1);
  });

  test("the fresh read before the sale finds the pause lifted: sold at once, told it is over", async () => {
    const n = await listen();
    const { pool, agentId } = await pausedPosition("live", { stopLoss: { enabled: true, percentage: 20 } });
    pool.opts.lamportsPerToken = 500_000n;
    expect(await tick()).toMatchObject({ actions: 1, failed: 1 });
    // Resumed under 2 minutes after the monitor's read: the read right before the sale sees it.
    resume(pool);
    expect(await tick()).toMatchObject({ actions: 1, closed: 1 });
    expect(walletTxs()).toBe(2);
    expect(await positions(agentId)).toEqual([]);
    expect(n.changes()).toEqual(["paused", "resumed"]);
  });

  test("a take-profit keeps trying too; DCA buys stay held while paused", async () => {
    const n = await listen();
    const { pool, agentId } = await pausedPosition("live", {
      stopLoss: { enabled: false, percentage: 25 },
      takeProfit: { enabled: true, percentage: 50, sellPercentage: 100, maxLevels: 1 },
      dca: { enabled: true, maxOrders: 1, priceDropTriggerPercentage: 20, amountPercentage: 50 },
    });
    // The price falls to the DCA level: no buy is even asked for.
    pool.opts.lamportsPerToken = 700_000n;
    const quotes = swapAsks();
    expect(await tick()).toMatchObject({ actions: 0 });
    expect(swapAsks()).toBe(quotes);
    // It doubles: the take-profit is tried and refused before signing.
    pool.opts.lamportsPerToken = 2_000_000n;
    expect(await tick()).toMatchObject({ actions: 1, failed: 1 });
    expect(walletTxs()).toBe(1);
    resume(pool);
    ctx.clock.advance(2 * 60_000);
    expect(await tick()).toMatchObject({ actions: 1, closed: 1 });
    expect(walletTxs()).toBe(2);
    expect(await positions(agentId)).toEqual([]);
    expect(n.changes()).toEqual(["paused", "resumed"]);
  });
});

describe("a simulated position paused by its mint", () => {
  test("keeps its exits held (no chain judges a paper sale), says why, and its owner is told once", async () => {
    const n = await listen();
    const { pool, agentId } = await pausedPosition("simulation", { stopLoss: { enabled: true, percentage: 20 } });
    pool.opts.lamportsPerToken = 500_000n;
    expect(await tick()).toMatchObject({ actions: 0 });
    expect(await tick()).toMatchObject({ actions: 0 });
    const [waiting] = await positions(agentId);
    expect(waiting.waitingReason).toBe(
      "Paused: The mint's transfers are paused. No automatic exit or DCA while it lasts (a simulated sale cannot tell whether the chain would refuse it); a manual close still tries to sell",
    );
    expect(n.changes()).toEqual(["paused"]);
    resume(pool);
    ctx.clock.advance(2 * 60_000);
    expect(await tick()).toMatchObject({ actions: 1, closed: 1 });
    expect(n.changes()).toEqual(["paused", "resumed"]);
  });
});
