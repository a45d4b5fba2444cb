import { describe, expect, test } from "bun:test";
import {
  AuthorityType,
  createApproveCheckedInstruction,
  createBurnCheckedInstruction,
  createCloseAccountInstruction,
  createSetAuthorityInstruction,
  createTransferCheckedInstruction,
  createTransferInstruction,
  getAssociatedTokenAddressSync,
  NATIVE_MINT,
  TOKEN_2022_PROGRAM_ID,
} from "@solana/spl-token";
import { Keypair, PublicKey, SystemProgram, TransactionInstruction } from "@solana/web3.js";
import { type BuildInspectionContext, inspectBuildInstructions } from "../../src/trading/live/build-inspection.ts";
import { allowedPrograms, type SwapIntent } from "../../src/trading/live/inspection-rules.ts";

// The instruction rules of build mode, one hostile instruction at a time: what the taker signs
// may only spend the route's input (and one capped tip), never give its accounts away.

const taker = Keypair.generate().publicKey;
const mint = Keypair.generate().publicKey;
const otherMint = Keypair.generate().publicKey;
const pool = Keypair.generate().publicKey;
const tipAccount = Keypair.generate().publicKey;
const ata = (m: PublicKey) => getAssociatedTokenAddressSync(m, taker);
const wsol = ata(NATIVE_MINT);

const buy: SwapIntent = { side: "buy", mint: mint.toBase58(), inAmount: 1_000_000n, minOutAmount: 1n };
const sell: SwapIntent = { side: "sell", mint: mint.toBase58(), inAmount: 500n, minOutAmount: 1n };

const ctx = (intent: SwapIntent, tip = true): BuildInspectionContext => ({
  taker: taker.toBase58(),
  intent,
  ataOf: (m, program) =>
    getAssociatedTokenAddressSync(new PublicKey(m), taker, false, new PublicKey(program)).toBase58(),
  allowedPrograms: allowedPrograms(),
  tip: tip ? { accounts: new Set([tipAccount.toBase58()]), maxLamports: 100_000n } : undefined,
});

const run = (intent: SwapIntent, ixs: TransactionInstruction[], tip = true) =>
  inspectBuildInstructions(
    ixs.map((ix) => ({
      programId: ix.programId.toBase58(),
      accounts: ix.keys.map((k) => ({ pubkey: k.pubkey.toBase58(), isSigner: k.isSigner, isWritable: k.isWritable })),
      data: new Uint8Array(ix.data),
    })),
    ctx(intent, tip),
  );

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
    expect(r.seen).toEqual({ wrappedLamports: 1_000_000n, inputOut: 1_000_000n, tipLamports: 10_000n });
    expect(run(sell, [payPool(mint, 500n), createCloseAccountInstruction(wsol, taker, taker)]).verdict.ok).toBe(true);
  });
});

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
