import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createAssociatedTokenAccountIdempotentInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Keypair, PublicKey, VersionedTransaction } from "@solana/web3.js";
import { JupiterSwapV2Client } from "../../src/market/jupiter-swap-v2.ts";
import { SOL_MINT } from "../../src/money.ts";
import { prepareBuildSwap } from "../../src/trading/live/build-assembly.ts";
import { rpcInspectorChain } from "../../src/trading/live/chain-reads.ts";
import { allowedPrograms, type SwapIntent } from "../../src/trading/live/inspection-rules.ts";
import { inspectSwapTransaction, SwapRefusedError } from "../../src/trading/live/transaction-inspector.ts";
import type { Pool } from "../fakes/chain-aggregator.ts";
import { type ChainContext, noRetryHttp, signedBase64, startChain } from "./chain-context.ts";

// Issue 32 findings 1 and 2 on litesvm, in each of the three ways a transaction reaches the
// wallet (build: assembled here from /build's JSON; order: the transaction Jupiter built; v1):
// the compiled message decides who signs and which accounts an instruction touches, never the
// JSON's flags, and Associated Token Account instructions are inspected like any other.
//   1. a route that swaps 1 % less and sends that 1 % to a third address with the wallet flagged
//      isSigner:false stays within the input and the 3 % floor, so only the instruction tells;
//   2. an associated token account created for a third party and paid by the wallet.

const FLOOR_BPS = 300n; // the floor the intents below carry: 3 % under the quote
const MAX_FEE = 5_000n + 1_000_000n;
let c: ChainContext;
let pool: Pool;
let wallet: string;

beforeEach(async () => {
  c = await startChain();
  pool = c.aggregator.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 }); // 0.001 SOL per token
  wallet = c.wallet.publicKey.toBase58();
});
afterEach(() => c.close());

const floorOf = (out: bigint) => (out * (10_000n - FLOOR_BPS)) / 10_000n;
const quoteRequest = (side: "buy" | "sell", amount: bigint) => ({
  inputMint: side === "buy" ? SOL_MINT : pool.mint.toBase58(),
  outputMint: side === "buy" ? pool.mint.toBase58() : SOL_MINT,
  amount: amount.toString(),
  slippageBps: 100,
});

async function build(side: "buy" | "sell", amount: bigint) {
  const { build: b, quote } = await c.buildSwaps.build(quoteRequest(side, amount), wallet);
  const intent: SwapIntent = {
    side,
    mint: pool.mint.toBase58(),
    inAmount: amount,
    minOutAmount: floorOf(BigInt(quote.outAmount)),
  };
  return { b, intent };
}

const prepare = (b: Awaited<ReturnType<typeof build>>["b"], intent: SwapIntent) =>
  prepareBuildSwap(
    { chain: rpcInspectorChain(c.rpc) },
    {
      build: b,
      taker: wallet,
      intent,
      blockhash: c.chain.latestBlockhash().blockhash,
      computeUnitLimit: 300_000,
      microLamportsPerUnit: 1_000n,
      allowedPrograms: allowedPrograms(),
      maxFeeLamports: MAX_FEE,
    },
  );

const inspect = (tx: VersionedTransaction, intent: SwapIntent, maxFee = MAX_FEE) =>
  inspectSwapTransaction(
    { chain: rpcInspectorChain(c.rpc), allowedPrograms: allowedPrograms() },
    { transaction: tx, wallet, intent, maxFeeLamports: maxFee },
  );

async function send(tx: VersionedTransaction) {
  const sig = await c.rpc.sendTransaction(signedBase64(tx, c.wallet), { skipPreflight: false });
  return (await c.rpc.getTransaction(sig))!;
}

async function buyFirst(amount: bigint) {
  const { b, intent } = await build("buy", amount);
  expect((await send((await prepare(b, intent)).transaction)).err).toBeNull();
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e) => (e instanceof SwapRefusedError ? e : Promise.reject(e)),
  );

describe("finding 1: a transfer out of the wallet that the JSON says it does not sign", () => {
  test("build: the skimmed buy is refused before signing; nothing sent, the thief gets nothing", async () => {
    c.aggregator.mode = "skim";
    const { b, intent } = await build("buy", 100_000_000n);
    const skim = b.otherInstructions.find((ix) => ix.accounts[1]?.pubkey === c.aggregator.thief.toBase58())!;
    expect(skim.accounts[0]).toEqual({ pubkey: wallet, isSigner: false, isWritable: true });
    const err = await refusal(prepare(b, intent));
    expect(err?.check).toBe("sol");
    expect(err?.message).toContain(`1000000 lamports from the wallet to ${c.aggregator.thief.toBase58()}`);
    expect(c.chain.sends).toEqual([]);
    expect(c.chain.lamportsOf(c.aggregator.thief)).toBe(0n);
  });

  test("build: a skimmed sale is refused the same way", async () => {
    await buyFirst(100_000_000n);
    c.aggregator.mode = "skim";
    const { b, intent } = await build("sell", 100_000_000n);
    expect((await refusal(prepare(b, intent)))?.check).toBe("sol");
  });

  test("order: the skim inside the transaction Jupiter built is refused", async () => {
    c.aggregator.mode = "skim";
    const orders = new JupiterSwapV2Client(noRetryHttp("swapAggregator", c.aggregator.url), { api: "order" });
    const got = await orders.order(quoteRequest("buy", 100_000_000n), wallet);
    const tx = VersionedTransaction.deserialize(Buffer.from(got.order.transaction!, "base64"));
    const intent: SwapIntent = {
      side: "buy",
      mint: pool.mint.toBase58(),
      inAmount: 100_000_000n,
      minOutAmount: floorOf(BigInt(got.quote.outAmount)),
    };
    const err = await refusal(inspect(tx, intent, 5_000n + 20_000n));
    expect(err?.check).toBe("sol");
    expect(err?.message).toContain(c.aggregator.thief.toBase58());
  });

  test("v1: the skim inside Jupiter's swap transaction is refused", async () => {
    c.aggregator.mode = "skim";
    const s = await c.swap("buy", pool, 100_000_000n);
    const err = await refusal(inspect(s.tx, { ...s.intent, minOutAmount: floorOf(s.outAmount) }, 105_000n));
    expect(err?.check).toBe("sol");
    expect(err?.message).toContain(c.aggregator.thief.toBase58());
  });
});

describe("finding 2: an associated token account created for someone else, paid by the wallet", () => {
  test("build: the create-idempotent in a sale's setup is refused; nothing sent", async () => {
    await buyFirst(100_000_000n);
    const stranger = Keypair.generate().publicKey;
    const theirs = getAssociatedTokenAddressSync(pool.mint, stranger);
    const { b, intent } = await build("sell", 100_000_000n);
    const create = createAssociatedTokenAccountIdempotentInstruction(
      new PublicKey(wallet),
      theirs,
      stranger,
      pool.mint,
    );
    const api = {
      programId: create.programId.toBase58(),
      accounts: create.keys.map((k) => ({
        pubkey: k.pubkey.toBase58(),
        isSigner: k.isSigner,
        isWritable: k.isWritable,
      })),
      data: Buffer.from(create.data).toString("base64"),
    };
    const sends = c.chain.sends.length;
    const err = await refusal(prepare({ ...b, setupInstructions: [...b.setupInstructions, api] }, intent));
    expect(err?.check).toBe("ata");
    expect(err?.message).toContain(stranger.toBase58());
    expect(c.chain.sends.length).toBe(sends);
    expect(c.chain.lamportsOf(theirs)).toBe(0n);
  });
});
