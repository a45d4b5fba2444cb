import type { Database } from "bun:sqlite";

// trade_idempotency: one row per (agent, signal, action), written in the transaction that settles
// the trade it guards, so a signal never trades twice for an agent, even across a crash.

export class TradeKeyRepository {
  constructor(private readonly sqlite: Database) {}

  has(agentId: string, signalId: number, action: string): boolean {
    return (
      this.sqlite
        .query<{ n: number }, [string, number, string]>(
          "SELECT count(*) AS n FROM trade_idempotency WHERE agent_id = ? AND signal_id = ? AND action = ?",
        )
        .get(agentId, signalId, action)!.n > 0
    );
  }

  /** Status of the transaction that holds the key (confirmed, pending, failed), null without a key. */
  transactionStatus(agentId: string, signalId: number, action: string): string | null {
    const r = this.sqlite
      .query<{ status: string | null }, [string, number, string]>(
        `SELECT t.status AS status FROM trade_idempotency k LEFT JOIN agent_transactions t ON t.id = k.transaction_id
         WHERE k.agent_id = ? AND k.signal_id = ? AND k.action = ?`,
      )
      .get(agentId, signalId, action);
    return r ? (r.status ?? "confirmed") : null;
  }

  /** Writes the key; false when another trade already holds it. */
  insert(agentId: string, signalId: number, action: string, transactionId: string, now: string): boolean {
    const res = this.sqlite
      .query(
        "INSERT OR IGNORE INTO trade_idempotency (agent_id, signal_id, action, transaction_id, created_at) VALUES (?, ?, ?, ?, ?)",
      )
      .run(agentId, signalId, action, transactionId, now);
    return res.changes > 0;
  }
}
