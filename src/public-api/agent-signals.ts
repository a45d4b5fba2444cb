import type { Database } from "bun:sqlite";
import { NotFoundError } from "../errors.ts";
import type { Signal } from "../signals/signal-service.ts";

// GET /v1/agents/:agentId/signals[/:signalId] (SPEC "Public API"): the signals the agent acted on
// or was eligible for, from what the signal processor recorded per agent (signal_evaluations).
// Signals the agent was not eligible for (filters, balance, automation off) are left out.

export interface SignalEvaluationView {
  eligible: boolean;
  /** traded | failed | skipped | closed (src/trading/signal-processor.ts). */
  outcome: string | null;
  /** Why an exit-signal close failed; null otherwise (refusals, which carry "rule: text", are not listed). */
  reason: string | null;
  evaluatedAt: string;
}

export interface AgentSignalView extends Signal {
  evaluation: SignalEvaluationView;
}

interface Row extends Signal {
  eligible: number;
  outcome: string | null;
  reason: string | null;
  evaluatedAt: string;
}

const SELECT = `SELECT s.id, s.created_at AS createdAt, s.updated_at AS updatedAt, s.token_address AS tokenAddress, s.symbol,
         s.signal_type AS signalType, s.activation_reason AS activationReason, s.signal_strength AS signalStrength, s.source,
         e.eligible, e.outcome, e.reason, e.created_at AS evaluatedAt
    FROM signal_evaluations e JOIN trading_signals s ON s.id = e.signal_id
   WHERE e.agent_id = ? AND (e.eligible = 1 OR e.outcome IN ('traded', 'closed', 'failed'))`;

const view = (r: Row): AgentSignalView => ({
  id: r.id,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
  tokenAddress: r.tokenAddress,
  symbol: r.symbol,
  signalType: r.signalType,
  activationReason: r.activationReason,
  signalStrength: r.signalStrength,
  source: r.source,
  evaluation: { eligible: r.eligible === 1, outcome: r.outcome, reason: r.reason, evaluatedAt: r.evaluatedAt },
});

/** Newest signal first. The caller has checked that the agent belongs to the user. */
export function listAgentSignals(
  h: { sqlite: Database },
  agentId: string,
  page: { limit: number; offset: number },
): AgentSignalView[] {
  return h.sqlite
    .query<Row, [string, number, number]>(`${SELECT} ORDER BY s.created_at DESC, s.id DESC LIMIT ? OFFSET ?`)
    .all(agentId, page.limit, page.offset)
    .map(view);
}

/** One signal of that list, or 404 "Signal not found". */
export function getAgentSignal(h: { sqlite: Database }, agentId: string, signalId: number): AgentSignalView {
  const row = h.sqlite.query<Row, [string, number]>(`${SELECT} AND s.id = ?`).get(agentId, signalId);
  if (!row) throw new NotFoundError("Signal not found");
  return view(row);
}
