import { describe, expect, test } from "bun:test";
import bs58 from "bs58";
import { detectTrade } from "../../src/copytrading/detect.ts";
import { dexProgramSet } from "../../src/copytrading/dex-programs.ts";
import type { LandedTransaction } from "../../src/market/landed-transaction.ts";
import { SOL_MINT } from "../../src/money.ts";

// The buy/sell rule of copy trading (src/copytrading/detect.ts) as a table over node-shaped
// transaction metas: the watched wallet's lamports plus wrapped SOL against its token balances.

const W = "DemoCopyAnt11111111111111111111111111111111";
const MINT = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
const MINT2 = "EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm";
const SOL = 1_000_000_000n;
const MIN = SOL / 10n;

const CPMM = "CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C";
const DEX = dexProgramSet([]);
const POOL = 1_000n * SOL;

const TOKEN = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const SYSTEM = "11111111111111111111111111111111";

/** System Transfer / SPL token TransferChecked data, as the node gives them (decoded). */
function systemTransfer(lamports: bigint): Uint8Array {
  const d = new Uint8Array(12);
  new DataView(d.buffer).setUint32(0, 2, true);
  new DataView(d.buffer).setBigUint64(4, lamports, true);
  return d;
}
function tokenIx(tag: number, amount: bigint): Uint8Array {
  const d = new Uint8Array(10);
  d[0] = tag;
  new DataView(d.buffer).setBigUint64(1, amount, true);
  d[9] = 6;
  return d;
}

type Call = { program: string; accounts: string[]; data: Uint8Array };

/** The token account of `owner` for `mint` in these transactions. */
const account = (mint: string, owner: string) => `acct-${mint.slice(0, 6)}-${owner}`;

/**
 * A landed transaction of W: its lamports and token balances, who signed (default W), and where
 * the SOL went: by default a Raydium CPMM instruction naming the pool, whose lamports move by the
 * opposite of W's change; `friend` lamports go to another wallet beside it (no instruction).
 * The swap's calls are its legs: a buy's System transfer (or wSOL transfer) to the pool, a sale's
 * SOL paid out by the pool writing lamports, and a transferChecked per token account of W whose
 * balance changed (`tokensInside` false: those moved beside the swap, top level).
 */
function tx(o: {
  payer?: string;
  lamports: [bigint, bigint];
  tokens?: Array<[mint: string, pre: bigint | null, post: bigint | null, owner?: string]>;
  err?: unknown;
  signers?: string[];
  /** Lamports the pool receives (negative: pays); default the opposite of W's SOL change. */
  pool?: bigint;
  friend?: bigint;
  program?: string | null;
  tokensInside?: boolean;
  /** Calls the DEX instruction made besides its legs, and top-level instructions beside it. */
  inner?: Call[];
  beside?: Call[];
}): LandedTransaction {
  const payer = o.payer ?? W;
  const keys = payer === W ? [W, "Pool"] : [payer, W, "Pool"];
  keys.push("Friend", CPMM, "PoolVault", TOKEN, SYSTEM);
  for (const [mint, , , owner] of o.tokens ?? []) keys.push(account(mint, owner ?? W));
  const entries = (i: 1 | 2) =>
    (o.tokens ?? []).flatMap(([mint, pre, post, owner]) => {
      const amount = i === 1 ? pre : post;
      return amount === null
        ? []
        : [{ accountIndex: keys.indexOf(account(mint, owner ?? W)), mint, owner: owner ?? W, amount, decimals: 6 }];
    });
  const wIndex = keys.indexOf(W);
  const fee = payer === W ? 5_000n : 0n;
  const wrapped = (o.tokens ?? [])
    .filter(([m, , , owner]) => m === SOL_MINT && (owner ?? W) === W)
    .reduce((a, [, pre, post]) => a + (post ?? 0n) - (pre ?? 0n), 0n);
  const change = o.lamports[1] - o.lamports[0] + fee + wrapped;
  const friend = o.friend ?? 0n;
  const pool = o.pool ?? -change - friend;
  const pre = keys.map(() => POOL);
  const post = keys.map(() => POOL);
  pre[wIndex] = o.lamports[0];
  post[wIndex] = o.lamports[1];
  post[keys.indexOf("Pool")] = POOL + pool;
  post[keys.indexOf("Friend")] = POOL + friend;
  const program = o.program === undefined ? CPMM : o.program;
  const tokenLegs: Call[] = (o.tokens ?? []).flatMap(([mint, before, after, owner]) => {
    const d = (after ?? 0n) - (before ?? 0n);
    if (d === 0n || mint === SOL_MINT) return [];
    const mine = account(mint, owner ?? W);
    const [from, to] = d > 0n ? ["PoolVault", mine] : [mine, "PoolVault"];
    return [{ program: TOKEN, accounts: [from, mint, to, owner ?? W], data: tokenIx(12, d > 0n ? d : -d) }];
  });
  const solLeg: Call[] =
    wrapped < 0n
      ? [{ program: TOKEN, accounts: [account(SOL_MINT, W), "Pool", W], data: tokenIx(3, -wrapped) }]
      : pool > 0n
        ? [{ program: SYSTEM, accounts: [W, "Pool"], data: systemTransfer(pool) }]
        : [];
  const inside = o.tokensInside ?? true;
  const inner = [...solLeg, ...(inside ? tokenLegs : []), ...(o.inner ?? [])].map((c) => ({ ...c, stackHeight: 2 }));
  const top = (c: Call) => ({ ...c, inner: [] });
  return {
    slot: 1,
    err: o.err ?? null,
    feeLamports: 5_000n,
    accountKeys: keys,
    preBalances: pre,
    postBalances: post,
    preTokenBalances: entries(1),
    postTokenBalances: entries(2),
    signers: o.signers ?? [payer, ...(payer === W ? [] : [W])],
    instructions: [
      ...(program === null ? [] : [{ program, accounts: [W, "Pool"], data: new Uint8Array([9]), inner }]),
      ...(inside ? [] : tokenLegs.map(top)),
      ...(o.beside ?? []).map(top),
    ],
  };
}

describe("detectTrade", () => {
  test.each([
    [
      "a 0.5 SOL buy (fee added back: the trade, not its cost)",
      tx({ lamports: [10n * SOL, 10n * SOL - SOL / 2n - 5_000n], tokens: [[MINT, null, 1_000n]] }),
      { kind: "buy", mint: MINT, solLamports: SOL / 2n, tokenAmount: 1_000n },
    ],
    [
      "a buy paid in wrapped SOL",
      tx({
        lamports: [10n * SOL, 10n * SOL - 5_000n],
        tokens: [
          [SOL_MINT, SOL, SOL / 2n],
          [MINT, 5n, 505n],
        ],
      }),
      { kind: "buy", mint: MINT, solLamports: SOL / 2n, tokenAmount: 500n },
    ],
    [
      "a sell for 0.3 SOL",
      tx({ lamports: [SOL, SOL + (3n * SOL) / 10n - 5_000n], tokens: [[MINT, 900n, 100n]] }),
      { kind: "sell", mint: MINT, solLamports: (3n * SOL) / 10n, tokenAmount: 800n },
    ],
    [
      "a buy by a wallet that did not pay the fee",
      tx({ payer: "Relayer", lamports: [SOL, SOL / 2n], tokens: [[MINT, 0n, 7n]] }),
      { kind: "buy", mint: MINT, solLamports: SOL / 2n, tokenAmount: 7n },
    ],
    [
      "a swap beside a payment to a friend: only what went through the swap counts",
      tx({
        lamports: [10n * SOL, 9n * SOL - 5_000n],
        tokens: [[MINT, 0n, 10n]],
        pool: (3n * SOL) / 10n,
        friend: (7n * SOL) / 10n,
      }),
      { kind: "buy", mint: MINT, solLamports: (3n * SOL) / 10n, tokenAmount: 10n },
    ],
  ])("%s", (_name, t, expected) => {
    expect(detectTrade(t, W, MIN, DEX)).toEqual(expected as never);
  });

  test.each([
    [
      "a buy under the minimum",
      tx({ lamports: [SOL, SOL - SOL / 20n - 5_000n], tokens: [[MINT, null, 9n]] }),
      "below_minimum",
    ],
    [
      "a failed transaction",
      tx({ lamports: [SOL, SOL - 5_000n], err: { InstructionError: [2, { Custom: 1 }] } }),
      "failed",
    ],
    ["a plain SOL transfer", tx({ lamports: [SOL, SOL / 2n - 5_000n] }), "no_trade"],
    [
      "a token-for-token swap",
      tx({
        lamports: [SOL, SOL - 5_000n],
        tokens: [
          [MINT, 10n, 0n],
          [MINT2, 0n, 10n],
        ],
      }),
      "no_trade",
    ],
    [
      "two tokens bought at once",
      tx({
        lamports: [SOL, SOL / 2n - 5_000n],
        tokens: [
          [MINT, 0n, 10n],
          [MINT2, 0n, 10n],
        ],
      }),
      "ambiguous",
    ],
    [
      "someone else's token account moving",
      tx({ lamports: [SOL, SOL / 2n - 5_000n], tokens: [[MINT, 0n, 10n, "Someone"]] }),
      "no_trade",
    ],
    [
      "a 'buy' that pays 0.5 SOL to a friend who sends the token back (no DEX)",
      tx({ lamports: [SOL, SOL / 2n - 5_000n], tokens: [[MINT, 0n, 1_000n]], program: null, friend: SOL / 2n }),
      "not_a_swap",
    ],
    [
      "a 'buy' through a DEX instruction whose accounts the SOL never reached",
      tx({
        lamports: [SOL, SOL / 2n - 5_000n],
        tokens: [[MINT, 0n, 1_000n]],
        pool: 0n,
        friend: SOL / 2n,
        tokensInside: false,
      }),
      "not_a_swap",
    ],
    [
      "a 'buy' through a program not in the list",
      tx({ lamports: [SOL, SOL / 2n - 5_000n], tokens: [[MINT, 0n, 1_000n]], program: "Unknown" }),
      "not_a_swap",
    ],
    [
      "a 'sell' signed only by a delegate that pulls the tokens and pays 0.2 SOL",
      tx({ payer: "Delegate", signers: ["Delegate"], lamports: [SOL, SOL + SOL / 5n], tokens: [[MINT, 900n, 0n]] }),
      "not_signed",
    ],
  ])("%s is ignored", (_name, t, reason) => {
    expect(detectTrade(t, W, MIN, DEX)).toMatchObject({ kind: "ignored", reason } as never);
  });

  /** Half a SOL for 1000 of MINT, what each swap below made. */
  const HALF_SOL_OF_MINT = { kind: "buy" as const, mint: MINT, solLamports: SOL / 2n, tokenAmount: 1_000n };

  test("what the wallet did beside the swap decides nothing: bought A, forwarded A, minted itself X", () => {
    const t = tx({
      lamports: [10n * SOL, 10n * SOL - SOL / 2n - 5_000n],
      tokens: [
        [MINT, 0n, 0n],
        [MINT2, null, 9_000n],
      ],
      tokensInside: false,
      inner: [{ program: TOKEN, accounts: ["PoolVault", MINT, account(MINT, W), "Pool"], data: tokenIx(12, 1_000n) }],
      beside: [{ program: TOKEN, accounts: [account(MINT, W), MINT, "Elsewhere", W], data: tokenIx(12, 1_000n) }],
    });
    expect(detectTrade(t, W, MIN, DEX)).toEqual(HALF_SOL_OF_MINT);
  });

  test("under a router: only the calls nested in the DEX call count (by stackHeight), not a token the router hands over", () => {
    const t = tx({
      lamports: [10n * SOL, 10n * SOL - SOL / 2n - 5_000n],
      tokens: [
        [MINT, null, 1_000n],
        [MINT2, null, 5n],
      ],
      program: null,
    });
    const at = (h: number, c: Call) => ({ ...c, stackHeight: h });
    t.instructions = [
      {
        program: "Router",
        accounts: [W],
        data: new Uint8Array([1]),
        inner: [
          at(2, { program: CPMM, accounts: [W, "Pool"], data: new Uint8Array([9]) }),
          at(3, { program: SYSTEM, accounts: [W, "Pool"], data: systemTransfer(SOL / 2n) }),
          at(3, { program: TOKEN, accounts: ["PoolVault", MINT, account(MINT, W), "Pool"], data: tokenIx(12, 1_000n) }),
          at(2, { program: TOKEN, accounts: ["RouterVault", account(MINT2, W), "Router"], data: tokenIx(3, 5n) }),
        ],
      },
    ];
    expect(detectTrade(t, W, MIN, DEX)).toEqual(HALF_SOL_OF_MINT);
  });

  /**
   * A 0.5 SOL buy of MINT paid from W's temporary wSOL account "TempWsol" (made top level by an
   * InitializeAccount3 naming W), the swap's `inner` calls as given.
   */
  function fromTemporaryWsol(inner: Call[]): LandedTransaction {
    const init = new Uint8Array(33);
    init[0] = 18;
    init.set(bs58.decode(W), 1);
    const t = tx({
      lamports: [10n * SOL, 10n * SOL - SOL / 2n - 5_000n],
      tokens: [[MINT, null, 1_000n]],
      pool: 0n,
      inner,
      beside: [{ program: TOKEN, accounts: ["TempWsol", SOL_MINT], data: init }],
    });
    t.accountKeys.push("TempWsol");
    return t;
  }

  test("an unchecked transfer out of a temporary wSOL account: its mint and owner from its InitializeAccount3", () => {
    const t = fromTemporaryWsol([{ program: TOKEN, accounts: ["TempWsol", "Pool", W], data: tokenIx(3, SOL / 2n) }]);
    expect(detectTrade(t, W, MIN, DEX)).toEqual(HALF_SOL_OF_MINT);
  });

  test("SOL wrapped inside the swap is counted once: the wallet's transfer to its own wSOL account is no leg", () => {
    // A DEX (or a router read whole) that wraps itself: System transfer W -> W's temporary wSOL
    // account, then that account -> the pool. Counting both as W's SOL out read a 0.5 SOL buy as 1.
    const t = fromTemporaryWsol([
      { program: SYSTEM, accounts: [W, "TempWsol"], data: systemTransfer(SOL / 2n) },
      { program: TOKEN, accounts: ["TempWsol", "Pool", W], data: tokenIx(3, SOL / 2n) },
    ]);
    expect(detectTrade(t, W, MIN, DEX)).toEqual(HALF_SOL_OF_MINT);
  });
});
