import { afterEach, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { createApiKey, createUser, json } from "../helpers/context.ts";
import { type CopyContext, MINT, MINT2, SOL_MINT, startCopy, W } from "./copy-context.ts";

// Copy trading end to end (issue "Copy trading", acceptance): a watched wallet's swaps on the fake
// chain (served by the fake RPC as a node serves them) through the watcher, the normal signal
// intake and the real signal processor to an automated agent's position.

let c: CopyContext;
afterEach(async () => {
  await c?.close();
});

const position = async (agentId: string) => {
  const res = await c.request("GET", `/api/v1/agent-positions/${agentId}`);
  return (await json(res)) as any[];
};

describe("copy trading", () => {
  test("a 0.5 SOL buy becomes a wallet:<address> signal and a position within two polls; a 0.05 SOL buy does not", async () => {
    c = await startCopy();
    const agentId = await c.agent();
    const watch = await c.watch();
    c.ctx.clock.advance(1_000);
    const big = c.trade({ sol: 0.5 });
    c.trade({ sol: 0.05, mint: MINT2 });
    c.ctx.clock.advance(2_000);
    await c.tick();
    await c.settle();
    if ((await position(agentId)).length === 0) {
      await c.tick();
      await c.settle();
    }

    const signals = c.signals();
    expect(signals).toHaveLength(1);
    const s = signals[0];
    expect(s.source).toBe(`wallet:${W}`);
    expect(s.signal_type).toBe("buy");
    expect(s.token_address).toBe(MINT);
    expect(s.symbol).toBe("BONK");
    expect(s.signal_strength).toBe(3);
    expect(s.api_key_id).toBeNull();
    expect(s.activation_reason).toContain("Whale I follow");
    expect(s.activation_reason).toContain("0.5 SOL");
    expect(s.activation_reason).toContain(big);

    const positions = await position(agentId);
    expect(positions).toHaveLength(1);
    expect(positions[0].tokenAddress).toBe(MINT);

    const after = await json(await c.request("GET", `/api/v1/wallet-watches/${watch.id}`));
    expect(after.lastError).toBeNull();
    expect(after.lagSeconds).toBe(2);
    expect(after.lastSeenSignature).not.toBeNull();

    // The wire format: signatures at confirmed, then each transaction with v0 support.
    const sigCall = c.rpc.callsOf("getSignaturesForAddress")[0]!;
    expect(sigCall[0]).toBe(W);
    expect(sigCall[1]).toMatchObject({ commitment: "confirmed", limit: 100 });
    expect(c.rpc.callsOf("getTransaction")[0]![1]).toMatchObject({
      encoding: "json",
      maxSupportedTransactionVersion: 0,
      commitment: "confirmed",
    });
    // The next poll asks only for what came after the newest one decided.
    await c.tick();
    expect(c.rpc.callsOf("getSignaturesForAddress").at(-1)![1]).toMatchObject({ until: after.lastSeenSignature });

    const trades = await json(await c.request("GET", `/api/v1/wallet-watches/${watch.id}/trades`));
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({
      side: "buy",
      tokenAddress: MINT,
      solAmount: "0.5",
      signalId: s.id,
      signature: big,
    });
    expect(trades[0].processing.evaluations[0]).toMatchObject({ agentId, outcome: "traded" });

    const metrics = await (await c.ctx.request("GET", "/metrics")).text();
    expect(metrics).toContain('copy_trading_transactions_total{outcome="buy"} 1');
    expect(metrics).toContain('copy_trading_transactions_total{outcome="ignored"} 1');
    expect(metrics).toContain("copy_trading_lag_seconds_count 1");
    expect(metrics).toContain('copy_trading_lag_seconds_bucket{le="2"} 1');

    // The signal source report groups the wallet's signals as its track record.
    const report = await json(await c.request("GET", "/api/v1/signal-sources/report"));
    expect(report.sources).toContainEqual(
      expect.objectContaining({ source: `wallet:${W}`, signalType: "buy", count: 1 }),
    );
  });

  test("a copied buy of a mint with a permanent delegate is refused by the same screen: no position", async () => {
    c = await startCopy();
    const agentId = await c.agent();
    const watch = await c.watch();
    // Token-2022 PermanentDelegate (extension 12): its delegate can move any holder's tokens.
    c.rpc.mintExtensions.set(MINT, [{ type: 12, value: Keypair.generate().publicKey.toBytes() }]);
    c.ctx.clock.advance(1_000);
    c.trade({ sol: 0.5 });
    c.ctx.clock.advance(2_000);
    await c.tick();
    await c.settle();
    const trades = await json(await c.request("GET", `/api/v1/wallet-watches/${watch.id}/trades`));
    expect(trades).toHaveLength(1);
    const decision = trades[0].processing.evaluations[0];
    expect(decision).toMatchObject({ agentId, outcome: "failed", positionId: null });
    expect(decision.reason).toStartWith("rejectPermanentDelegate: ");
    expect(await position(agentId)).toEqual([]);
  });

  test("a restart copies nothing twice, even when the cursor was not written", async () => {
    c = await startCopy();
    await c.agent();
    const watch = await c.watch();
    c.trade({ sol: 0.5 });
    c.ctx.clock.advance(1_000);
    await c.tick();
    await c.settle();
    expect(c.signals()).toHaveLength(1);

    await c.restart();
    // As if the process died between the signal's commit and the poll's cursor write.
    c.ctx.database.sqlite.run("UPDATE wallet_watches SET last_seen_signature = NULL WHERE id = ?", [watch.id]);
    await c.tick();
    await Promise.all([c.tick(), c.tick()]); // overlapping polls
    await c.settle();
    expect(c.signals()).toHaveLength(1);
    expect(c.ctx.database.sqlite.query("SELECT count(*) AS n FROM wallet_watch_trades").get()).toEqual({ n: 1 });
    const positions = c.ctx.database.sqlite.query("SELECT count(*) AS n FROM positions").get() as { n: number };
    expect(positions.n).toBe(1);
  });

  test("a watch created after a trade does not copy it; re-enabling never copies what happened while paused", async () => {
    c = await startCopy();
    const earlier = c.trade({ sol: 0.5 });
    c.ctx.clock.advance(3_000);
    const watch = await c.watch();
    await c.tick();
    expect(c.signals()).toHaveLength(0);
    const seen = await json(await c.request("GET", `/api/v1/wallet-watches/${watch.id}`));
    expect(seen.lastSeenSignature).toBe(earlier);
    // History is decided from the signature list alone: no transaction was fetched for it.
    expect(c.rpc.callsOf("getTransaction")).toHaveLength(0);

    await c.request("PUT", `/api/v1/wallet-watches/${watch.id}`, { enabled: false });
    c.ctx.clock.advance(1_000);
    c.trade({ sol: 0.7 });
    await c.tick();
    c.ctx.clock.advance(1_000);
    const resumed = await json(await c.request("PUT", `/api/v1/wallet-watches/${watch.id}`, { enabled: true }));
    expect(resumed.lastSeenSignature).toBeNull();
    await c.tick();
    expect(c.signals()).toHaveLength(0);
    c.ctx.clock.advance(1_000);
    c.trade({ sol: 0.6 });
    await c.tick();
    expect(c.signals()).toHaveLength(1);

    // Pointing the watch at another wallet starts it afresh too.
    const moved = await json(
      await c.request("PUT", `/api/v1/wallet-watches/${watch.id}`, {
        address: "DemoCopyAnt11111111111111111111111111111111",
      }),
    );
    expect(moved).toMatchObject({ address: "DemoCopyAnt11111111111111111111111111111111", lastSeenSignature: null });
  });

  test("a transaction older than WALLET_WATCH_MAX_AGE_SECONDS and a failed one are never copied", async () => {
    c = await startCopy({ WALLET_WATCH_MAX_AGE_SECONDS: "30" });
    await c.watch();
    c.ctx.clock.advance(1_000);
    c.trade({ sol: 0.5 });
    c.ctx.clock.advance(31_000); // the watcher was down, or the RPC late
    c.trade({ sol: 0.5, err: { InstructionError: [2, { Custom: 6001 }] } });
    await c.tick();
    expect(c.signals()).toHaveLength(0);
    const metrics = await (await c.ctx.request("GET", "/metrics")).text();
    expect(metrics).toContain('copy_trading_transactions_total{outcome="ignored"} 2');
  });

  test("sells: recorded without a signal unless copySells; with it, agents holding the token close", async () => {
    c = await startCopy();
    const agentId = await c.agent();
    const watch = await c.watch();
    c.ctx.clock.advance(1_000);
    c.trade({ sol: 0.5 });
    await c.tick();
    await c.settle();
    expect(await position(agentId)).toHaveLength(1);

    c.ctx.clock.advance(1_000);
    c.trade({ side: "sell", sol: 0.4, tokens: 1_000_000n });
    await c.tick();
    await c.settle();
    expect(c.signals()).toHaveLength(1);
    const trades = await json(await c.request("GET", `/api/v1/wallet-watches/${watch.id}/trades`));
    expect(trades[0]).toMatchObject({ side: "sell", signalId: null, processing: null });

    await c.request("PUT", `/api/v1/wallet-watches/${watch.id}`, { copySells: true });
    c.ctx.clock.advance(1_000);
    c.trade({ side: "sell", sol: 0.4, tokens: 1_000_000n });
    await c.tick();
    await c.settle();
    const signals = c.signals();
    expect(signals).toHaveLength(2);
    expect(signals[1]).toMatchObject({ signal_type: "sell", token_address: MINT });
    expect(await position(agentId)).toHaveLength(0);
  });

  test("two users following one wallet each get their own signal, seen only by them", async () => {
    c = await startCopy();
    const other = await createUser(c.ctx);
    await c.watch();
    await c.watch({}, other.token);
    c.ctx.clock.advance(1_000);
    c.trade({ sol: 0.5 });
    await c.tick();
    const owners = c.signals().map((s) => s.user_id);
    expect(owners.sort()).toEqual([c.userId, other.user.id].sort());
    const key = (await createApiKey(c.ctx, other.token, ["signals"])).key;
    const theirs = await json(await c.ctx.request("GET", "/api/v1/trading-signals", { apiKey: key }));
    expect(theirs).toHaveLength(1);
    expect(theirs[0].source).toBe(`wallet:${W}`);
  });

  test("a buy paid in wrapped SOL is a buy", async () => {
    c = await startCopy();
    c.rpc.setTokenBalance(W, SOL_MINT, 2_000_000_000n);
    await c.watch();
    c.ctx.clock.advance(1_000);
    c.trade({ sol: 0.5, wrapped: true });
    await c.tick();
    expect(c.signals()).toHaveLength(1);
  });

  test("an RPC failure shows in lastError and clears after a good poll; nothing is skipped over it", async () => {
    c = await startCopy();
    const watch = await c.watch();
    c.rpc.failNext("getSignaturesForAddress", { status: 503 });
    await c.tick();
    const failed = await json(await c.request("GET", `/api/v1/wallet-watches/${watch.id}`));
    expect(failed.lastError).toBe("solanaRpc returned HTTP 503 to getSignaturesForAddress");
    expect(failed.lastError).not.toContain(c.rpc.url);
    await c.tick();
    const ok = await json(await c.request("GET", `/api/v1/wallet-watches/${watch.id}`));
    expect(ok.lastError).toBeNull();

    // A transaction listed but not served: the cursor stays before it, and the next poll copies it.
    c.ctx.clock.advance(1_000);
    const sig = c.trade({ sol: 0.5 });
    c.rpc.failNext("getTransaction", { code: -32009, message: "Slot 310000001 was skipped, or missing" });
    await c.tick();
    const held = await json(await c.request("GET", `/api/v1/wallet-watches/${watch.id}`));
    expect(held.lastError).toContain("getTransaction");
    expect(held.lastSeenSignature).not.toBe(sig);
    expect(c.signals()).toHaveLength(0);
    await c.tick();
    expect(c.signals()).toHaveLength(1);
    expect((await json(await c.request("GET", `/api/v1/wallet-watches/${watch.id}`))).lastSeenSignature).toBe(sig);
  });

  test("the watcher spends only what the RPC budget leaves: live trading first", async () => {
    c = await startCopy();
    await c.watch();
    const budget = c.ctx.services.trading.live!.rpcBudget;
    for (let i = 0; i < budget.limits.backgroundCeiling; i++) budget.record(); // live trading's requests
    const before = c.rpc.calls.length;
    const report = await c.tick();
    expect(report).toMatchObject({ polled: 0, deferred: 1 });
    expect(c.rpc.calls.length).toBe(before);
    c.ctx.clock.advance(budget.limits.windowMs);
    expect((await c.tick()).polled).toBe(1);
  });

  test("without an RPC every enabled watch says why", async () => {
    c = await startCopy({ SOLANA_RPC_URL: "" });
    const watch = await c.watch();
    await c.tick();
    const w = await json(await c.request("GET", `/api/v1/wallet-watches/${watch.id}`));
    expect(w.lastError).toBe("Copy trading needs the Solana RPC: set SOLANA_RPC_URL (or DEMO_MARKET=true)");
  });
});
