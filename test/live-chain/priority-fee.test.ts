import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { SolanaRpcClient, SolanaRpcError } from "../../src/market/solana-rpc.ts";
import {
  capForTrade,
  estimatePriorityFee,
  feeLamports,
  MAX_FEE_ACCOUNTS,
  percentileOf,
  priorityFeeFrom,
  recentPrioritizationFees,
} from "../../src/trading/live/priority-fee.ts";
import { type LiteSvmRpc, startLiteSvmRpc } from "../fakes/litesvm-rpc.ts";
import { startFakeMarket } from "../fakes/market.ts";
import { FakeSolanaRpc } from "../fakes/solana-rpc.ts";

// Priority fees per transaction: a percentile of getRecentPrioritizationFees over the swap's
// writable accounts (the litesvm node answers as a node does), capped in lamports.

describe("the price from per-slot fees", () => {
  test("nearest-rank percentile, 0 without samples", () => {
    const fees = [5n, 1n, 4n, 2n, 3n];
    expect(percentileOf(fees, 75)).toBe(4n);
    expect(percentileOf(fees, 50)).toBe(3n);
    expect(percentileOf(fees, 100)).toBe(5n);
    expect(percentileOf(fees, 0)).toBe(1n);
    expect(percentileOf([], 75)).toBe(0n);
  });

  test("cost rounds up as the runtime charges; the cap lowers the price so the cost stays within it", () => {
    expect(feeLamports(1n, 400_000)).toBe(1n); // 0.4 lamports charged as 1
    const fee = priorityFeeFrom([10_000n, 20_000n, 30_000n, 40_000n], {
      percentile: 75,
      maxLamports: 1_000_000n,
      maxBps: 10_000,
      computeUnitLimit: 400_000,
    });
    expect(fee).toEqual({ microLamportsPerUnit: 30_000n, lamports: 12_000n, capped: false, samples: 4 });
    const capped = priorityFeeFrom([10_000_000n], {
      percentile: 75,
      maxLamports: 1_000n,
      maxBps: 10_000,
      computeUnitLimit: 300_000,
    });
    expect(capped.capped).toBe(true);
    expect(capped.microLamportsPerUnit).toBe(3_333n);
    expect(capped.lamports).toBe(1_000n); // 3333 × 300000 / 1e6 = 999.9 → 1000, not above the cap
  });
});

test("capForTrade: the lower of the absolute cap and maxBps of the trade's SOL wins, rounded down", () => {
  const setting = { percentile: 75, maxLamports: 1_000_000n, maxBps: 50, computeUnitLimit: 400_000 };
  expect(capForTrade(setting, 50_000_000n).maxLamports).toBe(250_000n); // 0.05 SOL: 50 bps
  expect(capForTrade(setting, 10_000_000_000n).maxLamports).toBe(1_000_000n); // 10 SOL: the absolute cap
  expect(capForTrade(setting, 199n).maxLamports).toBe(0n); // 0.995 lamports: nothing
  expect(capForTrade(setting, -5n).maxLamports).toBe(0n);
  const congested = priorityFeeFrom([100_000_000n], capForTrade(setting, 50_000_000n));
  expect(congested).toMatchObject({ lamports: 250_000n, capped: true });
});

describe("over RPC", () => {
  let chain: LiteSvmRpc;
  let rpc: SolanaRpcClient;
  beforeEach(async () => {
    chain = await startLiteSvmRpc();
    rpc = new SolanaRpcClient({ url: chain.url, timeoutMs: 5_000 });
  });
  afterEach(() => chain.stop());

  test("the busiest of the swap's accounts sets each slot's fee", async () => {
    const [a, b] = [Keypair.generate().publicKey.toBase58(), Keypair.generate().publicKey.toBase58()];
    chain.recentFees = [
      { slot: 1, fee: 100, accounts: { [a]: 5_000 } },
      { slot: 2, fee: 100, accounts: { [b]: 9_000 } },
      { slot: 3, fee: 100 },
      { slot: 4, fee: 200, accounts: { [a]: 1_000 } },
    ];
    expect(await recentPrioritizationFees(rpc, [a])).toEqual([5_000n, 100n, 100n, 1_000n]);
    expect(await recentPrioritizationFees(rpc, [a, b, a])).toEqual([5_000n, 9_000n, 100n, 1_000n]);
    expect(chain.calls.at(-1)?.params[0]).toEqual([a, b]); // duplicates sent once
    const fee = await estimatePriorityFee(rpc, [a, b], {
      percentile: 75,
      maxLamports: 1_000_000n,
      maxBps: 10_000,
      computeUnitLimit: 200_000,
    });
    expect(fee).toEqual({ microLamportsPerUnit: 5_000n, lamports: 1_000n, capped: false, samples: 4 });
  });

  test("a quiet node (no samples) prices at 0; more than 128 accounts are cut to the node's limit", async () => {
    const many = Array.from({ length: 130 }, () => Keypair.generate().publicKey.toBase58());
    const fee = await estimatePriorityFee(rpc, many, {
      percentile: 75,
      maxLamports: 1_000n,
      maxBps: 10_000,
      computeUnitLimit: 200_000,
    });
    expect(fee.lamports).toBe(0n);
    expect((chain.calls.at(-1)!.params[0] as string[]).length).toBe(MAX_FEE_ACCOUNTS);
    const err = (await rpc.call("getRecentPrioritizationFees", [many]).catch((e: unknown) => e)) as SolanaRpcError;
    expect(err).toBeInstanceOf(SolanaRpcError);
    expect(err.message).toContain("max 128");
  });
});

test("the market's Solana RPC fake answers getRecentPrioritizationFees the same way", async () => {
  const fake = await startFakeMarket();
  try {
    const node = new FakeSolanaRpc(fake);
    const a = Keypair.generate().publicKey.toBase58();
    node.recentFees = [
      { slot: 1, fee: 0, accounts: { [a]: 7_000 } },
      { slot: 2, fee: 50 },
    ];
    const rpc = new SolanaRpcClient({ url: node.url, timeoutMs: 5_000 });
    expect(await recentPrioritizationFees(rpc, [a])).toEqual([7_000n, 50n]);
    expect(await recentPrioritizationFees(rpc, [])).toEqual([0n, 50n]);
  } finally {
    await fake.stop();
  }
});
