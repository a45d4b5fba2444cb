import type { Database } from "bun:sqlite";
import { type ImpactTable, nextImpactMean, type RecordedImpact } from "../../price-impact.ts";

// The one writer and reader of price_impacts (src/db/schema/strategy-lab.ts).

export class PriceImpactRepository {
  constructor(private readonly sqlite: Database) {}

  /** Folds one quote's impact (fraction, decimal string) into its token's bucket. */
  record(tokenAddress: string, sizeBucket: number, impactPct: string, now: string): void {
    this.sqlite.transaction(() => {
      const cur = this.sqlite
        .query<{ impactPct: string; samples: number }, [string, number]>(
          "SELECT impact_pct AS impactPct, samples FROM price_impacts WHERE token_address = ? AND size_bucket = ?",
        )
        .get(tokenAddress, sizeBucket);
      const next = cur ? nextImpactMean(cur.impactPct, cur.samples, impactPct) : { impactPct, samples: 1 };
      this.sqlite
        .query(
          `INSERT INTO price_impacts (token_address, size_bucket, impact_pct, samples, updated_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (token_address, size_bucket) DO UPDATE SET impact_pct = excluded.impact_pct,
             samples = excluded.samples, updated_at = excluded.updated_at`,
        )
        .run(tokenAddress, sizeBucket, next.impactPct, next.samples, now);
    })();
  }

  /** The impacts of `tokens`, and per bucket the mean over every token recorded. */
  table(tokens: readonly string[]): ImpactTable {
    const byToken = new Map<string, RecordedImpact[]>();
    const rows = this.sqlite
      .query<{ tokenAddress: string; sizeBucket: number; impactPct: string }, []>(
        "SELECT token_address AS tokenAddress, size_bucket AS sizeBucket, impact_pct AS impactPct FROM price_impacts",
      )
      .all();
    const wanted = new Set(tokens);
    const sums = new Map<number, { sum: number; n: number }>();
    for (const r of rows) {
      if (wanted.has(r.tokenAddress)) {
        const list = byToken.get(r.tokenAddress) ?? [];
        list.push({ sizeBucket: r.sizeBucket, impactPct: r.impactPct });
        byToken.set(r.tokenAddress, list);
      }
      const s = sums.get(r.sizeBucket) ?? { sum: 0, n: 0 };
      s.sum += Number(r.impactPct);
      s.n++;
      sums.set(r.sizeBucket, s);
    }
    const byBucket = new Map<number, string>();
    for (const [b, s] of sums) byBucket.set(b, String(s.sum / s.n));
    return { byToken, byBucket };
  }
}
