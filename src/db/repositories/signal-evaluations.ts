import type { Database } from "bun:sqlite";
import type { signalEvaluations } from "../schema/trading.ts";

// signal_evaluations: what each agent made of each signal (the public API's agent signals).

export type SignalEvaluation = typeof signalEvaluations.$inferSelect;

export class SignalEvaluationRepository {
  constructor(private readonly sqlite: Database) {}

  record(e: SignalEvaluation): void {
    this.sqlite
      .query(
        "INSERT OR REPLACE INTO signal_evaluations (signal_id, agent_id, eligible, reason, outcome, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      )
      .run(e.signalId, e.agentId, e.eligible ? 1 : 0, e.reason, e.outcome, e.createdAt);
  }

  /** A pending live buy the chain refused: the evaluation says why. */
  markFailed(signalId: number, agentId: string, reason: string): void {
    this.sqlite
      .query("UPDATE signal_evaluations SET outcome = 'failed', reason = ? WHERE signal_id = ? AND agent_id = ?")
      .run(reason, signalId, agentId);
  }

  /** A pending live buy the chain confirmed. */
  markTraded(signalId: number, agentId: string): void {
    this.sqlite
      .query("UPDATE signal_evaluations SET outcome = 'traded', reason = NULL WHERE signal_id = ? AND agent_id = ?")
      .run(signalId, agentId);
  }
}
