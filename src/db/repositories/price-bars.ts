import type { Database } from "bun:sqlite";
import type { priceBars } from "../schema/strategy-lab.ts";

// The one writer and reader of price_bars (src/db/schema/strategy-lab.ts).

export type PriceBar = Omit<typeof priceBars.$inferSelect, "tokenAddress" | "source">;

export class PriceBarRepository {
  constructor(private readonly sqlite: Database) {}

  /**
   * Folds one observed price into its minute's bar: the first price opens it, later ones raise
   * the high, lower the low and replace the close. Prices are compared exactly (CAST to REAL only
   * orders them; the stored text is what the engine saw).
   */
  recordTicks(ticks: ReadonlyArray<{ tokenAddress: string; time: number; price: string }>): void {
    const upsert = this.sqlite.query(
      `INSERT INTO price_bars (token_address, time, open, high, low, close, source)
       VALUES (?1, ?2, ?3, ?3, ?3, ?3, 'recorded')
       ON CONFLICT (token_address, time) DO UPDATE SET
         high = CASE WHEN CAST(?3 AS REAL) > CAST(high AS REAL) THEN ?3 ELSE high END,
         low = CASE WHEN CAST(?3 AS REAL) < CAST(low AS REAL) THEN ?3 ELSE low END,
         close = ?3`,
    );
    this.sqlite.transaction(() => {
      for (const t of ticks) upsert.run(t.tokenAddress, t.time, t.price);
    })();
  }

  /** Whole bars from the history import; a bar the service recorded itself is kept. */
  importBars(tokenAddress: string, bars: readonly PriceBar[]): number {
    const ins = this.sqlite.query(
      `INSERT INTO price_bars (token_address, time, open, high, low, close, source)
       VALUES (?, ?, ?, ?, ?, ?, 'imported') ON CONFLICT (token_address, time) DO NOTHING`,
    );
    let n = 0;
    this.sqlite.transaction(() => {
      for (const b of bars) n += ins.run(tokenAddress, b.time, b.open, b.high, b.low, b.close).changes;
    })();
    return n;
  }

  /** Bars of one token in [fromMs, toMs), oldest first. */
  range(tokenAddress: string, fromMs: number, toMs: number): PriceBar[] {
    return this.sqlite
      .query<PriceBar, [string, number, number]>(
        `SELECT time, open, high, low, close FROM price_bars
          WHERE token_address = ? AND time >= ? AND time < ? ORDER BY time`,
      )
      .all(tokenAddress, fromMs, toMs);
  }

  /** Number of bars a token has in [fromMs, toMs). */
  count(tokenAddress: string, fromMs: number, toMs: number): number {
    return (
      this.sqlite
        .query<{ n: number }, [string, number, number]>(
          "SELECT count(*) AS n FROM price_bars WHERE token_address = ? AND time >= ? AND time < ?",
        )
        .get(tokenAddress, fromMs, toMs)?.n ?? 0
    );
  }

  /**
   * Tokens with a signal (of any user) created after `sinceIso`: the ones whose price path is
   * still being recorded.
   */
  /**
   * Token by token through the (token_address, created_at) index: the next token after the last
   * one, then its newest signal, so the cost follows the number of tokens ever signalled, not of
   * signals stored (a DISTINCT over the window read every signal of it, each recorder tick).
   */
  static readonly SIGNALLED_TOKENS_SQL = `WITH RECURSIVE tokens(t) AS (
      SELECT (SELECT MIN(token_address) FROM trading_signals)
      UNION ALL
      SELECT (SELECT MIN(token_address) FROM trading_signals WHERE token_address > tokens.t) FROM tokens WHERE tokens.t IS NOT NULL
    )
    SELECT t FROM tokens
     WHERE t IS NOT NULL AND (SELECT MAX(created_at) FROM trading_signals WHERE token_address = tokens.t) > ?`;

  tokensSignalledSince(sinceIso: string): string[] {
    return this.sqlite
      .query<{ t: string }, [string]>(PriceBarRepository.SIGNALLED_TOKENS_SQL)
      .all(sinceIso)
      .map((r) => r.t);
  }

  /**
   * Keeps only bars inside some signal's horizon: from the minute of a signal of that token to
   * `horizonMs` after it. Everything else (older than every horizon) is deleted; returns how many.
   */
  pruneOutsideHorizon(horizonMs: number): number {
    return this.sqlite
      .query(
        `DELETE FROM price_bars WHERE NOT EXISTS (
           SELECT 1 FROM trading_signals s WHERE s.token_address = price_bars.token_address
              AND s.created_at < strftime('%Y-%m-%dT%H:%M:%fZ', (price_bars.time + 60000) / 1000.0, 'unixepoch')
              AND s.created_at >= strftime('%Y-%m-%dT%H:%M:%fZ', (price_bars.time - ?1) / 1000.0, 'unixepoch'))`,
      )
      .run(horizonMs).changes;
  }
}
