import type { SqliteHandle } from "../db/client.ts";
import { type AgentSignalRecord, SignalEvaluationRepository } from "../db/repositories/signal-evaluations.ts";
import { NotFoundError } from "../errors.ts";
import { type Signal, toSignal } from "../signals/signal-service.ts";

// GET /v1/agents/:agentId/signals[/:signalId] (SPEC "Public API"): the signals the agent acted on
// or was eligible for, from what the signal processor recorded per agent (signal_evaluations).
// Signals the agent was not eligible for (filters, balance, automation off) are left out.

interface SignalEvaluationView {
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

const view = (r: AgentSignalRecord): AgentSignalView => ({
  ...toSignal(r),
  evaluation: { eligible: r.eligible, outcome: r.outcome, reason: r.reason, evaluatedAt: r.evaluatedAt },
});

/** Newest signal first. The caller has checked that the agent belongs to the user. */
export function listAgentSignals(
  h: SqliteHandle,
  agentId: string,
  page: { limit: number; offset: number },
): AgentSignalView[] {
  return new SignalEvaluationRepository(h.sqlite).agentSignals(agentId, page.limit, page.offset).map(view);
}

/** One signal of that list, or 404 "Signal not found". */
export function getAgentSignal(h: SqliteHandle, agentId: string, signalId: number): AgentSignalView {
  const row = new SignalEvaluationRepository(h.sqlite).agentSignal(agentId, signalId);
  if (!row) throw new NotFoundError("Signal not found");
  return view(row);
}
