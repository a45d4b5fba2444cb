import { describe, expect, test } from "bun:test";
import { ACCOUNT_SIZE, AccountLayout, AccountState } from "@solana/spl-token";
import { Keypair, PublicKey } from "@solana/web3.js";
import type { RawAccount } from "../../src/market/mint-info.ts";
import { SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from "../../src/market/solana-rpc.ts";
import {
  type AccountChange,
  allowedPrograms,
  checkPrograms,
  checkSigners,
  JUPITER_V6_PROGRAM_ID,
  judgeEffect,
  parseExtraPrograms,
  type SwapIntent,
  transactionFee,
} from "../../src/trading/live/inspection-rules.ts";

const W = Keypair.generate().publicKey.toBase58();
const OTHER = Keypair.generate().publicKey.toBase58();
const MINT = Keypair.generate().publicKey.toBase58();
const MINT2 = Keypair.generate().publicKey.toBase58();

const wallet = (lamports: bigint, owner = SYSTEM_PROGRAM_ID, data = 0): RawAccount => ({
  owner,
  lamports,
  data: new Uint8Array(data),
});

// Token account bytes encoded by spl-token's own layout (independent of the parser under test).
function tokenAccount(o: {
  mint?: string;
  owner?: string;
  amount: bigint;
  delegate?: string;
  closeAuthority?: string;
  lamports?: bigint;
}): RawAccount {
  const data = Buffer.alloc(ACCOUNT_SIZE);
  AccountLayout.encode(
    {
      mint: new PublicKey(o.mint ?? MINT),
      owner: new PublicKey(o.owner ?? W),
      amount: o.amount,
      delegateOption: o.delegate ? 1 : 0,
      delegate: new PublicKey(o.delegate ?? SYSTEM_PROGRAM_ID),
      state: AccountState.Initialized,
      isNativeOption: 0,
      isNative: 0n,
      delegatedAmount: o.delegate ? 1n : 0n,
      closeAuthorityOption: o.closeAuthority ? 1 : 0,
      closeAuthority: new PublicKey(o.closeAuthority ?? SYSTEM_PROGRAM_ID),
    },
    data,
  );
  return { owner: TOKEN_PROGRAM_ID, lamports: o.lamports ?? 2_039_280n, data: new Uint8Array(data) };
}

const buy: SwapIntent = { side: "buy", mint: MINT, inAmount: 100_000_000n, minOutAmount: 990n };
const sell: SwapIntent = { side: "sell", mint: MINT, inAmount: 500n, minOutAmount: 40_000_000n };
const budget = { feeLamports: 105_000n, rentBudgetLamports: 4_400_000n };
const ATA = "ata";
const ATA2 = "ata2";

describe("judgeEffect", () => {
  const cases: Array<[string, SwapIntent, AccountChange[], string | null]> = [
    [
      "honest buy: input + fee out, rent into the new account, tokens ≥ threshold",
      buy,
      [
        { address: W, pre: wallet(1_000_000_000n), post: wallet(1_000_000_000n - 100_105_000n - 2_039_280n) },
        { address: ATA, pre: null, post: tokenAccount({ amount: 1_000n }) },
      ],
      null,
    ],
    [
      "buy taking one lamport more than input + fee",
      buy,
      [
        { address: W, pre: wallet(1_000_000_000n), post: wallet(1_000_000_000n - 100_105_001n - 2_039_280n) },
        { address: ATA, pre: null, post: tokenAccount({ amount: 1_000n }) },
      ],
      "sol",
    ],
    [
      "buy delivering less than the threshold",
      buy,
      [
        { address: W, pre: wallet(1_000_000_000n), post: wallet(1_000_000_000n - 100_105_000n) },
        { address: ATA, pre: tokenAccount({ amount: 10n }), post: tokenAccount({ amount: 999n }) },
      ],
      "tokens",
    ],
    [
      "buy locking more rent than the budget",
      buy,
      [
        { address: W, pre: wallet(1_000_000_000n), post: wallet(1_000_000_000n - 100_105_000n - 5_000_000n) },
        { address: ATA, pre: null, post: tokenAccount({ amount: 1_000n, lamports: 5_000_000n }) },
      ],
      "sol",
    ],
    [
      "buy that also sends away another token",
      buy,
      [
        { address: W, pre: wallet(1_000_000_000n), post: wallet(1_000_000_000n - 100_105_000n) },
        { address: ATA, pre: tokenAccount({ amount: 0n }), post: tokenAccount({ amount: 1_000n }) },
        {
          address: ATA2,
          pre: tokenAccount({ mint: MINT2, amount: 50n }),
          post: tokenAccount({ mint: MINT2, amount: 0n }),
        },
      ],
      "tokens",
    ],
    [
      "buy that approves a delegate on the wallet's token account",
      buy,
      [
        { address: W, pre: wallet(1_000_000_000n), post: wallet(1_000_000_000n - 100_105_000n) },
        { address: ATA, pre: tokenAccount({ amount: 0n }), post: tokenAccount({ amount: 1_000n, delegate: OTHER }) },
      ],
      "authority",
    ],
    [
      "buy that gives the token account to another owner",
      buy,
      [
        { address: W, pre: wallet(1_000_000_000n), post: wallet(1_000_000_000n - 100_105_000n) },
        { address: ATA, pre: tokenAccount({ amount: 0n }), post: tokenAccount({ amount: 1_000n, owner: OTHER }) },
      ],
      "authority",
    ],
    [
      "buy that sets a foreign close authority",
      buy,
      [
        { address: W, pre: wallet(1_000_000_000n), post: wallet(1_000_000_000n - 100_105_000n) },
        {
          address: ATA,
          pre: tokenAccount({ amount: 0n }),
          post: tokenAccount({ amount: 1_000n, closeAuthority: OTHER }),
        },
      ],
      "authority",
    ],
    [
      "buy that assigns the wallet to another program",
      buy,
      [
        { address: W, pre: wallet(1_000_000_000n), post: wallet(1_000_000_000n - 100_105_000n, OTHER) },
        { address: ATA, pre: tokenAccount({ amount: 0n }), post: tokenAccount({ amount: 1_000n }) },
      ],
      "wallet",
    ],
    [
      "honest sell: tokens out = intended, SOL in ≥ threshold − fee",
      sell,
      [
        { address: W, pre: wallet(1_000_000_000n), post: wallet(1_000_000_000n + 40_000_000n - 105_000n) },
        { address: ATA, pre: tokenAccount({ amount: 800n }), post: tokenAccount({ amount: 300n }) },
      ],
      null,
    ],
    [
      "sell paying less than the threshold",
      sell,
      [
        { address: W, pre: wallet(1_000_000_000n), post: wallet(1_000_000_000n + 39_999_999n - 105_000n) },
        { address: ATA, pre: tokenAccount({ amount: 800n }), post: tokenAccount({ amount: 300n }) },
      ],
      "sol",
    ],
    [
      "sell taking more tokens than intended",
      sell,
      [
        { address: W, pre: wallet(1_000_000_000n), post: wallet(1_000_000_000n + 40_000_000n - 105_000n) },
        { address: ATA, pre: tokenAccount({ amount: 800n }), post: tokenAccount({ amount: 299n }) },
      ],
      "tokens",
    ],
    [
      "someone else's token accounts are not the wallet's business",
      buy,
      [
        { address: W, pre: wallet(1_000_000_000n), post: wallet(1_000_000_000n - 100_105_000n) },
        { address: ATA, pre: tokenAccount({ amount: 0n }), post: tokenAccount({ amount: 1_000n }) },
        {
          address: "pool",
          pre: tokenAccount({ owner: OTHER, amount: 9_000n }),
          post: tokenAccount({ owner: OTHER, amount: 8_000n }),
        },
      ],
      null,
    ],
  ];
  test.each(cases)("%s", (_n, intent, changes, check) => {
    const { verdict } = judgeEffect(W, intent, changes, budget);
    if (check === null) expect(verdict).toEqual({ ok: true });
    else expect(verdict.ok ? null : verdict.check).toBe(check as never);
  });
});

describe("signers, programs, fees, extra programs", () => {
  test("only the wallet signs", () => {
    expect(checkSigners([W], W).ok).toBe(true);
    expect(checkSigners([OTHER], W).ok).toBe(false);
    expect(checkSigners([W, OTHER], W).ok).toBe(false);
    expect(checkSigners([], W).ok).toBe(false);
  });
  test("programs: known ones and LIVE_EXTRA_PROGRAMS only", () => {
    expect(checkPrograms([SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID, JUPITER_V6_PROGRAM_ID], allowedPrograms()).ok).toBe(
      true,
    );
    const v = checkPrograms([SYSTEM_PROGRAM_ID, OTHER, OTHER], allowedPrograms());
    expect(v).toEqual({
      ok: false,
      check: "programs",
      reason: `The swap calls a program that is not allowed: ${OTHER}`,
    });
    expect(checkPrograms([OTHER], allowedPrograms([OTHER])).ok).toBe(true);
  });
  test.each([
    ["", { ok: true, programs: [] }],
    [` ${OTHER} ,${JUPITER_V6_PROGRAM_ID},`, { ok: true, programs: [OTHER, JUPITER_V6_PROGRAM_ID] }],
    ["not-a-key", { ok: false, bad: "not-a-key" }],
  ])("parseExtraPrograms(%p)", (text, expected) => {
    expect(parseExtraPrograms(text)).toEqual(expected as never);
  });
  test("fee: signatures plus compute-unit price × limit, rounded up", () => {
    const cb = "ComputeBudget111111111111111111111111111111";
    const limit = new Uint8Array([2, 0x40, 0x0d, 0x03, 0x00]); // 200_000
    const price = new Uint8Array([3, 0xf4, 0x01, 0, 0, 0, 0, 0, 0]); // 500 µlamports
    const other = { programId: SYSTEM_PROGRAM_ID, data: new Uint8Array([2]) };
    expect(transactionFee([{ programId: cb, data: limit }, { programId: cb, data: price }, other], 1).feeLamports).toBe(
      5_000n + 100n,
    );
    expect(transactionFee([other, other], 1)).toEqual({
      feeLamports: 5_000n,
      computeUnitLimit: 400_000n,
      microLamportsPerUnit: 0n,
    });
    const odd = new Uint8Array([3, 1, 0, 0, 0, 0, 0, 0, 0]); // 1 µlamport × 400k default = 0.4 → 1
    expect(transactionFee([{ programId: cb, data: odd }, other, other], 2).feeLamports).toBe(10_001n);
  });
});
