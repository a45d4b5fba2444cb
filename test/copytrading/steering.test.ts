import { afterEach, describe, expect, test } from "bun:test";
import { json } from "../helpers/context.ts";
import { type CopyContext, MINT, MINT2, startCopy, W } from "./copy-context.ts";

// Copy trading that nobody can steer (issue 33, findings 1-3) through the service on the fake
// node: only a swap the followed wallet signed, through a known DEX, is copied; everything else
// shows in the watch's trades as ignored with its reason; dust between two polls hides nothing.

let c: CopyContext;
afterEach(async () => {
  await c?.close();
});

const tradesOf = async (watchId: string) =>
  (await json(await c.request("GET", `/api/v1/wallet-watches/${watchId}/trades`))) as any[];

describe("a copied trade is a swap signed by the wallet", () => {
  test("a 'buy' paying a friend who sends the token back is ignored as not_a_swap; a real swap is copied", async () => {
    c = await startCopy();
    const watch = await c.watch();
    c.ctx.clock.advance(1_000);
    const fake = c.trade({ sol: 0.5, route: "friend" });
    const real = c.trade({ sol: 0.3, mint: MINT2 });
    c.ctx.clock.advance(1_000);
    await c.tick();
    await c.settle();
    const signals = c.signals();
    expect(signals.map((s) => s.token_address)).toEqual([MINT2]);
    const trades = await tradesOf(watch.id);
    expect(trades.find((t) => t.signature === fake)).toMatchObject({
      side: "buy",
      tokenAddress: MINT,
      ignoredReason: "not_a_swap",
      signalId: null,
      processing: null,
    });
    expect(trades.find((t) => t.signature === real)).toMatchObject({ ignoredReason: null, signalId: signals[0].id });
    const metrics = await (await c.request("GET", "/metrics")).text();
    expect(metrics).toContain('copy_trading_ignored_total{reason="not_a_swap"} 1');
  });

  test("a 'sell' signed only by a third party (a delegate pulling the tokens) is ignored as not_signed, even with copySells", async () => {
    c = await startCopy();
    c.rpc.setTokenBalance(W, MINT, 9_000_000_000n);
    const watch = await c.watch({ copySells: true });
    c.ctx.clock.advance(1_000);
    const pulled = c.trade({ side: "sell", sol: 0.2, signers: ["De1egate1111111111111111111111111111111111111"] });
    c.ctx.clock.advance(1_000);
    await c.tick();
    await c.settle();
    expect(c.signals()).toHaveLength(0);
    const trades = await tradesOf(watch.id);
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({ signature: pulled, side: "sell", ignoredReason: "not_signed", signalId: null });
  });
});

describe("everything since the cursor is read", () => {
  test("100 dust transfers between two polls hide neither the buy nor the sell; the cursor passes them all", async () => {
    c = await startCopy();
    c.rpc.setTokenBalance(W, MINT2, 9_000_000_000n);
    await c.watch({ copySells: true });
    c.ctx.clock.advance(1_000);
    await c.tick(); // the cursor: nothing yet
    const buy = c.trade({ sol: 0.5 });
    const sell = c.trade({ side: "sell", sol: 0.4, mint: MINT2 });
    const at = Math.floor(c.ctx.clock.now() / 1000);
    for (let i = 0; i < 100; i++) c.rpc.dust(W, { blockTime: at, from: i % 2 ? undefined : W.replace("7x", "8x") });
    c.ctx.clock.advance(2_000);
    const reads = c.rpc.callsOf("getTransaction").length;
    await c.tick();
    await c.settle();
    // A later poll (the RPC budget refills) finishes what the first one could not read.
    for (let i = 0; i < 3 && c.signals().length < 2; i++) {
      c.ctx.clock.advance(10_000);
      await c.tick();
      await c.settle();
    }
    const signals = c.signals();
    expect(
      signals.map((s) => [s.signal_type, s.activation_reason.includes(buy) || s.activation_reason.includes(sell)]),
    ).toEqual([
      ["buy", true],
      ["sell", true],
    ]);
    // Paged back with `before` to the cursor.
    expect(c.rpc.callsOf("getSignaturesForAddress").some((p) => (p[1] as any).before)).toBe(true);
    const watch = (await json(await c.request("GET", "/api/v1/wallet-watches")))[0];
    const newest = [...c.rpc.txs.values()].at(-1)!.signature;
    expect(watch.lastSeenSignature).toBe(newest);
    expect(c.rpc.callsOf("getTransaction").length - reads).toBeLessThanOrEqual(102);
  });

  test("dust that carries a memo costs no getTransaction and shows in the counter", async () => {
    c = await startCopy();
    await c.watch();
    c.ctx.clock.advance(1_000);
    const buy = c.trade({ sol: 0.5 });
    const at = Math.floor(c.ctx.clock.now() / 1000);
    for (let i = 0; i < 100; i++) c.rpc.dust(W, { blockTime: at, memo: "claim your airdrop at example.invalid" });
    c.ctx.clock.advance(1_000);
    await c.tick();
    await c.settle();
    expect(c.signals()).toHaveLength(1);
    expect(c.signals()[0].activation_reason).toContain(buy);
    expect(c.rpc.callsOf("getTransaction").map((p) => p[0])).toEqual([buy]);
    const metrics = await (await c.request("GET", "/metrics")).text();
    expect(metrics).toContain('copy_trading_ignored_total{reason="dust_memo"} 100');
  });

  test("when the budget stops the paging, the cursor stays before every unread signature", async () => {
    c = await startCopy();
    await c.watch();
    c.ctx.clock.advance(1_000);
    await c.tick();
    const before = (await json(await c.request("GET", "/api/v1/wallet-watches")))[0].lastSeenSignature;
    const buy = c.trade({ sol: 0.5 });
    const at = Math.floor(c.ctx.clock.now() / 1000);
    for (let i = 0; i < 250; i++) c.rpc.dust(W, { blockTime: at });
    c.ctx.clock.advance(1_000);
    // Live trading used the window: one page, then no more.
    const budget = (c.ctx.services as any).live.rpcBudget;
    for (let i = 0; i < 59; i++) budget.record();
    await c.tick();
    const mid = (await json(await c.request("GET", "/api/v1/wallet-watches")))[0].lastSeenSignature;
    expect(mid).toBe(before);
    for (let i = 0; i < 8 && c.signals().length === 0; i++) {
      c.ctx.clock.advance(10_000);
      await c.tick();
      await c.settle();
    }
    expect(c.signals()).toHaveLength(1);
    expect(c.signals()[0].activation_reason).toContain(buy);
  });
});
