import { afterAll, beforeAll, expect, test } from "bun:test";
import {
  createApproveInstruction,
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { Keypair, SystemProgram, Transaction, TransactionInstruction } from "@solana/web3.js";
import { ManualClock } from "../../src/clock.ts";
import { detectTrade } from "../../src/copytrading/detect.ts";
import { dexProgramSet } from "../../src/copytrading/dex-programs.ts";
import { RpcRequestBudget } from "../../src/market/rpc-budget.ts";
import { SolanaRpcClient } from "../../src/market/solana-rpc.ts";
import { RpcWalletActivity } from "../../src/market/wallet-activity.ts";
import { MEMO_PROGRAM, type Pool } from "../fakes/chain-aggregator.ts";
import { type ChainContext, signedBase64, startChain } from "./chain-context.ts";

// Copy trading on a real runtime: a followed wallet's transactions executed by litesvm, read back
// through the service's own RPC reads (getSignaturesForAddress with until/before, getTransaction)
// and classified by the copy-trading rule (src/copytrading/detect.ts). No DEX program can be
// loaded into litesvm here, so the "DEX" of the swap that counts is a stand-in registered as
// WALLET_WATCH_EXTRA_PROGRAMS would (the Memo program, naming the pool's account); the built-in
// list alone calls every transaction below "not a swap". The Memo program calls nothing, so no
// transaction here is a copied swap: a swap is what moved inside the DEX instruction (its inner
// calls), which the watcher tests serve from the fake node (test/copytrading/swap-legs.test.ts).

let c: ChainContext;
let pool: Pool;
let source: RpcWalletActivity;
let owner: string;
const min = 100_000_000n;
const builtIn = dexProgramSet([]);
const withStandIn = dexProgramSet([MEMO_PROGRAM.toBase58()]);

beforeAll(async () => {
  c = await startChain();
  pool = c.aggregator.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 }); // 0.001 SOL per token
  const budget = new RpcRequestBudget(new ManualClock());
  source = new RpcWalletActivity(new SolanaRpcClient({ url: c.chain.url, timeoutMs: 5_000, budget }), budget);
  owner = c.wallet.publicKey.toBase58();
});
afterAll(() => c.close());

/** Signs a legacy transaction with every signer (the first pays) and lands it. */
async function land(ixs: TransactionInstruction[], signers: Keypair[]): Promise<string> {
  const tx = new Transaction({ feePayer: signers[0]!.publicKey, recentBlockhash: c.chain.latestBlockhash().blockhash });
  tx.add(...ixs);
  tx.sign(...signers);
  const sig = await c.rpc.sendTransaction(tx.serialize().toString("base64"), { skipPreflight: false });
  c.chain.advance(1);
  return sig;
}

const classify = async (sig: string, dex = withStandIn) =>
  detectTrade((await source.transaction(sig))!, owner, min, dex);

test("finding 1: SOL paid to another wallet that hands the token back is no buy (the aggregator's transfer-shaped swap too)", async () => {
  // The fake aggregator's "swap": a top-level System transfer to the pool owner's wallet and a
  // token transfer back, exactly the shape of paying a friend for its token.
  const buy = await c.swap("buy", pool, 500_000_000n);
  const sig = await c.rpc.sendTransaction(signedBase64(buy.tx, c.wallet), { skipPreflight: false });
  c.chain.advance(1);
  expect(await classify(sig, builtIn)).toMatchObject({
    kind: "ignored",
    reason: "not_a_swap",
    seen: { side: "buy", mint: pool.mint.toBase58(), tokenAmount: buy.outAmount },
  });
  expect(await classify(sig)).toMatchObject({ kind: "ignored", reason: "not_a_swap" });
});

test("issue 40 item 4: transfers beside a listed program's instruction (top level, the pool named by it) are no buy: only what moved inside the swap counts", async () => {
  const ata = getAssociatedTokenAddressSync(pool.mint, c.wallet.publicKey, false, pool.programId);
  const ixs = [
    SystemProgram.transfer({ fromPubkey: c.wallet.publicKey, toPubkey: pool.owner.publicKey, lamports: 300_000_000n }),
    createAssociatedTokenAccountIdempotentInstruction(
      c.wallet.publicKey,
      ata,
      c.wallet.publicKey,
      pool.mint,
      pool.programId,
    ),
    createTransferCheckedInstruction(
      pool.tokenAccount,
      pool.mint,
      ata,
      pool.owner.publicKey,
      300_000_000n,
      pool.decimals,
      [],
      pool.programId,
    ),
    // The stand-in DEX instruction: names the pool (its owner signs, as the Memo program requires).
    new TransactionInstruction({
      programId: MEMO_PROGRAM,
      keys: [{ pubkey: pool.owner.publicKey, isSigner: true, isWritable: false }],
      data: Buffer.from("swap"),
    }),
    // Beside the swap, 0.2 SOL to a friend: not part of the trade.
    SystemProgram.transfer({
      fromPubkey: c.wallet.publicKey,
      toPubkey: Keypair.generate().publicKey,
      lamports: 200_000_000n,
    }),
  ];
  const sig = await land(ixs, [c.wallet, pool.owner]);
  // The stand-in calls nothing: the SOL and the token moved beside it. (Before issue 40 this
  // counted as a buy, the SOL having reached an account the instruction names.)
  expect(await classify(sig)).toMatchObject({
    kind: "ignored",
    reason: "not_a_swap",
    seen: { side: "buy", mint: pool.mint.toBase58(), tokenAmount: 300_000_000n },
  });
  expect(await classify(sig, builtIn)).toMatchObject({ kind: "ignored", reason: "not_a_swap" });
});

test("finding 2: a 'sell' signed only by a delegate that pulls the wallet's tokens and pays it 0.2 SOL is not_signed", async () => {
  const delegate = Keypair.generate();
  c.chain.airdrop(delegate.publicKey, 1_000_000_000n);
  const ata = getAssociatedTokenAddressSync(pool.mint, c.wallet.publicKey, false, pool.programId);
  const theirs = getAssociatedTokenAddressSync(pool.mint, delegate.publicKey, false, pool.programId);
  await land(
    [createApproveInstruction(ata, delegate.publicKey, c.wallet.publicKey, 100_000_000n, [], pool.programId)],
    [c.wallet],
  );
  const sig = await land(
    [
      createAssociatedTokenAccountIdempotentInstruction(
        delegate.publicKey,
        theirs,
        delegate.publicKey,
        pool.mint,
        pool.programId,
      ),
      createTransferCheckedInstruction(
        ata,
        pool.mint,
        theirs,
        delegate.publicKey,
        100_000_000n,
        pool.decimals,
        [],
        pool.programId,
      ),
      SystemProgram.transfer({ fromPubkey: delegate.publicKey, toPubkey: c.wallet.publicKey, lamports: 200_000_000n }),
      new TransactionInstruction({
        programId: MEMO_PROGRAM,
        keys: [{ pubkey: delegate.publicKey, isSigner: true, isWritable: false }],
        data: Buffer.from("swap"),
      }),
    ],
    [delegate],
  );
  expect(await classify(sig)).toMatchObject({
    kind: "ignored",
    reason: "not_signed",
    seen: { side: "sell", mint: pool.mint.toBase58(), tokenAmount: 100_000_000n },
  });
});

test("finding 3: the signature list pages back with `before` down to the cursor", async () => {
  const listed = await source.signatures(owner, { until: null, before: null, limit: 1000 });
  expect(listed.length).toBeGreaterThan(3);
  const cursor = listed.at(-2)!.signature;
  const pages: string[] = [];
  let before: string | null = null;
  for (;;) {
    const page = await source.signatures(owner, { until: cursor, before, limit: 2 });
    pages.push(...page.map((s) => s.signature));
    if (page.length < 2) break;
    before = page.at(-1)!.signature;
  }
  expect(pages).toEqual(listed.slice(0, -2).map((s) => s.signature));
});
