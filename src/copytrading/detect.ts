import { type LandedTransaction, tokenDelta } from "../market/solana-rpc.ts";
import { SOL_MINT } from "../money.ts";

// What a watched wallet did in one landed transaction, from the
// balances the node reports before and after it, as a wallet sees them: its SOL is lamports plus
// wrapped SOL; the network fee it paid as fee payer is added back, so a trade is measured by what
// it swapped, not by what it cost to send. A buy: exactly one token's balance rose while SOL fell
// by at least the watch's minimum. A sell: exactly one token fell while SOL rose by at least the
// minimum. Anything else (a transfer, a token-for-token swap, several tokens moving at once, a
// failed transaction) is ignored: copying a trade we cannot name precisely would spend money on a
// guess.

export type DetectedTrade =
  | { kind: "buy" | "sell"; mint: string; solLamports: bigint; tokenAmount: bigint }
  | { kind: "ignored"; reason: "failed" | "no_trade" | "below_minimum" | "ambiguous" };

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

export function detectTrade(tx: LandedTransaction, owner: string, minSolLamports: bigint): DetectedTrade {
  if (tx.err !== null && tx.err !== undefined) return { kind: "ignored", reason: "failed" };
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
  if (side === null) return { kind: "ignored", reason: "no_trade" };
  const moved = side === "buy" ? rose : fell;
  if (moved.length > 1) return { kind: "ignored", reason: "ambiguous" };
  const solLamports = sol < 0n ? -sol : sol;
  if (solLamports < minSolLamports) return { kind: "ignored", reason: "below_minimum" };
  const [mint, delta] = moved[0]!;
  return { kind: side, mint, solLamports, tokenAmount: delta < 0n ? -delta : delta };
}
