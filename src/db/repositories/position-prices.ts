import type { SqliteHandle } from "../client.ts";

// The one positions read of the ledgers: the last price the position monitor stored for a token,
// the fallback price of GET /agent-balances (src/ledgers/token-price-lookup.ts). The positions
// table itself is written by the trading engine (src/trading).

export function lastOpenPositionPriceSol(h: SqliteHandle, mint: string): string | null {
  return (
    h.sqlite
      .query<{ p: string | null }, [string]>(
        `SELECT last_price_sol AS p FROM positions
          WHERE token_address = ? AND status = 'open' AND last_price_sol IS NOT NULL
          ORDER BY updated_at DESC LIMIT 1`,
      )
      .get(mint)?.p ?? null
  );
}
