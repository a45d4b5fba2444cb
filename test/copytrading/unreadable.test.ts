import { afterEach, describe, expect, test } from "bun:test";
import type { ServiceEvent } from "../../src/events/bus.ts";
import { json } from "../helpers/context.ts";
import { type CopyContext, MINT, MINT2, startCopy, W } from "./copy-context.ts";

// A followed wallet's transaction we cannot read (issue 40, item 5): a version 1 transaction
// (SIMD-0296) answers getTransaction with -32015 under maxSupportedTransactionVersion 0, as the
// fake node does. It is shown (an event to the watch's owner, a counter in /metrics) and passed
// over: the cursor moves past it and the trades around it are copied.

let c: CopyContext;
afterEach(async () => {
  await c?.close();
});

describe("a transaction we cannot read", () => {
  test("a version 1 transaction between two buys: both buys copied, the cursor passes it, it is shown and counted", async () => {
    c = await startCopy();
    const events: ServiceEvent[] = [];
    c.ctx.services.events.subscribe((e) => events.push(e));
    const watch = await c.watch();
    c.ctx.clock.advance(1_000);
    c.trade({ sol: 0.5 });
    c.ctx.clock.advance(1_000);
    const v1 = c.trade({ sol: 0.7, mint: MINT2, version: 1 });
    c.ctx.clock.advance(1_000);
    const last = c.trade({ sol: 0.3, mint: MINT2 });
    c.ctx.clock.advance(1_000);
    await c.tick();
    await c.settle();

    expect(c.signals().map((s) => s.token_address)).toEqual([MINT, MINT2]);
    const after = await json(await c.request("GET", `/api/v1/wallet-watches/${watch.id}`));
    expect(after.lastSeenSignature).toBe(last);
    expect(after.lastError).toBeNull();
    const shown = events.filter((e) => e.type === "wallet_watch.unreadable");
    expect(shown).toHaveLength(1);
    expect(shown[0]!.userId).toBe(c.userId);
    expect(shown[0]!.data).toMatchObject({ watchId: watch.id, address: W, signature: v1, reason: "version" });
    expect(String(shown[0]!.data.message)).toContain("version 1");
    const metrics = await (await c.request("GET", "/metrics")).text();
    expect(metrics).toContain('copy_trading_ignored_total{reason="unreadable"} 1');

    // Decided once: the next poll neither reads it again nor shows it twice.
    const reads = c.rpc.callsOf("getTransaction").length;
    await c.tick();
    expect(c.rpc.callsOf("getTransaction").length).toBe(reads);
    expect(events.filter((e) => e.type === "wallet_watch.unreadable")).toHaveLength(1);
  });

  test("any other read failure still holds the cursor (nothing is skipped over a node that failed)", async () => {
    c = await startCopy();
    const watch = await c.watch();
    c.ctx.clock.advance(1_000);
    c.trade({ sol: 0.5 });
    c.ctx.clock.advance(1_000);
    c.rpc.failNext("getTransaction", { code: -32603, message: "Internal error" });
    await c.tick();
    const held = await json(await c.request("GET", `/api/v1/wallet-watches/${watch.id}`));
    expect(held.lastSeenSignature).toBeNull();
    expect(held.lastError).not.toBeNull();
    await c.tick();
    await c.settle();
    expect(c.signals()).toHaveLength(1);
  });
});
