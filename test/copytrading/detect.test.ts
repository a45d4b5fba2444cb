import { describe, expect, test } from "bun:test";
import { detectTrade } from "../../src/copytrading/detect.ts";
import type { LandedTransaction } from "../../src/market/solana-rpc.ts";
import { SOL_MINT } from "../../src/money.ts";

// The buy/sell rule of copy trading (src/copytrading/detect.ts) as a table over node-shaped
// transaction metas: the watched wallet's lamports plus wrapped SOL against its token balances.

const W = "DemoCopyAnt11111111111111111111111111111111";
const MINT = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
const MINT2 = "EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm";
const SOL = 1_000_000_000n;
const MIN = SOL / 10n;

function tx(o: {
  payer?: string;
  lamports: [bigint, bigint];
  tokens?: Array<[mint: string, pre: bigint | null, post: bigint | null, owner?: string]>;
  err?: unknown;
}): LandedTransaction {
  const entries = (i: 1 | 2) =>
    (o.tokens ?? []).flatMap(([mint, pre, post, owner]) => {
      const amount = i === 1 ? pre : post;
      // Token accounts the node gives no index for (their lamports are not part of this table).
      return amount === null ? [] : [{ accountIndex: -1, mint, owner: owner ?? W, amount, decimals: 6 }];
    });
  const payer = o.payer ?? W;
  const keys = payer === W ? [W, "Pool"] : [payer, W];
  const wIndex = keys.indexOf(W);
  const pre = [0n, 0n];
  const post = [0n, 0n];
  pre[wIndex] = o.lamports[0];
  post[wIndex] = o.lamports[1];
  return {
    slot: 1,
    err: o.err ?? null,
    feeLamports: 5_000n,
    accountKeys: keys,
    preBalances: pre,
    postBalances: post,
    preTokenBalances: entries(1),
    postTokenBalances: entries(2),
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
  ])("%s", (_name, t, expected) => {
    expect(detectTrade(t, W, MIN)).toEqual(expected as never);
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
  ])("%s is ignored", (_name, t, reason) => {
    expect(detectTrade(t, W, MIN)).toEqual({ kind: "ignored", reason } as never);
  });
});
