import type { Database } from "bun:sqlite";

// What `trading-agent restore` prints about the copy it restored (docs/backups.md): read from
// the copy itself before it replaces anything.

export interface RestoreSummary {
  /** The newest agent transaction's time, or null when the books are empty. */
  lastTransactionAt: string | null;
  agents: number;
  positions: { open: number; total: number };
  /** Live swap journal rows, and those whose outcome the next start asks the chain for. */
  liveJournal: { total: number; unresolved: number };
}

export function restoreSummary(db: Database): RestoreSummary {
  const one = (sql: string) => db.query<{ n: number }, []>(sql).get()?.n ?? 0;
  return {
    lastTransactionAt:
      db.query<{ t: string | null }, []>("SELECT max(transaction_time) AS t FROM agent_transactions").get()?.t ?? null,
    agents: one("SELECT count(*) AS n FROM agents"),
    positions: {
      open: one("SELECT count(*) AS n FROM positions WHERE status = 'open'"),
      total: one("SELECT count(*) AS n FROM positions"),
    },
    liveJournal: {
      total: one("SELECT count(*) AS n FROM live_trades"),
      unresolved: one("SELECT count(*) AS n FROM live_trades WHERE status IN ('sending', 'pending', 'unknown')"),
    },
  };
}
