import { Big } from "../../money.ts";

// Constant-product pools (x·y = k) for the demo market's quotes: each token has
// one pool against SOL holding half its liquidity on each side, so a quote has a real price impact
// that grows with the trade's size against the pool, and a 0.25 % LP fee. Atomic units throughout.

const DEMO_FEE_BPS = 25n;

export interface Pool {
  /** Atomic units of the input and output side. */
  reserveIn: bigint;
  reserveOut: bigint;
}

export interface Hop {
  inAmount: bigint;
  outAmount: bigint;
  feeAmount: bigint;
  /** Fraction of the spot price lost to the trade's size (fee excluded). */
  priceImpact: Big;
}

/** Pool reserves from liquidity (USD) and the two sides' USD prices and decimals. */
export function poolReserves(
  liquidityUsd: number,
  inSide: { usd: number; decimals: number },
  outSide: { usd: number; decimals: number },
): Pool {
  const half = liquidityUsd / 2;
  const atomic = (usd: number, decimals: number) =>
    BigInt(
      new Big(half)
        .div(new Big(usd.toPrecision(12)))
        .times(new Big(10).pow(decimals))
        .toFixed(0),
    );
  return { reserveIn: atomic(inSide.usd, inSide.decimals), reserveOut: atomic(outSide.usd, outSide.decimals) };
}

/** ExactIn: what `amountIn` buys from the pool. */
export function swapExactIn(pool: Pool, amountIn: bigint): Hop {
  const feeAmount = (amountIn * DEMO_FEE_BPS + 9_999n) / 10_000n;
  const net = amountIn - feeAmount;
  const outAmount = (pool.reserveOut * net) / (pool.reserveIn + net);
  return { inAmount: amountIn, outAmount, feeAmount, priceImpact: impact(pool, net) };
}

/** ExactOut: what it costs to take `amountOut` from the pool; null when the pool cannot give it. */
export function swapExactOut(pool: Pool, amountOut: bigint): Hop | null {
  if (amountOut >= pool.reserveOut) return null;
  const net = (pool.reserveIn * amountOut + (pool.reserveOut - amountOut) - 1n) / (pool.reserveOut - amountOut);
  const amountIn = (net * 10_000n + (10_000n - DEMO_FEE_BPS) - 1n) / (10_000n - DEMO_FEE_BPS);
  return { inAmount: amountIn, outAmount: amountOut, feeAmount: amountIn - net, priceImpact: impact(pool, net) };
}

/** Spot vs execution price: net / (reserveIn + net). */
function impact(pool: Pool, net: bigint): Big {
  const denominator = pool.reserveIn + net;
  return denominator === 0n ? new Big(0) : new Big(net.toString()).div(denominator.toString());
}

/** Combined impact of consecutive hops: 1 − Π(1 − impact). */
export function combinedImpact(hops: readonly Hop[]): Big {
  return new Big(1).minus(hops.reduce((acc, h) => acc.times(new Big(1).minus(h.priceImpact)), new Big(1)));
}
