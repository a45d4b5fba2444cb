import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { ComputeBudgetProgram, Keypair, SystemProgram } from "@solana/web3.js";
import type { BuildResponse, JupiterSwapV2Client } from "../../src/market/jupiter-swap-v2.ts";
import { solDelta, tokenDelta } from "../../src/market/landed-transaction.ts";
import { SOL_MINT } from "../../src/money.ts";
import { prepareBuildSwap, writableAccounts } from "../../src/trading/live/build-assembly.ts";
import { rpcInspectorChain } from "../../src/trading/live/chain-reads.ts";
import { allowedPrograms, type SwapIntent, transactionFee } from "../../src/trading/live/inspection-rules.ts";
import { estimatePriorityFee } from "../../src/trading/live/priority-fee.ts";
import { SwapRefusedError } from "../../src/trading/live/transaction-inspector.ts";
import { MEMO_PROGRAM, type Pool } from "../fakes/chain-aggregator.ts";
import { FAKE_BUILD_MICRO_LAMPORTS } from "../fakes/chain-aggregator-v2.ts";
import { type ChainContext, signedBase64, startChain, WALLET_LAMPORTS } from "./chain-context.ts";

// Swap API v2 `build` end to end on litesvm: /build's instructions (from the fake aggregator over
// HTTP) assembled with our blockhash, compute-unit limit and priority fee, inspected instruction
// by instruction and by simulation, signed, sent and landed; hostile answers refused before any
// signature.

const LIMIT = 300_000;
const MAX_FEE = 5_000n + 1_000_000n;
const TOKEN_RENT = 2_039_280n;
let c: ChainContext;
let pool: Pool;
let wallet: string;
let v2: JupiterSwapV2Client;

beforeEach(async () => {
  c = await startChain();
  pool = c.aggregator.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 }); // 0.001 SOL per token
  wallet = c.wallet.publicKey.toBase58();
  v2 = c.buildSwaps;
  c.aggregator.v1Retired = true; // nothing here may speak v1
});
afterEach(() => c.close());

async function build(side: "buy" | "sell", amount: bigint) {
  const mint = pool.mint.toBase58();
  const r = await v2.build(
    {
      inputMint: side === "buy" ? SOL_MINT : mint,
      outputMint: side === "buy" ? mint : SOL_MINT,
      amount: amount.toString(),
      slippageBps: 100,
    },
    wallet,
  );
  const intent: SwapIntent = { side, mint, inAmount: amount, minOutAmount: BigInt(r.quote.otherAmountThreshold) };
  return { ...r, intent };
}

async function prepare(b: BuildResponse, intent: SwapIntent, micro = 1_000n, extra: string[] = []) {
  const blockhash = c.chain.latestBlockhash().blockhash;
  return prepareBuildSwap(
    { chain: rpcInspectorChain(c.rpc) },
    {
      build: b,
      taker: wallet,
      intent,
      blockhash,
      computeUnitLimit: LIMIT,
      microLamportsPerUnit: micro,
      allowedPrograms: allowedPrograms(extra),
      maxFeeLamports: MAX_FEE,
    },
  );
}

async function send(tx: Awaited<ReturnType<typeof prepare>>["transaction"]) {
  const sig = await c.rpc.sendTransaction(signedBase64(tx, c.wallet), { skipPreflight: false });
  return (await c.rpc.getTransaction(sig))!;
}

describe("build: assembled here, inspected, landed", () => {
  test("buy: our compute budget replaces Jupiter's, our blockhash, lookup table from the chain; lands with the quote", async () => {
    const { build: b, intent, quote } = await build("buy", 100_000_000n);
    expect(c.aggregator.v2.buildRequests[0]?.get("taker")).toBe(wallet);
    const p = await prepare(b, intent, 2_000n);
    const msg = p.transaction.message;
    expect(msg.recentBlockhash).toBe(c.chain.latestBlockhash().blockhash);
    expect(msg.addressTableLookups.map((l) => l.accountKey.toBase58())).toEqual([pool.lookupTable.toBase58()]);
    const keys = msg.staticAccountKeys.map((k) => k.toBase58());
    const budget = msg.compiledInstructions.filter(
      (ix) => keys[ix.programIdIndex] === ComputeBudgetProgram.programId.toBase58(),
    );
    expect(budget.map((ix) => ix.data[0])).toEqual([2, 3]); // one limit, one price: ours only
    const fee = transactionFee(
      msg.compiledInstructions.map((ix) => ({ programId: keys[ix.programIdIndex]!, data: ix.data })),
      1,
    );
    expect(fee.computeUnitLimit).toBe(BigInt(LIMIT));
    expect(fee.microLamportsPerUnit).toBe(2_000n); // not FAKE_BUILD_MICRO_LAMPORTS
    expect(fee.microLamportsPerUnit).not.toBe(BigInt(FAKE_BUILD_MICRO_LAMPORTS));
    expect(p.report.feeLamports).toBe(5_000n + 600n); // 2000 µL × 300k CU = 600 lamports
    expect(p.report.instructions.wrappedLamports).toBe(100_000_000n);
    expect(p.report.instructions.inputOut).toBe(100_000_000n);
    expect(p.report.effect.tokenDelta).toBe(BigInt(quote.outAmount));

    const landed = await send(p.transaction);
    expect(landed.err).toBeNull();
    expect(solDelta(landed, wallet)).toBe(-(100_000_000n + 5_600n + TOKEN_RENT));
    expect(tokenDelta(landed, wallet, pool.mint.toBase58())).toBe(100_000_000n);
    expect(c.chain.lamportsOf(wallet)).toBe(WALLET_LAMPORTS - 100_000_000n - 5_600n - TOKEN_RENT);
  });

  test("sell: tokens out of the wallet's own account, SOL back through wSOL closed by the cleanup", async () => {
    const first = await build("buy", 100_000_000n);
    await send((await prepare(first.build, first.intent)).transaction);
    const before = c.chain.lamportsOf(wallet);
    const { build: b, intent } = await build("sell", 40_000_000n);
    const p = await prepare(b, intent);
    expect(p.report.instructions.inputOut).toBe(40_000_000n);
    expect(p.report.instructions.wrappedLamports).toBe(0n);
    const landed = await send(p.transaction);
    expect(landed.err).toBeNull();
    expect(c.chain.lamportsOf(wallet)).toBe(before + 40_000_000n - p.report.feeLamports);
    expect(tokenDelta(landed, wallet, pool.mint.toBase58())).toBe(-40_000_000n);
  });

  test("priority fee from getRecentPrioritizationFees over the route's writable accounts, then landed at that price", async () => {
    const { build: b, intent } = await build("buy", 50_000_000n);
    const writable = writableAccounts(b, wallet);
    expect(writable).toContain(wallet);
    expect(writable).toContain(pool.tokenAccount.toBase58());
    c.chain.recentFees = [1, 2, 3, 4].map((i) => ({
      slot: 990 + i,
      fee: 10,
      accounts: { [pool.tokenAccount.toBase58()]: i * 1_000 },
    }));
    const fee = await estimatePriorityFee(c.rpc, writable, {
      percentile: 75,
      maxLamports: 1_000_000n,
      maxBps: 10_000,
      computeUnitLimit: LIMIT,
    });
    expect(c.chain.calls.find((x) => x.method === "getRecentPrioritizationFees")?.params[0]).toEqual(writable);
    expect(fee.microLamportsPerUnit).toBe(3_000n);
    expect(fee.lamports).toBe(900n);
    const p = await prepare(b, intent, fee.microLamportsPerUnit);
    expect(p.report.feeLamports).toBe(5_000n + fee.lamports);
    expect((await send(p.transaction)).feeLamports).toBe(5_000n + fee.lamports);
  });
});

describe("build: refused before signing", () => {
  test("hostile: an extra SOL transfer out of the taker is refused by the instruction check; nothing simulated or sent", async () => {
    c.aggregator.mode = "hostile";
    const { build: b, intent } = await build("buy", 100_000_000n);
    const err = await prepare(b, intent).catch((e) => e);
    expect(err).toBeInstanceOf(SwapRefusedError);
    expect(err.check).toBe("sol");
    expect(err.message).toContain(`transfer 50000000 lamports from the wallet to ${c.aggregator.thief.toBase58()}`);
    expect(c.chain.calls.map((x) => x.method)).not.toContain("simulateTransaction");
    expect(c.chain.sends).toEqual([]);
    expect(c.chain.lamportsOf(c.aggregator.thief)).toBe(0n);
  });

  test("hostile sell is refused the same way", async () => {
    const first = await build("buy", 100_000_000n);
    await send((await prepare(first.build, first.intent)).transaction);
    c.aggregator.mode = "hostile";
    const { build: b, intent } = await build("sell", 10_000_000n);
    expect((await prepare(b, intent).catch((e) => e)).check).toBe("sol");
  });

  test("a program outside the allow-list is refused; LIVE_EXTRA_PROGRAMS admits it", async () => {
    c.aggregator.mode = "foreign-program";
    const { build: b, intent } = await build("buy", 10_000_000n);
    const err = await prepare(b, intent).catch((e) => e);
    expect(err.check).toBe("programs");
    expect(err.message).toContain(MEMO_PROGRAM.toBase58());
    const p = await prepare(b, intent, 1_000n, [MEMO_PROGRAM.toBase58()]);
    expect((await send(p.transaction)).err).toBeNull();
  });

  test("a compute-budget instruction hidden in setup, or Jupiter's list naming another program, is refused", async () => {
    const { build: b, intent } = await build("buy", 10_000_000n);
    const price = ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 10_000_000 });
    const hidden = {
      programId: price.programId.toBase58(),
      accounts: [],
      data: Buffer.from(price.data).toString("base64"),
    };
    const e1 = await prepare({ ...b, setupInstructions: [hidden, ...b.setupInstructions] }, intent).catch((e) => e);
    expect(e1.check).toBe("fee");
    const e2 = await prepare({ ...b, computeBudgetInstructions: [b.setupInstructions[0]!] }, intent).catch((e) => e);
    expect(e2.check).toBe("programs");
  });

  test("another signer, or a lookup table listed unlike the chain holds it, is refused", async () => {
    const { build: b, intent } = await build("buy", 10_000_000n);
    const stranger = Keypair.generate().publicKey.toBase58();
    const swap = {
      ...b.swapInstruction,
      accounts: [...b.swapInstruction.accounts, { pubkey: stranger, isSigner: true, isWritable: false }],
    };
    expect((await prepare({ ...b, swapInstruction: swap }, intent).catch((e) => e)).check).toBe("signers");
    const [table, listed] = Object.entries(b.addressesByLookupTableAddress ?? {})[0]!;
    const lie = { [table]: [stranger, ...listed.slice(1)] };
    const err = await prepare({ ...b, addressesByLookupTableAddress: lie }, intent).catch((e) => e);
    expect(err.check).toBe("programs");
    expect(err.message).toContain("does not hold what the aggregator listed");
  });

  test("wrapping more SOL than the input is refused", async () => {
    const { build: b, intent } = await build("buy", 10_000_000n);
    const wrap = b.setupInstructions.find((ix) => ix.programId === SystemProgram.programId.toBase58())!;
    const err = await prepare({ ...b, setupInstructions: [...b.setupInstructions, wrap] }, intent).catch((e) => e);
    expect(err.check).toBe("sol");
    expect(err.message).toContain("wraps 20000000 lamports; the input is 10000000");
  });
});
