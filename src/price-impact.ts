import { Big, decStr, fromAtomic, SOL_DECIMALS } from "./money.ts";

// Price impact in backtests. A fill at the bar's price alone is
// better than any real swap: every quote moves the pool. The service records each quote's price
// impact per token and trade-size bucket (src/price-history/impact-recorder.ts, table
// price_impacts) and replay applies it to each fill, as the aggregator's quote does: output × (1 −
// impact). Where the token has no record in the trade's bucket, its nearest recorded bucket is
// used; a token never quoted gets the mean of every token in that bucket, and with no record at
// all DEFAULT_PRICE_IMPACT_PCT: an honest guess for the thin pools signals are about, not zero.

/** Upper bounds (SOL) of the size buckets; a size above the last is the last bucket + 1. */
const IMPACT_BUCKET_EDGES_SOL = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100] as const;
/** The impact assumed when nothing was ever recorded (1 %). */
const DEFAULT_PRICE_IMPACT_PCT = "0.01";
/** The recorded mean follows the last this-many quotes. */
const IMPACT_SAMPLES_MAX = 100;

const EDGES = IMPACT_BUCKET_EDGES_SOL.map((e) => new Big(e));

/** The size bucket of a trade of `lamports` on its SOL side. */
export function impactBucket(lamports: bigint): number {
  const sol = fromAtomic(lamports, SOL_DECIMALS);
  const i = EDGES.findIndex((e) => sol.lte(e));
  return i === -1 ? EDGES.length : i;
}

export interface RecordedImpact {
  sizeBucket: number;
  /** Fraction, decimal string. */
  impactPct: string;
}

/** What a backtest knows of impacts: per token, and per bucket across tokens. */
export interface ImpactTable {
  byToken: ReadonlyMap<string, readonly RecordedImpact[]>;
  /** Mean over tokens, per bucket. */
  byBucket: ReadonlyMap<number, string>;
}

export const NO_IMPACTS: ImpactTable = { byToken: new Map(), byBucket: new Map() };

/** The impact (fraction) a fill of `lamports` in `token` gets in replay. */
function impactFor(table: ImpactTable, token: string, lamports: bigint): Big {
  const bucket = impactBucket(lamports);
  const own = table.byToken.get(token);
  if (own && own.length > 0) {
    let best = own[0]!;
    for (const r of own) {
      const d = Math.abs(r.sizeBucket - bucket);
      const bestD = Math.abs(best.sizeBucket - bucket);
      // Nearest bucket; between two as near, the larger (the more impact, the more honest).
      if (d < bestD || (d === bestD && r.sizeBucket > best.sizeBucket)) best = r;
    }
    return new Big(best.impactPct);
  }
  return new Big(table.byBucket.get(bucket) ?? DEFAULT_PRICE_IMPACT_PCT);
}

/** The running mean after one more quote's impact (at most IMPACT_SAMPLES_MAX samples weigh). */
export function nextImpactMean(
  mean: string,
  samples: number,
  observed: string,
): { impactPct: string; samples: number } {
  const n = Math.min(samples + 1, IMPACT_SAMPLES_MAX);
  const m = new Big(mean);
  return { impactPct: decStr(m.plus(new Big(observed).minus(m).div(n)), 12), samples: n };
}

/** impactFor for one token, as the fills take it: lamports of the trade's SOL side → fraction. */
export const impactOf =
  (table: ImpactTable, token: string) =>
  (lamports: bigint): Big =>
    impactFor(table, token, lamports);
