import type { SqliteHandle } from "../db/client.ts";
import { type EvaluationDetail, SignalEvaluationRepository } from "../db/repositories/signal-evaluations.ts";
import type { SignalRecord, SignalStatus } from "../db/repositories/signals.ts";

// What became of a signal, per agent: the signal's processing state and each of
// its owner's agents' outcome with the rule and reason, from what the signal processor recorded
// in signal_evaluations. Answers "why did my signal do nothing?" without reading the log.

type ProcessingStatus = "pending" | "processing" | "done" | "expired";
/**
 * traded: it opened a position (or an exit signal closed one); ineligible: a rule refused it;
 * failed: eligible, but the trade did not happen (quote, swap, balance); pending: a live swap was
 * sent and awaits confirmation; stale: a buy decided too long after it was received (the reason
 * gives the age), which opened nothing.
 */
type EvaluationOutcome = "traded" | "ineligible" | "failed" | "pending" | "stale";

interface AgentDecision {
  agentId: string;
  agentName: string;
  outcome: EvaluationOutcome;
  /** The eligibility rule that refused the signal (ineligible only). */
  rule: string | null;
  reason: string | null;
  positionId: string | null;
  transactionId: string | null;
  at: string;
}

export interface SignalProcessing {
  status: ProcessingStatus;
  evaluations: AgentDecision[];
}

const STATUS: Record<SignalStatus, ProcessingStatus> = {
  pending: "pending",
  processing: "processing",
  processed: "done",
  expired: "expired",
};

/** The processor's stored outcomes (src/trading/signal-processor.ts) in the API's words. */
function outcomeOf(stored: string | null): EvaluationOutcome {
  switch (stored) {
    case "traded":
    case "closed":
      return "traded";
    case "skipped":
      return "ineligible";
    case "pending":
      return "pending";
    case "stale":
      return "stale";
    default:
      return "failed";
  }
}

/** A refusal is stored as "rule: reason" (the eligibility rules' own names). */
function toDecision(e: EvaluationDetail): AgentDecision {
  const outcome = outcomeOf(e.outcome);
  let rule: string | null = null;
  let reason = e.reason;
  if (outcome === "ineligible" && reason) {
    const cut = reason.indexOf(": ");
    if (cut > 0) {
      rule = reason.slice(0, cut);
      reason = reason.slice(cut + 2);
    }
  }
  const traded = outcome === "traded" || outcome === "pending";
  return {
    agentId: e.agentId,
    agentName: e.agentName,
    outcome,
    rule,
    reason,
    positionId: traded ? e.positionId : null,
    transactionId: traded ? e.transactionId : null,
    at: e.at,
  };
}

/** The processing of each signal (by id); the caller has checked the signals are the user's. */
export function signalProcessing(h: SqliteHandle, signals: readonly SignalRecord[]): Map<number, SignalProcessing> {
  const out = new Map<number, SignalProcessing>();
  for (const s of signals) out.set(s.id, { status: STATUS[s.processingStatus] ?? "pending", evaluations: [] });
  const details = new SignalEvaluationRepository(h.sqlite).detailsOf(signals.map((s) => s.id));
  for (const d of details) out.get(d.signalId)?.evaluations.push(toDecision(d));
  return out;
}
