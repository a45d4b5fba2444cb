import { describe, expect, test } from "bun:test";
import {
  AuthorityType,
  createApproveCheckedInstruction,
  createAssociatedTokenAccountIdempotentInstruction,
  createAssociatedTokenAccountInstruction,
  createBurnCheckedInstruction,
  createCloseAccountInstruction,
  createRecoverNestedInstruction,
  createSetAuthorityInstruction,
  createTransferCheckedInstruction,
  createTransferInstruction,
  getAssociatedTokenAddressSync,
  NATIVE_MINT,
  TOKEN_2022_PROGRAM_ID,
} from "@solana/spl-token";
import {
  ComputeBudgetProgram,
  Keypair,
  type PublicKey,
  SystemProgram,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { inspectWalletInstructions, type WalletInstructionContext } from "../../src/trading/live/build-inspection.ts";
import type { SwapIntent } from "../../src/trading/live/inspection-rules.ts";
import { messageInstructions } from "../../src/trading/live/transaction-inspector.ts";
import { routeInstruction } from "../fakes/jupiter-program.ts";

// The instruction rules of the inspection, one hostile instruction at a time, over the compiled
// message (issue 32): what names the wallet may only spend the route's input (and one capped
// tip), never give its accounts away, whatever the instruction's own flags said before compiling.

const taker = Keypair.generate().publicKey;
const mint = Keypair.generate().publicKey;
const otherMint = Keypair.generate().publicKey;
const pool = Keypair.generate().publicKey;
const tipAccount = Keypair.generate().publicKey;
const ata = (m: PublicKey) => getAssociatedTokenAddressSync(m, taker);
const wsol = ata(NATIVE_MINT);

const buy: SwapIntent = { side: "buy", mint: mint.toBase58(), inAmount: 1_000_000n, minOutAmount: 1n };
const sell: SwapIntent = { side: "sell", mint: mint.toBase58(), inAmount: 500n, minOutAmount: 1n };

const ctx = (intent: SwapIntent, tip = true): WalletInstructionContext => ({
  wallet: taker.toBase58(),
  intent,
  walletAccounts: new Set([ata(mint), ata(otherMint), wsol].map((k) => k.toBase58())),
  wsolAccount: wsol.toBase58(),
  tip: tip ? { accounts: new Set([tipAccount.toBase58()]), maxLamports: 100_000n } : undefined,
  route: {
    minOut: intent.minOutAmount,
    maxPlatformFeeBps: 0,
    raise: false,
  },
});

/** The route's Jupiter instruction, honest for the intent (tests/trading/jupiter-route.test.ts judges others). */
const jupiterRoute = (intent: SwapIntent) =>
  routeInstruction(
    {
      tokenProgram: TOKEN_2022_PROGRAM_ID,
      user: taker,
      source: intent.side === "buy" ? wsol : ata(mint),
      destination: intent.side === "buy" ? ata(mint) : wsol,
      destinationMint: intent.side === "buy" ? mint : NATIVE_MINT,
    },
    { inAmount: intent.inAmount, quotedOutAmount: intent.minOutAmount, slippageBps: 0, platformFeeBps: 0 },
  );

/** Compiled as the wallet would sign them (it pays the fee), then read back from the message. */
const run = (intent: SwapIntent, ixs: TransactionInstruction[], tip = true) => {
  const msg = new TransactionMessage({
    payerKey: taker,
    recentBlockhash: Keypair.generate().publicKey.toBase58(),
    instructions: [...ixs, jupiterRoute(intent)],
  }).compileToV0Message();
  const tx = new VersionedTransaction(msg);
  return inspectWalletInstructions(
    messageInstructions(
      tx,
      msg.staticAccountKeys.map((k) => k.toBase58()),
    ),
    ctx(intent, tip),
  );
};

const wrap = (lamports: number) => SystemProgram.transfer({ fromPubkey: taker, toPubkey: wsol, lamports });
const payPool = (m: PublicKey, amount: bigint) =>
  createTransferCheckedInstruction(ata(m), m, pool, taker, amount, m.equals(NATIVE_MINT) ? 9 : 6);

describe("accounted for by the route", () => {
  test("a buy wraps its input and pays the pool from its wSOL account; one tip within the cap", () => {
    const r = run(buy, [
      wrap(1_000_000),
      payPool(NATIVE_MINT, 1_000_000n),
      SystemProgram.transfer({ fromPubkey: taker, toPubkey: tipAccount, lamports: 10_000 }),
    ]);
    expect(r.verdict).toEqual({ ok: true });
    expect(r.seen).toEqual({
      wrappedLamports: 1_000_000n,
      inputOut: 1_000_000n,
      tipLamports: 10_000n,
      platformFeeLamports: 0n,
      route: { name: "route", slippageBps: 0, tightenedFromBps: null, minimum: 1n },
    });
    expect(run(sell, [payPool(mint, 500n), createCloseAccountInstruction(wsol, taker, taker)]).verdict.ok).toBe(true);
  });
});

/** The instruction as a hostile JSON describes it: every account flagged isSigner:false. */
const unflagged = (ix: TransactionInstruction) => {
  for (const k of ix.keys) k.isSigner = false;
  return ix;
};

describe("refused", () => {
  const cases: Array<[string, SwapIntent, TransactionInstruction[], string, string]> = [
    [
      "SOL to a stranger",
      buy,
      [SystemProgram.transfer({ fromPubkey: taker, toPubkey: pool, lamports: 1 })],
      "sol",
      "outside the route",
    ],
    ["a wrap above the input", buy, [wrap(1_000_001)], "sol", "wraps 1000001"],
    ["any wrap in a sell", sell, [wrap(1)], "sol", "the input is 0"],
    ["more input than intended", sell, [payPool(mint, 501n)], "tokens", "501 units"],
    ["another token of the wallet", sell, [payPool(otherMint, 1n)], "tokens", "does not sell"],
    ["an unchecked transfer", sell, [createTransferInstruction(ata(mint), pool, taker, 1n)], "tokens", "unchecked"],
    [
      "an approval",
      sell,
      [createApproveCheckedInstruction(ata(mint), mint, pool, taker, 1n, 6)],
      "authority",
      "control",
    ],
    [
      "an owner change",
      sell,
      [createSetAuthorityInstruction(ata(mint), taker, AuthorityType.AccountOwner, pool)],
      "authority",
      "control",
    ],
    ["a burn", sell, [createBurnCheckedInstruction(ata(mint), mint, taker, 1n, 6)], "tokens", "burn"],
    ["a close into a stranger", sell, [createCloseAccountInstruction(wsol, pool, taker)], "sol", "close"],
    [
      "a tip above the cap",
      buy,
      [SystemProgram.transfer({ fromPubkey: taker, toPubkey: tipAccount, lamports: 100_001 })],
      "fee",
      "above the allowed 100000",
    ],
    [
      "two tips",
      buy,
      [1, 2].map(() => SystemProgram.transfer({ fromPubkey: taker, toPubkey: tipAccount, lamports: 1_000 })),
      "sol",
      "more than one tip",
    ],
    [
      "a System instruction other than a transfer",
      buy,
      [SystemProgram.assign({ accountPubkey: taker, programId: pool })],
      "sol",
      "System Program instruction (1)",
    ],
    [
      "a transfer from a seed account of the wallet",
      buy,
      [
        SystemProgram.transfer({
          fromPubkey: pool,
          basePubkey: taker,
          toPubkey: pool,
          lamports: 1,
          seed: "s",
          programId: SystemProgram.programId,
        }),
      ],
      "sol",
      "System Program instruction (11)",
    ],
    [
      "any other token instruction the wallet signs",
      sell,
      [
        new TransactionInstruction({
          programId: TOKEN_2022_PROGRAM_ID,
          keys: [{ pubkey: taker, isSigner: true, isWritable: false }],
          data: Buffer.from([26, 1]),
        }),
      ],
      "tokens",
      "token instruction (26)",
    ],
    [
      "finding 1: SOL to a stranger with the wallet flagged isSigner:false",
      buy,
      [unflagged(SystemProgram.transfer({ fromPubkey: taker, toPubkey: pool, lamports: 10_000 }))],
      "sol",
      `10000 lamports from the wallet to ${pool.toBase58()}`,
    ],
    [
      "an unflagged System instruction other than a transfer",
      buy,
      [unflagged(SystemProgram.assign({ accountPubkey: taker, programId: pool }))],
      "sol",
      "System Program instruction (1)",
    ],
    [
      "an unflagged approval",
      sell,
      [unflagged(createApproveCheckedInstruction(ata(mint), mint, pool, taker, 1n, 6))],
      "authority",
      "control",
    ],
    [
      "finding 2: an associated token account for a stranger, paid by the wallet",
      buy,
      [createAssociatedTokenAccountIdempotentInstruction(taker, getAssociatedTokenAddressSync(mint, pool), pool, mint)],
      "ata",
      `for ${pool.toBase58()}, paid by the wallet`,
    ],
    [
      "the wallet's account of a mint the swap does not trade",
      buy,
      [createAssociatedTokenAccountInstruction(taker, ata(otherMint), taker, otherMint)],
      "ata",
      `of ${otherMint.toBase58()}, which it does not trade`,
    ],
    [
      "RecoverNested",
      buy,
      [
        createRecoverNestedInstruction(
          getAssociatedTokenAddressSync(otherMint, ata(mint), true),
          otherMint,
          ata(otherMint),
          ata(mint),
          mint,
          taker,
        ),
      ],
      "ata",
      "instruction (2)",
    ],
    [
      "a wallet account's tokens moved under another authority",
      sell,
      [createTransferCheckedInstruction(ata(mint), mint, pool, tipAccount, 1n, 6)],
      "signers",
      "to sign",
    ],
    [
      "a second compute-unit price",
      buy,
      [1, 2].map((n) => ComputeBudgetProgram.setComputeUnitPrice({ microLamports: n })),
      "fee",
      "second compute-budget instruction of kind 3",
    ],
  ];
  test.each(cases)("%s", (_name, intent, ixs, check, text) => {
    const { verdict } = run(intent, ixs);
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(verdict.check).toBe(check as never);
    expect(verdict.reason).toContain(text);
  });

  test("a tip without Jito configured is a transfer to a stranger", () => {
    const r = run(buy, [SystemProgram.transfer({ fromPubkey: taker, toPubkey: tipAccount, lamports: 1_000 })], false);
    expect(r.verdict.ok ? "" : r.verdict.check).toBe("sol");
  });

  test("a buy's input counted against SOL: wSOL moved beyond the input is refused", () => {
    const r = run(buy, [wrap(1_000_000), payPool(NATIVE_MINT, 1_000_001n)]);
    expect(r.verdict.ok ? "" : r.verdict.reason).toContain("1000001 units");
  });
});
