import type { JupiterSwap } from "./jupiter-route.ts";

// What a Jupiter route instruction's bytes must say before the wallet signs it (issue 40 item 1;
// docs/decisions/live-inspection-rules.md "What the bytes guarantee"). The chain enforces the
// route's own numbers, whatever the JSON beside it said and whatever a simulation showed:
//
//   exact in:  in_amount is our input (in order mode, our input less the order's fee the message
//              pays from it before the swap), and the minimum the program enforces,
//              ⌊quoted_out_amount × (10 000 − slippage_bps) / 10 000⌋, less platform_fee_bps of it,
//              is at least ours: max(our floor, the quote's threshold, a sale's price floor);
//   exact out: out_amount is at least ours and the most it may take,
//              ⌈quoted_in_amount × (10 000 + slippage_bps) / 10 000⌉ plus platform_fee_bps of it, at
//              most our input;
//   platform_fee_bps at most what we accept (0 unless an order declared a fee); a token-ledger
//   route is refused (its input is whatever the ledger recorded, not a number in the bytes).
//
// A route whose slippage is looser than that is tightened in the bytes where we sign what we
// assembled or may change (build and v1 mode): the largest slippage_bps that still holds our
// minimum is written over the route's (its quoted amount is kept, so a v2 route's positive
// slippage is shared above the same quote). Order mode signs Jupiter's bytes as they are (its
// /execute takes no other message): there the route is refused and the swap is built instead.

export interface RouteBounds {
  /** Our input: lamports (buy) or token units (sale), less an order's fee paid from it before the swap. */
  inAmount: bigint;
  /** The least the route must deliver. */
  minOut: bigint;
  /** The most platform_fee_bps may be. */
  maxPlatformFeeBps: number;
  /** Build and v1 mode: a looser slippage is tightened in the bytes instead of refused. */
  raise: boolean;
}

/**
 * A refusal's check: "route" for what a built swap can mend (a minimum below ours, a route that
 * cannot be used), which order mode answers by building the swap; "tokens" and "fee" for bytes
 * that take more than was asked, refused as any such instruction is.
 */
export type RouteVerdict =
  | { ok: true; slippageBps: number }
  | { ok: false; check: "route" | "tokens" | "fee"; reason: string };

const BPS = 10_000n;

/** The least the program lets arrive at `slippage`, less the platform fee. */
export function routeMinimum(quoted: bigint, slippageBps: number, feeBps: number): bigint {
  const least = (quoted * (BPS - BigInt(slippageBps))) / BPS;
  return (least * (BPS - BigInt(feeBps))) / BPS;
}

/** The most an exact-out route may take at `slippage`, plus the platform fee. */
export function routeMaximumInput(quoted: bigint, slippageBps: number, feeBps: number): bigint {
  const most = (quoted * (BPS + BigInt(slippageBps)) + BPS - 1n) / BPS;
  return (most * (BPS + BigInt(feeBps)) + BPS - 1n) / BPS;
}

export function judgeRoute(s: JupiterSwap, b: RouteBounds): RouteVerdict {
  const fail = (reason: string, check: "route" | "tokens" | "fee" = "route"): RouteVerdict => ({
    ok: false,
    check,
    reason: `the route (${s.name}) ${reason}`,
  });
  if (s.kind === "ledger" || s.amount === null) return fail("takes its input from a token ledger, not from its bytes");
  if (s.platformFeeBps > b.maxPlatformFeeBps)
    return fail(`takes a platform fee of ${s.platformFeeBps} bps; at most ${b.maxPlatformFeeBps} is accepted`, "fee");
  if (s.slippageBps > 10_000) return fail(`has a slippage of ${s.slippageBps} bps`);
  let holds: (slippage: number) => boolean;
  let shortfall: string;
  if (s.kind === "exact_in") {
    if (s.amount !== b.inAmount) return fail(`swaps an input of ${s.amount}; the input is ${b.inAmount}`, "tokens");
    holds = (slippage) => routeMinimum(s.quoted, slippage, s.platformFeeBps) >= b.minOut;
    shortfall = `enforces a minimum of ${routeMinimum(s.quoted, s.slippageBps, s.platformFeeBps)} on chain; ours is ${b.minOut}`;
  } else {
    if (s.amount < b.minOut) return fail(`buys an output of ${s.amount}; ours is at least ${b.minOut}`);
    holds = (slippage) => routeMaximumInput(s.quoted, slippage, s.platformFeeBps) <= b.inAmount;
    shortfall = `may take up to ${routeMaximumInput(s.quoted, s.slippageBps, s.platformFeeBps)} on chain; the input is ${b.inAmount}`;
  }
  if (holds(s.slippageBps)) return { ok: true, slippageBps: s.slippageBps };
  if (!b.raise || !holds(0)) return fail(shortfall);
  // The largest slippage that still holds ours: tighter than the route's, never looser.
  let [lo, hi] = [0, s.slippageBps];
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (holds(mid)) lo = mid;
    else hi = mid - 1;
  }
  return { ok: true, slippageBps: lo };
}
