import { afterEach, describe, expect, test } from "bun:test";
import { json } from "../helpers/context.ts";
import { type CopyContext, MINT, MINT2, startCopy, W } from "./copy-context.ts";

// Streaming with polling as the safety net (issue 33 item 4): the watcher subscribes each followed
// wallet over the Solana pubsub websocket (a fake node speaking the protocol on 127.0.0.1), copies
// a streamed trade at once through the same poll the tick runs, and reconnects a dropped socket.

let c: CopyContext;
afterEach(async () => {
  await c?.close();
});

const watcher = () => c.ctx.services.copyTrading.watcher;

/** Waits for a condition the real socket brings about (bounded; no fixed sleep). */
async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  await watcher().idle();
}

async function streaming(): Promise<void> {
  watcher().startStreaming();
  await until(() => c.pubsub!.subscribed().includes(W), "the subscription");
}

describe("streaming", () => {
  test("subscribes with logsSubscribe mentions at confirmed; a streamed buy is copied without a tick, lag from block time", async () => {
    c = await startCopy({}, { pubsub: true });
    await c.agent();
    const watch = await c.watch();
    await streaming();
    expect(c.pubsub!.requests[0]).toEqual({
      method: "logsSubscribe",
      params: [{ mentions: [W] }, { commitment: "confirmed" }],
    });
    c.ctx.clock.advance(1_000);
    const buy = c.trade({ sol: 0.5, at: c.ctx.clock.now() - 1_000 });
    expect(c.pubsub!.announce(buy)).toBe(1);
    await until(() => c.signals().length === 1, "the copy");
    await c.settle();
    expect(c.signals()[0].activation_reason).toContain(buy);
    expect(c.rpc.callsOf("getTransaction").map((p) => p[0])).toEqual([buy]);
    const after = await json(await c.request("GET", `/api/v1/wallet-watches/${watch.id}`));
    expect(after.lagSeconds).toBe(1);
    expect(after.lastSeenSignature).toBe(buy);
  });

  test("streamed dust (no DEX, no token program in its logs) costs no getTransaction; the buy among it is copied", async () => {
    c = await startCopy({}, { pubsub: true });
    await c.watch();
    await streaming();
    c.ctx.clock.advance(1_000);
    const at = Math.floor(c.ctx.clock.now() / 1000);
    for (let i = 0; i < 50; i++) c.pubsub!.announce(c.rpc.dust(W, { blockTime: at }));
    const buy = c.trade({ sol: 0.5 });
    c.pubsub!.announce(buy);
    await until(() => c.signals().length === 1, "the copy");
    await c.tick();
    expect(c.rpc.callsOf("getTransaction").map((p) => p[0])).toEqual([buy]);
    const metrics = await (await c.request("GET", "/metrics")).text();
    expect(metrics).toContain('copy_trading_ignored_total{reason="dust_logs"} 50');
  });

  test("a paused watch is unsubscribed (logsUnsubscribe); a dropped socket reconnects and subscribes again; nothing is copied twice", async () => {
    c = await startCopy({}, { pubsub: true });
    const watch = await c.watch();
    await streaming();
    c.ctx.clock.advance(1_000);
    const first = c.trade({ sol: 0.5 });
    c.pubsub!.announce(first);
    c.pubsub!.announce(first); // a duplicate notification
    await until(() => c.signals().length === 1, "the copy");

    c.pubsub!.drop();
    await until(() => c.pubsub!.connections === 2 && c.pubsub!.subscribed().includes(W), "the reconnection");
    // Landed while the socket was down, never announced: the poll (the safety net) catches it.
    const missed = c.trade({ sol: 0.4, mint: MINT2 });
    c.ctx.clock.advance(1_000);
    await c.tick();
    await c.settle();
    expect(c.signals().map((s) => s.token_address)).toEqual([MINT, MINT2]);
    expect(c.signals()[1].activation_reason).toContain(missed);
    c.pubsub!.announce(missed); // late: already decided
    await watcher().idle();
    expect(c.signals()).toHaveLength(2);

    await c.request("PUT", `/api/v1/wallet-watches/${watch.id}`, { enabled: false });
    await c.tick();
    await until(() => c.pubsub!.subscribed().length === 0, "the unsubscription");
    expect(c.pubsub!.requests.at(-1)!.method).toBe("logsUnsubscribe");
  });

  test("no watch, no socket; the first watch opens it at the next tick", async () => {
    c = await startCopy({}, { pubsub: true });
    watcher().startStreaming();
    await c.tick();
    expect(c.pubsub!.connections).toBe(0);
    await c.watch();
    await c.tick();
    await until(() => c.pubsub!.subscribed().includes(W), "the subscription");
    expect(c.pubsub!.connections).toBe(1);
  });

  test("a restart mid-stream copies nothing twice and misses nothing younger than the max age", async () => {
    c = await startCopy({}, { pubsub: true });
    await c.watch();
    await streaming();
    c.ctx.clock.advance(1_000);
    const streamed = c.trade({ sol: 0.5 });
    c.pubsub!.announce(streamed);
    await until(() => c.signals().length === 1, "the copy");

    await c.restart();
    const old = c.trade({ sol: 0.3, mint: MINT2, at: c.ctx.clock.now() });
    c.ctx.clock.advance(200_000); // `old` is past WALLET_WATCH_MAX_AGE_SECONDS (120) now
    const young = c.trade({ sol: 0.6, mint: MINT2 });
    await streaming();
    c.pubsub!.announce(streamed); // replayed: already copied
    await c.tick();
    await c.settle();
    const sigs = c.signals().map((s) => s.activation_reason as string);
    expect(sigs).toHaveLength(2);
    expect(sigs[0]).toContain(streamed);
    expect(sigs[1]).toContain(young);
    expect(sigs.some((r) => r.includes(old))).toBe(false);
  });
});
