import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import type { VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import { rpcInspectorChain } from "../../src/trading/live/chain-reads.ts";
import { allowedPrograms, type SwapIntent } from "../../src/trading/live/inspection-rules.ts";
import { inspectSwapTransaction } from "../../src/trading/live/transaction-inspector.ts";
import type { Pool } from "../fakes/chain-aggregator.ts";
import { SLIPPAGE_TOLERANCE_EXCEEDED } from "../fakes/jupiter-program.ts";
import { type ChainContext, signedBase64, startChain } from "./chain-context.ts";

// Issue 40 item 1 on the chain: what happens between the simulation and landing is bounded by the
// signed bytes alone. The route is a Token-2022 pool's; after the inspection's simulation passed,
// the mint's fee authority's scheduled transfer fee comes into force (the chain's epoch moves on),
// so the very same signed bytes deliver less than they did in the simulation, as after a sandwich.
// The fake Jupiter program (test/fakes/jupiter-program.ts) enforces the minimum written in the
// route instruction's data. Against the inspection of v1 mode (which may tighten the route's bytes):
// a loss beyond the asked slippage fails on chain, costing only the fee, whatever slippage the
// aggregator wrote; one within it lands. Without the inspection, a route at slippage_bps 10 000
// lands the whole loss: the gap issue 40 closed.

const AMOUNT = 100_000_000n; // 0.1 SOL at 0.001 SOL per token: 100 tokens
const FLOOR_BPS = 300n;
const MAX_FEE = 5_000n + 100_000n;
let c: ChainContext;

beforeAll(async () => {
  c = await startChain();
});
afterAll(() => c.close());

/** A Token-2022 pool whose transfer fee is 0 now; the mint's authority may schedule another. */
const freshPool = () =>
  c.aggregator.addPool({
    lamportsPerToken: 1_000_000n,
    decimals: 6,
    token2022: true,
    transferFeeBps: 0,
    maxTransferFee: 1_000_000_000_000n,
  });

/** Our floor: the quote's output less the agent's 300 bps (the Price API agrees with the pool here). */
async function quoteBuy(pool: Pool): Promise<{ tx: VersionedTransaction; intent: SwapIntent }> {
  const s = await c.swap("buy", pool, AMOUNT, { slippageBps: Number(FLOOR_BPS) });
  return { tx: s.tx, intent: { ...s.intent, minOutAmount: (s.outAmount * (10_000n - FLOOR_BPS)) / 10_000n } };
}

const inspect = (tx: VersionedTransaction, intent: SwapIntent) =>
  inspectSwapTransaction(
    { chain: rpcInspectorChain(c.rpc), allowedPrograms: allowedPrograms() },
    { transaction: tx, wallet: c.wallet.publicKey.toBase58(), intent, maxFeeLamports: MAX_FEE, tightenRoute: true },
  );

/** The sandwich: the fee `bps` scheduled before, in force at landing (two epochs on). */
function afterSimulation(pool: Pool, bps: number) {
  c.aggregator.setTransferFee(pool, bps);
  return () => {
    const clock = c.chain.svm.getClock();
    clock.epoch = clock.epoch + 2n;
    c.chain.svm.setClock(clock);
  };
}

function land(tx: VersionedTransaction, pool: Pool) {
  const wallet = c.wallet.publicKey;
  const tokens = getAssociatedTokenAddressSync(pool.mint, wallet, false, pool.programId);
  const before = c.chain.lamportsOf(wallet);
  const r = c.chain.rpcCall("sendTransaction", [
    signedBase64(tx, c.wallet),
    { encoding: "base64", skipPreflight: true },
  ]);
  expect(r.error).toBeUndefined();
  const landed = c.chain.landed.get(bs58.encode(tx.signatures[0]!))!;
  const account = c.chain.svm.getAccount(tokens);
  const received = account ? Buffer.from(account.data).readBigUInt64LE(64) : 0n;
  return { landed, received, lamportsOut: before - c.chain.lamportsOf(wallet) };
}

describe("a sandwich after the simulation takes no more than the asked slippage", () => {
  test("honest bytes at 300 bps: a landing that would deliver half fails on chain (6001); the wallet pays only the fee", async () => {
    const pool = freshPool();
    const { tx, intent } = await quoteBuy(pool);
    const sandwich = afterSimulation(pool, 5_000);
    const report = await inspect(tx, intent);
    expect(report.instructions.route?.tightenedFromBps).toBeNull();
    sandwich();
    const { landed, received, lamportsOut } = land(tx, pool);
    expect(JSON.stringify(landed.err)).toContain(String(SLIPPAGE_TOLERANCE_EXCEEDED));
    expect(received).toBe(0n);
    expect(lamportsOut).toBe(landed.fee);
  });

  test("route bytes at slippage_bps 10 000 (JSON 300): tightened to ours before signing, so the same landing fails as well", async () => {
    const pool = freshPool();
    c.aggregator.tamper = { route: { slippageBps: 10_000 } };
    const { tx, intent } = await quoteBuy(pool);
    c.aggregator.tamper = {};
    const sandwich = afterSimulation(pool, 5_000);
    const report = await inspect(tx, intent);
    expect(report.instructions.route).toMatchObject({ tightenedFromBps: 10_000, slippageBps: 300 });
    expect(report.instructions.route!.minimum).toBeGreaterThanOrEqual(intent.minOutAmount);
    sandwich();
    const { landed, received, lamportsOut } = land(tx, pool);
    expect(JSON.stringify(landed.err)).toContain(String(SLIPPAGE_TOLERANCE_EXCEEDED));
    expect(received).toBe(0n);
    expect(lamportsOut).toBe(landed.fee);
  });

  test("the same hostile bytes signed without the inspection (as before issue 40): half the tokens land", async () => {
    const pool = freshPool();
    c.aggregator.tamper = { route: { slippageBps: 10_000 } };
    const { tx, intent } = await quoteBuy(pool);
    c.aggregator.tamper = {};
    afterSimulation(pool, 5_000)();
    const { landed, received } = land(tx, pool);
    expect(landed.err).toBeNull();
    expect(received).toBeLessThan(intent.minOutAmount);
    expect(received).toBe(50_000_000n); // half the quoted 100 tokens
  });

  test("a loss within the asked slippage (a 2 % fee against 300 bps) lands, and the wallet gets at least our floor", async () => {
    const pool = freshPool();
    const { tx, intent } = await quoteBuy(pool);
    const sandwich = afterSimulation(pool, 200);
    await inspect(tx, intent);
    sandwich();
    const { landed, received } = land(tx, pool);
    expect(landed.err).toBeNull();
    expect(received).toBeGreaterThanOrEqual(intent.minOutAmount);
    expect(received).toBeLessThan((intent.minOutAmount * 10_000n) / (10_000n - FLOOR_BPS));
  });
});
