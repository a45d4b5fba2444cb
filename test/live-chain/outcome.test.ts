import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type Clock, ManualClock } from "../../src/clock.ts";
import { rpcSendChain } from "../../src/trading/live/chain-reads.ts";
import {
  type AttemptState,
  broadcastUntilSettled,
  classifyAttempt,
  classifySend,
  judgeAttempt,
} from "../../src/trading/live/outcome.ts";
import type { Pool } from "../fakes/chain-aggregator.ts";
import { type ChainContext, signedBase64, startChain } from "./chain-context.ts";

const confirmed = (slot: number, err: unknown = null) => ({
  slot,
  confirmations: 1,
  err,
  confirmationStatus: "confirmed" as const,
});

describe("classifySend: every send error is maybe sent", () => {
  test.each([
    ["no error", undefined, "sent"],
    ["JSON-RPC error", new Error("solanaRpc error on sendTransaction (-32005): Node is unhealthy"), "maybe-sent"],
    ["timeout", new Error("solanaRpc did not answer sendTransaction within 5000 ms"), "maybe-sent"],
    ["preflight failure", new Error("(-32002): Transaction simulation failed"), "maybe-sent"],
    ["not an Error", "socket hang up", "maybe-sent"],
  ])("%s", (_n, error, kind) => {
    expect(classifySend("SIG", error).kind).toBe(kind as "sent" | "maybe-sent");
  });
});

describe("classifyAttempt: expired only when a status read after the height passed proves it", () => {
  const lv = 1_150;
  const cases: Array<[string, Parameters<typeof classifyAttempt>[0], AttemptState["kind"]]> = [
    [
      "confirmed",
      { lastValidBlockHeight: lv, height: null, status: { contextSlot: 5, status: confirmed(4) } },
      "landed",
    ],
    [
      "landed failed",
      {
        lastValidBlockHeight: lv,
        height: null,
        status: { contextSlot: 5, status: confirmed(4, { InstructionError: [2, { Custom: 1 }] }) },
      },
      "failed",
    ],
    [
      "processed only",
      {
        lastValidBlockHeight: lv,
        height: null,
        status: { contextSlot: 5, status: { ...confirmed(4), confirmationStatus: "processed" } },
      },
      "pending",
    ],
    [
      "unknown, height unknown",
      { lastValidBlockHeight: lv, height: null, status: { contextSlot: 9, status: null } },
      "pending",
    ],
    [
      "unknown, height at last valid",
      {
        lastValidBlockHeight: lv,
        height: { slot: 1_250, blockHeight: lv },
        status: { contextSlot: 1_250, status: null },
      },
      "pending",
    ],
    [
      "unknown, height past, status from a lagging node",
      {
        lastValidBlockHeight: lv,
        height: { slot: 1_251, blockHeight: lv + 1 },
        status: { contextSlot: 1_250, status: null },
      },
      "pending",
    ],
    [
      "unknown, height past, status at that slot",
      {
        lastValidBlockHeight: lv,
        height: { slot: 1_251, blockHeight: lv + 1 },
        status: { contextSlot: 1_251, status: null },
      },
      "expired",
    ],
    [
      "found even though the height is past",
      {
        lastValidBlockHeight: lv,
        height: { slot: 1_300, blockHeight: lv + 50 },
        status: { contextSlot: 1_300, status: confirmed(1_200) },
      },
      "landed",
    ],
  ];
  test.each(cases)("%s", (_n, input, kind) => {
    expect(classifyAttempt(input).kind).toBe(kind);
  });
});

// A clock whose waits move the litesvm chain too: 400 ms per slot, as on mainnet.
function chainClock(c: ChainContext): Clock & { manual: ManualClock } {
  const manual = new ManualClock();
  return {
    manual,
    now: () => manual.now(),
    async sleep(ms) {
      await manual.sleep(ms);
      c.chain.advance(Math.floor(ms / 400));
    },
  };
}

describe("broadcastUntilSettled against litesvm", () => {
  let c: ChainContext;
  let pool: Pool;
  beforeEach(async () => {
    c = await startChain();
    pool = c.aggregator.addPool({ lamportsPerToken: 1_000_000n });
  });
  afterEach(() => c.close());

  async function signedBuy() {
    const s = await c.swap("buy", pool, 100_000_000n);
    const raw = signedBase64(s.tx, c.wallet);
    const signature = (await import("bs58")).default.encode(s.tx.signatures[0]!);
    // The bound of the blockhash the transaction carries (the chain's latest, which the fake built on).
    const { blockhash, lastValidBlockHeight } = c.chain.latestBlockhash();
    expect(s.tx.message.recentBlockhash).toBe(blockhash);
    const attempt = { signature, blockhash, lastValidBlockHeight, signedAtSlot: c.chain.slot };
    return { raw, signature, lastValidBlockHeight, attempt };
  }

  test("a send that errors but lands is found by its signature, and landed once", async () => {
    const b = await signedBuy();
    c.chain.sendModes.push({ kind: "error-but-land" });
    const clock = chainClock(c);
    const r = await broadcastUntilSettled(
      { chain: rpcSendChain(c.rpc), clock },
      { signedBase64: b.raw, attempt: b.attempt },
    );
    expect(r.state.kind).toBe("landed");
    expect(r.sendErrors).toBe(1);
    expect(r.sends).toBe(1);
    expect(c.chain.landed.has(b.signature)).toBe(true);
    expect([...c.chain.landed.values()].filter((t) => t.signature === b.signature)).toHaveLength(1);
    expect((await c.rpc.getTokenBalances(c.wallet.publicKey.toBase58())).get(pool.mint.toBase58())?.amount).toBe(
      100_000_000n,
    );
  });

  test("dropped sends are rebroadcast every 2 s with the same bytes and maxRetries 0 until it lands", async () => {
    const b = await signedBuy();
    c.chain.sendModes.push({ kind: "drop" }, { kind: "error" }, { kind: "drop" });
    const clock = chainClock(c);
    const r = await broadcastUntilSettled(
      { chain: rpcSendChain(c.rpc), clock },
      { signedBase64: b.raw, attempt: b.attempt },
    );
    expect(r.state.kind).toBe("landed");
    expect(r.sends).toBe(4);
    expect(clock.manual.sleeps).toEqual([2_000, 2_000, 2_000, 2_000]);
    const sends = c.chain.calls.filter((x) => x.method === "sendTransaction");
    expect(new Set(sends.map((x) => x.params[0]))).toEqual(new Set([b.raw]));
    expect(sends.every((x) => (x.params[1] as { maxRetries: number }).maxRetries === 0)).toBe(true);
    expect(c.chain.sends).toEqual([b.signature, b.signature, b.signature, b.signature]);
  });

  test("expiry is proven only once the chain is past lastValidBlockHeight, and not by a lagging node", async () => {
    const b = await signedBuy();
    const chain = rpcSendChain(c.rpc);
    // Never lands: every send dropped.
    for (let i = 0; i < 200; i++) c.chain.sendModes.push({ kind: "drop" });
    const clock = chainClock(c);
    // Before the height passes: still pending after 10 rounds (20 s = 50 slots).
    const early = await broadcastUntilSettled(
      { chain, clock },
      { signedBase64: b.raw, attempt: b.attempt, maxRounds: 10 },
    );
    expect(early.state.kind).toBe("pending");
    expect(c.chain.blockHeight).toBeLessThanOrEqual(b.lastValidBlockHeight);

    // Past the height, but the status node lags behind the height read: not proof.
    c.chain.advance(b.lastValidBlockHeight - c.chain.blockHeight + 1);
    const height = await chain.readHeight();
    c.chain.lagSlots = 3;
    const lagging = await chain.readStatus(b.signature);
    expect(classifyAttempt({ lastValidBlockHeight: b.lastValidBlockHeight, height, status: lagging }).kind).toBe(
      "pending",
    );
    c.chain.lagSlots = 0;

    const late = await broadcastUntilSettled(
      { chain, clock },
      { signedBase64: b.raw, attempt: b.attempt, maxRounds: 10 },
    );
    expect(late.state.kind).toBe("expired");
    expect(late.sends).toBe(1); // past the height nothing more is sent after this round's read
    expect(c.chain.landed.has(b.signature)).toBe(false);
  });

  test("a landed transaction the lagging node has not seen yet is never called expired", async () => {
    const b = await signedBuy();
    await c.rpc.sendTransaction(b.raw, { skipPreflight: true }); // lands at the current slot
    c.chain.advance(b.lastValidBlockHeight - c.chain.blockHeight + 1);
    const chain = rpcSendChain(c.rpc);
    const height = await chain.readHeight();
    c.chain.lagSlots = c.chain.slot - c.chain.landed.get(b.signature)!.slot + 1; // node before the landing
    const status = await chain.readStatus(b.signature);
    expect(status.status).toBeNull();
    expect(classifyAttempt({ lastValidBlockHeight: b.lastValidBlockHeight, height, status }).kind).toBe("pending");
  });

  test("judgeAttempt: past the height and unknown to the node is expired only when the node's history reaches the signing slot; else unknown", async () => {
    const b = await signedBuy();
    const chain = rpcSendChain(c.rpc);
    await c.rpc.sendTransaction(b.raw, { skipPreflight: true }); // it DID land
    const landedAt = c.chain.landed.get(b.signature)!.slot;
    c.chain.advance(b.lastValidBlockHeight - c.chain.blockHeight + 1);
    // A node that pruned the landing slot answers null for it: that null must not be proof.
    c.chain.firstAvailableSlot = landedAt + 1;
    const height = await chain.readHeight();
    const status = await chain.readStatus(b.signature);
    expect(status.status).toBeNull();
    expect(classifyAttempt({ lastValidBlockHeight: b.lastValidBlockHeight, height, status }).kind).toBe("expired");
    const judged = await judgeAttempt(chain, b.attempt, height, status);
    expect(judged.kind).toBe("unknown");
    // A node with history back to the signing slot finds it: landed.
    c.chain.firstAvailableSlot = 0;
    const full = await chain.readStatus(b.signature);
    expect((await judgeAttempt(chain, b.attempt, await chain.readHeight(), full)).kind).toBe("landed");
  });

  test("judgeAttempt: a transaction that never landed is expired with full history, and pending while its blockhash is still valid", async () => {
    const b = await signedBuy();
    const chain = rpcSendChain(c.rpc);
    // The recorded height claims expiry early (as a stale one would): the node still accepts the blockhash.
    const early = { ...b.attempt, lastValidBlockHeight: c.chain.blockHeight - 1 };
    const h0 = await chain.readHeight();
    const s0 = await chain.readStatus(b.signature);
    expect((await judgeAttempt(chain, early, h0, s0)).kind).toBe("pending");
    c.chain.advance(b.lastValidBlockHeight - c.chain.blockHeight + 1);
    const height = await chain.readHeight();
    const status = await chain.readStatus(b.signature);
    expect((await judgeAttempt(chain, b.attempt, height, status)).kind).toBe("expired");
  });
});
