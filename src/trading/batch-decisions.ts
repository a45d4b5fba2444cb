import { resolveStoredConfig } from "../agents/trading-config.ts";
import type { SignalEvaluation } from "../db/repositories/signal-evaluations.ts";
import type { DecidableSignal as SignalRecord } from "../db/repositories/signals.ts";
import type { TradingCandidate } from "../db/repositories/trading-agents.ts";
import { checkBeforeMarketData, ELIGIBILITY_RULES, type EligibilityRule } from "./rules/eligibility.ts";
import { evaluateSignalAge } from "./rules/stale-signal.ts";

// What a batch of signals can decide without waiting for an agent's turn (issue 35,
// docs/decisions/under-load.md): the stale buys, and the refusals by the rules that read only the
// agent, its configuration, the owner's pause switch and the signal — every rule before
// open_position. They depend on no earlier signal's outcome, so they need no turn. The reads they
// need are made once per batch: the owner's agents with their configuration, each configuration
// parsed once, each owner's pause switch once per mode.

/** The rules before open_position: they read only the agent, its configuration, the pause switch and the signal. */
const AGENT_ONLY_RULES: ReadonlySet<EligibilityRule> = new Set(
  ELIGIBILITY_RULES.slice(0, ELIGIBILITY_RULES.indexOf("open_position")),
);

/** An agent's decision made without its turn: a rule's refusal, or (rule null) a stale buy. */
export interface TurnlessRefusal {
  agent: TradingCandidate;
  rule: EligibilityRule | null;
  reason: string;
  ageSeconds?: number;
}

/** The evaluation row of a decision made without a turn, as the processor stores a refusal. */
export const evaluationOf = (signalId: number, r: TurnlessRefusal, createdAt: string): SignalEvaluation => ({
  signalId,
  agentId: r.agent.id,
  eligible: false,
  reason: r.rule ? `${r.rule}: ${r.reason}` : r.reason,
  outcome: r.rule ? "skipped" : "stale",
  createdAt,
});

interface BatchReads {
  candidates(userId: string): TradingCandidate[];
  isPaused(userId: string, mode: TradingCandidate["tradingMode"]): boolean;
}

/** One batch's reads, each made once, and the decisions they allow. */
export class BatchDecisions {
  private readonly agents = new Map<string, TradingCandidate[]>();
  private readonly paused = new Map<string, boolean>();
  private readonly configs = new Map<string, ReturnType<typeof resolveStoredConfig>>();

  constructor(
    private readonly reads: BatchReads,
    readonly nowMs: number,
    private readonly o: { maxAgeSeconds: number; liveTradingEnabled: boolean },
  ) {}

  /** The owner's agents with their configuration and wallet (one read per owner per batch). */
  agentsOf(userId: string): TradingCandidate[] {
    let a = this.agents.get(userId);
    if (!a) this.agents.set(userId, (a = this.reads.candidates(userId)));
    return a;
  }

  /** A pending buy signal's agents: those decided now, and those that wait for their turn. */
  split(signal: SignalRecord, agents: TradingCandidate[]): { refused: TurnlessRefusal[]; waiting: TradingCandidate[] } {
    const refused: TurnlessRefusal[] = [];
    const waiting: TradingCandidate[] = [];
    const age = evaluateSignalAge(Date.parse(signal.createdAt), this.nowMs, this.o.maxAgeSeconds);
    for (const agent of agents) {
      if (age.stale) {
        refused.push({ agent, rule: null, reason: age.reason, ageSeconds: age.ageSeconds });
        continue;
      }
      const r = this.refusedByAgentRules(signal, agent);
      if (r) refused.push({ agent, ...r });
      else waiting.push(agent);
    }
    return { refused, waiting };
  }

  /**
   * checkBeforeMarketData with the rules it cannot know here passed (no open position, no last
   * trade): the rules run in order and the first refusal is reported, so a refusal by an earlier
   * rule is exactly the one the full check gives. Null when no such rule refuses.
   */
  private refusedByAgentRules(signal: SignalRecord, a: TradingCandidate) {
    let config = this.configs.get(a.id);
    if (!config) this.configs.set(a.id, (config = resolveStoredConfig(a.overrides)));
    const pausedKey = `${a.userId}\n${a.tradingMode}`;
    let paused = this.paused.get(pausedKey);
    if (paused === undefined) this.paused.set(pausedKey, (paused = this.reads.isPaused(a.userId, a.tradingMode)));
    const r = checkBeforeMarketData({
      agent: a,
      config,
      signal,
      liveTradingEnabled: this.o.liveTradingEnabled,
      paused,
      hasWallet: a.walletAddress !== null,
      hasOpenPositionOnToken: false,
      lastTradeAtMs: null,
      nowMs: this.nowMs,
    });
    return !r.eligible && AGENT_ONLY_RULES.has(r.rule) ? { rule: r.rule, reason: r.reason } : null;
  }
}
