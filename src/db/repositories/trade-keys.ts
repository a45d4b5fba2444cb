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
