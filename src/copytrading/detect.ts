import { type LandedTransaction, tokenDelta } from "../market/landed-transaction.ts";
import { SOL_MINT } from "../money.ts";
import { swapLegs } from "./swap-legs.ts";

// What a watched wallet did in one landed transaction (docs/decisions/copy-trading-steering.md).
// A copied trade is a swap the wallet signed, through a known DEX program (dex-programs.ts):
//  1. an instruction of a DEX program runs (top level, or called by a router or a trading bot's
//     program), and what it moved for the wallet decides the trade (swap-legs.ts): a buy when
//     exactly one token reached the wallet's accounts inside it while SOL (lamports or wrapped)
//     left the wallet inside it, a sell when exactly one token left while SOL came in. The mint,
//     the token amount and the SOL are the swap's own: a token the wallet forwarded, minted or
//     was sent beside the swap, and SOL it paid anyone beside it, are no part of the trade;
//  2. the wallet is among the transaction's signers (`not_signed` otherwise: a delegate or anyone
//     else moving the wallet's tokens is not the wallet trading).
// A sale's native SOL may be paid out by the program writing lamports (Pump.fun's bonding curve
// does, with no transfer instruction): then it is what the accounts the swap names lost, never
// more than the wallet's own rise. Where no swap moved anything of the wallet's, its balances
// (SOL is lamports plus wrapped SOL, the fee it paid added back) still show what it looked like:
// `not_a_swap` for a trade shape, with that shape listed in the watch's trades.
// Anything else (a transfer, a token-for-token swap, several tokens moving at once, a failed
// transaction) is ignored: copying a trade we cannot name precisely would spend money on a guess.

interface Shape {
  side: "buy" | "sell";
  mint: string;
  solLamports: bigint;
  tokenAmount: bigint;
}

type IgnoredReason = "failed" | "no_trade" | "below_minimum" | "ambiguous" | "not_signed" | "not_a_swap";

export type DetectedTrade =
  | { kind: "buy" | "sell"; mint: string; solLamports: bigint; tokenAmount: bigint }
  /** `seen`: what the balances looked like, for a trade shape refused as not the wallet's swap. */
  | { kind: "ignored"; reason: IgnoredReason; seen?: Shape };

/** Change of the owner's SOL (lamports + wrapped SOL), fee added back when the owner paid it. */
function solChange(tx: LandedTransaction, owner: string): bigint {
  const i = tx.accountKeys.indexOf(owner);
  const lamports = i < 0 ? 0n : (tx.postBalances[i] ?? 0n) - (tx.preBalances[i] ?? 0n);
  const wrapped = tokenDelta(tx, owner, SOL_MINT);
  const fee = i === 0 ? tx.feeLamports : 0n;
  return lamports + wrapped + fee;
}

/** Each non-SOL mint whose balance the owner holds changed, with its change (atomic units). */
function tokenChanges(tx: LandedTransaction, owner: string): Map<string, bigint> {
  const mints = new Set(
    [...tx.preTokenBalances, ...tx.postTokenBalances]
      .filter((e) => e.owner === owner && e.mint !== SOL_MINT)
      .map((e) => e.mint),
  );
  const out = new Map<string, bigint>();
  for (const mint of mints) {
    const d = tokenDelta(tx, owner, mint);
    if (d !== 0n) out.set(mint, d);
  }
  return out;
}

/**
 * A buy when SOL fell while tokens rose and none fell, a sell the reverse; the trade's one token
 * (`ambiguous` when several moved its way).
 */
function tradeOf(sol: bigint, changes: Array<[string, bigint]>): Shape | "no_trade" | "ambiguous" {
  const rose = changes.filter(([, d]) => d > 0n);
  const fell = changes.filter(([, d]) => d < 0n);
  const side =
    sol < 0n && rose.length > 0 && fell.length === 0
      ? "buy"
      : sol > 0n && fell.length > 0 && rose.length === 0
        ? "sell"
        : null;
  if (side === null) return "no_trade";
  const moved = side === "buy" ? rose : fell;
  if (moved.length > 1) return "ambiguous";
  const [mint, delta] = moved[0]!;
  return { side, mint, solLamports: sol < 0n ? -sol : sol, tokenAmount: delta < 0n ? -delta : delta };
}

/** What the wallet's balances looked like (its SOL and token changes over the transaction). */
function shapeOf(tx: LandedTransaction, owner: string): Shape | "no_trade" | "ambiguous" {
  return tradeOf(solChange(tx, owner), [...tokenChanges(tx, owner)]);
}

/** The trade the wallet's swaps made (swap-legs.ts); "none" when they moved nothing of the wallet's. */
function swapShape(tx: LandedTransaction, owner: string, dex: ReadonlySet<string>): Shape | IgnoredReason | "none" {
  const legs = swapLegs(tx, owner, dex);
  if (!legs) return "none";
  const moved = [...legs.tokens].filter(([, d]) => d !== 0n);
  if (moved.length === 0) return "none";
  let sol = legs.sol;
  // A sale paid in native SOL by a program writing lamports: what the swap's accounts lost.
  if (sol === 0n && moved.every(([, d]) => d < 0n)) {
    const own = solChange(tx, owner);
    sol = legs.paidOut;
    if (own < sol) sol = own;
  }
  return tradeOf(sol, moved);
}

export function detectTrade(
  tx: LandedTransaction,
  owner: string,
  minSolLamports: bigint,
  dex: ReadonlySet<string>,
): DetectedTrade {
  if (tx.err !== null && tx.err !== undefined) return { kind: "ignored", reason: "failed" };
  const signed = (tx.signers ?? []).includes(owner);
  const swap = swapShape(tx, owner, dex);
  if (swap === "none") {
    // Nothing went through a swap: the balances show what it looked like.
    const seen = shapeOf(tx, owner);
    if (typeof seen === "string") return { kind: "ignored", reason: seen };
    return { kind: "ignored", reason: signed ? "not_a_swap" : "not_signed", seen };
  }
  if (typeof swap === "string") return { kind: "ignored", reason: swap };
  if (!signed) return { kind: "ignored", reason: "not_signed", seen: swap };
  if (swap.solLamports < minSolLamports) return { kind: "ignored", reason: "below_minimum" };
  return { kind: swap.side, mint: swap.mint, solLamports: swap.solLamports, tokenAmount: swap.tokenAmount };
}
