import { type LandedTransaction, tokenDelta } from "../market/landed-transaction.ts";
import { SOL_MINT } from "../money.ts";

// What a watched wallet did in one landed transaction (docs/decisions/copy-trading-steering.md).
// A copied trade is a swap the wallet signed, through a known DEX program (dex-programs.ts):
//  1. its shape, from the balances the node reports before and after, as a wallet sees them (SOL
//     is lamports plus wrapped SOL; the network fee it paid as fee payer is added back): a buy
//     when exactly one token rose while SOL fell, a sell when exactly one token fell while SOL rose;
//  2. the wallet is among the transaction's signers (`not_signed` otherwise: a delegate or anyone
//     else moving the wallet's tokens is not the wallet trading);
//  3. an instruction of a DEX program runs (top level, or called by a router or a trading bot's
//     program), and the SOL moved between the wallet and accounts that swap names: the amount is
//     what those accounts received (a buy) or paid out (a sell), never more than the wallet's own
//     change. SOL paid to another wallet beside the swap (a friend, a tip) is not part of the trade
//     (`not_a_swap` when nothing went through a swap).
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

function shapeOf(tx: LandedTransaction, owner: string): Shape | "no_trade" | "ambiguous" {
  const sol = solChange(tx, owner);
  const changes = [...tokenChanges(tx, owner)];
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

/**
 * Lamports that moved into (a buy) or out of (a sell) the accounts named by the transaction's
 * swap instructions: a DEX program's instruction, or a top-level instruction that calls one (all
 * the accounts it and its calls name). The wallet and its own token accounts are not counterparts.
 * A wrapped-SOL vault's lamports follow its balance, so one count covers native and wrapped SOL.
 */
function throughSwap(tx: LandedTransaction, owner: string, side: "buy" | "sell", dex: ReadonlySet<string>): bigint {
  const counterparts = new Set<string>();
  for (const ix of tx.instructions ?? []) {
    const calls = [ix, ...ix.inner];
    if (!calls.some((c) => dex.has(c.program))) continue;
    for (const c of calls) for (const a of c.accounts) counterparts.add(a);
  }
  counterparts.delete(owner);
  for (const e of [...tx.preTokenBalances, ...tx.postTokenBalances])
    if (e.owner === owner && e.accountIndex >= 0) counterparts.delete(tx.accountKeys[e.accountIndex] ?? "");
  let moved = 0n;
  tx.accountKeys.forEach((key, i) => {
    if (!counterparts.has(key)) return;
    const d = (tx.postBalances[i] ?? 0n) - (tx.preBalances[i] ?? 0n);
    if (side === "buy" ? d > 0n : d < 0n) moved += d < 0n ? -d : d;
  });
  return moved;
}

export function detectTrade(
  tx: LandedTransaction,
  owner: string,
  minSolLamports: bigint,
  dex: ReadonlySet<string>,
): DetectedTrade {
  if (tx.err !== null && tx.err !== undefined) return { kind: "ignored", reason: "failed" };
  const shape = shapeOf(tx, owner);
  if (typeof shape === "string") return { kind: "ignored", reason: shape };
  if (!(tx.signers ?? []).includes(owner)) return { kind: "ignored", reason: "not_signed", seen: shape };
  const swapped = throughSwap(tx, owner, shape.side, dex);
  if (swapped === 0n) return { kind: "ignored", reason: "not_a_swap", seen: shape };
  // What went through the swap, never more than the wallet's own change.
  let solLamports = shape.solLamports;
  if (swapped < solLamports) solLamports = swapped;
  if (solLamports < minSolLamports) return { kind: "ignored", reason: "below_minimum" };
  return { kind: shape.side, mint: shape.mint, solLamports, tokenAmount: shape.tokenAmount };
}
