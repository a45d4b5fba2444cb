import type { Database } from "bun:sqlite";
import type { signalEvaluations, tradingSignals } from "../schema/trading.ts";

// signal_evaluations: what each agent made of each signal. Written by the signal processor (and
// the live settlement when a pending buy resolves); read by the public API's agent signals and by
// the signal detail's `processing`.

export type SignalEvaluation = typeof signalEvaluations.$inferSelect;

type SignalColumns = typeof tradingSignals.$inferSelect;

/** A signal as the public API lists it for an agent, with that agent's evaluation. */
export type AgentSignalRecord = Pick<
  SignalColumns,
  | "id"
  | "createdAt"
  | "updatedAt"
  | "tokenAddress"
  | "symbol"
  | "signalType"
  | "activationReason"
  | "signalStrength"
  | "source"
> &
  Pick<SignalEvaluation, "eligible" | "outcome" | "reason"> & { evaluatedAt: string };

/** One agent's evaluation of a signal with the agent's name and the trade it made, if any. */
export type EvaluationDetail = Pick<SignalEvaluation, "signalId" | "agentId" | "eligible" | "reason" | "outcome"> & {
  agentName: string;
  at: string;
  positionId: string | null;
  transactionId: string | null;
};

const AGENT_SIGNALS = `SELECT s.id, s.created_at AS createdAt, s.updated_at AS updatedAt, s.token_address AS tokenAddress, s.symbol,
         s.signal_type AS signalType, s.activation_reason AS activationReason, s.signal_strength AS signalStrength, s.source,
         e.eligible, e.outcome, e.reason, e.created_at AS evaluatedAt
    FROM signal_evaluations e JOIN trading_signals s ON s.id = e.signal_id
   WHERE e.agent_id = ? AND (e.eligible = 1 OR e.outcome IN ('traded', 'closed', 'failed'))`;

// The trade an evaluation made is found through the trade key the settlement wrote for it (BUY
// for an entry, SELL for an exit signal's close) and that transaction's position.
const DETAILS = `SELECT e.signal_id AS signalId, e.agent_id AS agentId, a.name AS agentName, e.eligible, e.reason, e.outcome,
         e.created_at AS at, k.transaction_id AS transactionId, t.position_id AS positionId
    FROM signal_evaluations e
    JOIN trading_signals s ON s.id = e.signal_id
    JOIN agents a ON a.id = e.agent_id AND a.user_id = s.user_id
    LEFT JOIN trade_idempotency k ON k.agent_id = e.agent_id AND k.signal_id = e.signal_id
         AND k.action = CASE WHEN e.outcome = 'closed' THEN 'SELL' ELSE 'BUY' END
         AND e.outcome IN ('traded', 'closed', 'pending')
    LEFT JOIN agent_transactions t ON t.id = k.transaction_id`;

type StoredBool<T> = Omit<T, "eligible"> & { eligible: number };
const fixEligible = <T extends { eligible: boolean }>(r: StoredBool<T>): T =>
  ({ ...r, eligible: r.eligible === 1 }) as T;

const ROWS_PER_INSERT = 100;

export class SignalEvaluationRepository {
  constructor(private readonly sqlite: Database) {}

  record(e: SignalEvaluation): void {
    this.sqlite
      .query(
        "INSERT OR REPLACE INTO signal_evaluations (signal_id, agent_id, eligible, reason, outcome, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      )
      .run(e.signalId, e.agentId, e.eligible ? 1 : 0, e.reason, e.outcome, e.createdAt);
  }

  /**
   * Many evaluations in the caller's transaction (a batch of the signal processor): 100 rows per
   * statement, so the per-statement work of 20 agents × 256 signals is paid 52 times, not 5,120.
   */
  recordMany(rows: readonly SignalEvaluation[]): void {
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
      const chunk = rows.slice(i, i + ROWS_PER_INSERT);
      const params: Array<string | number | null> = [];
      for (const e of chunk) params.push(e.signalId, e.agentId, e.eligible ? 1 : 0, e.reason, e.outcome, e.createdAt);
      this.sqlite
        .query(
          `INSERT OR REPLACE INTO signal_evaluations (signal_id, agent_id, eligible, reason, outcome, created_at) VALUES ${chunk.map(() => "(?, ?, ?, ?, ?, ?)").join(",")}`,
        )
        .run(...params);
    }
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

  /** The signals the agent acted on or was eligible for, newest first (public API). */
  agentSignals(agentId: string, limit: number, offset: number): AgentSignalRecord[] {
    return this.sqlite
      .query<StoredBool<AgentSignalRecord>, [string, number, number]>(
        `${AGENT_SIGNALS} ORDER BY s.created_at DESC, s.id DESC LIMIT ? OFFSET ?`,
      )
      .all(agentId, limit, offset)
      .map(fixEligible);
  }

  agentSignal(agentId: string, signalId: number): AgentSignalRecord | null {
    const r = this.sqlite
      .query<StoredBool<AgentSignalRecord>, [string, number]>(`${AGENT_SIGNALS} AND s.id = ?`)
      .get(agentId, signalId);
    return r ? fixEligible(r) : null;
  }

  /**
   * Every evaluation of the signals by their owner's agents, in the order they were made (agents
   * of another user never appear, even if a row named one).
   */
  detailsOf(signalIds: readonly number[]): EvaluationDetail[] {
    if (signalIds.length === 0) return [];
    const out: EvaluationDetail[] = [];
    for (let i = 0; i < signalIds.length; i += 500) {
      const chunk = signalIds.slice(i, i + 500);
      out.push(
        ...this.sqlite
          .query<StoredBool<EvaluationDetail>, number[]>(
            `${DETAILS} WHERE e.signal_id IN (${chunk.map(() => "?").join(",")}) ORDER BY e.signal_id, e.created_at, a.created_at, a.id`,
          )
          .all(...chunk)
          .map(fixEligible),
      );
    }
    return out;
  }
}
