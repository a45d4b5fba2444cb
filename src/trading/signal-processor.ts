import { resolveStoredConfig } from "../agents/trading-config.ts";
import { type Clock, isoNow } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import type { GroupCommit } from "../db/group-commit.ts";
import type { PositionRepository } from "../db/repositories/positions.ts";
import { SettlementRepository } from "../db/repositories/settlement.ts";
import { type SignalEvaluation, SignalEvaluationRepository } from "../db/repositories/signal-evaluations.ts";
import type { DecidableSignal as SignalRow } from "../db/repositories/signals.ts";
import { TradingAgentRepository, type TradingCandidate } from "../db/repositories/trading-agents.ts";
import { publicErrorMessage } from "../errors.ts";
import { readBalance } from "../ledgers/balance-ledger.ts";
import type { Logger } from "../logger.ts";
import type { MarketDataProvider, TokenMarketData } from "../market/types.ts";
import { SOL_MINT } from "../money.ts";
import type { SignalService } from "../signals/signal-service.ts";
import { AgentTurns, type RunTurns } from "./agent-turns.ts";
import { BatchDecisions, evaluationOf } from "./batch-decisions.ts";
import type { GuardRails } from "./guard-rails.ts";
import { checkBeforeMarketData, checkMarketAndBalance, needsMarketData } from "./rules/eligibility.ts";
import { evaluateSignalAge, exitSourceRefusal, isExitSignal, positionSizeSol } from "./rules/index.ts";
import { SignalQuoteBook } from "./signal-quotes.ts";
import type { SourceLimits } from "./source-limits.ts";
import type { OpenResult, TradingEngine } from "./trading-engine.ts";

// What a signal does (SPEC "Events" item 1, PRODUCT.md §4): every agent of the signal's owner —
// and only theirs — is evaluated in order; each refusal is logged with its rule; eligible agents
// trade. An exit signal (sell / exit / close) closes the positions its owner's agents hold in the
// token. The outcome per agent is kept in signal_evaluations (the public API's agent signals).
//
// Concurrency (docs/decisions.md "Performance"): the queue runs several signals at
// once and a signal acts for all its agents at once; each agent still takes signals one at a
// time, in queue order (agent-turns.ts). A live agent does its own quote and swap and waits for
// no simulation agent; simulation agents share the signal's quotes (signal-quotes.ts) and their
// settlements and evaluation rows share commits.
//
// Batches (issue 35): what a batch can decide without an agent's turn is decided with one read each
// and one commit (./batch-decisions.ts); every other agent goes the way it went before, in its turn.

export interface SignalProcessorDeps {
  sqlite: DatabaseHandle["sqlite"];
  clock: Clock;
  logger: Logger;
  signals: SignalService;
  positions: PositionRepository;
  engine: TradingEngine;
  marketData: MarketDataProvider;
  liveTradingEnabled: boolean;
  /** The owner's pause switches, risk limits and daily-loss breaker (rules paused and risk_limit). */
  guardRails: GuardRails;
  /** Status and evaluation rows of concurrent runs share commits (src/db/group-commit.ts). */
  commits: GroupCommit;
  /** SIGNAL_MAX_AGE_SECONDS: a buy decided later than this after receipt opens nothing. */
  signalMaxAgeSeconds: number;
  /** Limits a signal's source sets on a buy (copy trading's per-watch limits); none: no limits. */
  sourceLimits?: SourceLimits;
}

const RESOLVED: Promise<void> = Promise.resolve();

export class SignalProcessor {
  private readonly log: Logger;

  private readonly agents: TradingAgentRepository;
  private readonly evaluations: SignalEvaluationRepository;
  private readonly trades: SettlementRepository;

  constructor(private readonly d: SignalProcessorDeps) {
    this.log = d.logger.child({ component: "signals" });
    this.agents = new TradingAgentRepository(d.sqlite);
    this.evaluations = new SignalEvaluationRepository(d.sqlite);
    this.trades = new SettlementRepository(d.sqlite);
  }

  private readonly turns = new AgentTurns();

  private record(
    signalId: number,
    agentId: string,
    eligible: boolean,
    reason: string | null,
    outcome: string | (() => { outcome: string; reason: string | null }),
  ): Promise<void> {
    const createdAt = isoNow(this.d.clock);
    return this.d.commits.write(() => {
      // Decided inside the commit when it depends on the trade's state: the reconciler may settle
      // a live buy between the engine's answer and this write.
      const o = typeof outcome === "function" ? outcome() : { outcome, reason };
      this.evaluations.record({ signalId, agentId, eligible, reason: o.reason, outcome: o.outcome, createdAt });
    });
  }

  /** The evaluation of a signal whose buy key exists: pending while the live swap is in doubt. */
  private keyedOutcome(agentId: string, signalId: number, failure: string | null, sentBefore = false) {
    const status = this.d.engine.tradeStatus(agentId, signalId, "BUY");
    // Sent before a restart and not settled yet: the reconciler marks it traded or failed.
    if (!status && sentBefore) return { outcome: "pending", reason: null };
    if (status === "pending") return { outcome: "pending", reason: null };
    if (status === "failed") return { outcome: "failed", reason: failure ?? "The live swap failed on chain" };
    return status ? { outcome: "traded", reason: null } : { outcome: "failed", reason: failure };
  }

  /**
   * The evaluation of a buy from the engine's result. Opened and failed say it all; a pending or
   * skipped buy is read from its trade key inside the commit, because the reconciler may settle a
   * live swap between the engine's answer and this write.
   */
  private openOutcome(agentId: string, signalId: number, result: OpenResult) {
    switch (result.status) {
      case "opened":
        return { outcome: "traded", reason: null };
      case "failed":
        return { outcome: "failed", reason: result.reason };
      case "pending":
        return this.keyedOutcome(agentId, signalId, null, true);
      case "skipped":
        return this.keyedOutcome(agentId, signalId, null);
    }
  }

  private mark(signalId: number, status: "processing" | "processed"): Promise<void> {
    return this.d.commits.write(() => this.d.signals.markStatus(signalId, status));
  }

  /** Time of the agent's last trade (any side), for timing.minTimeBetweenTradesSeconds. */
  private lastTradeAt(agentId: string): number | null {
    const t = this.trades.lastTradeAt(agentId);
    return t ? Date.parse(t) : null;
  }

  /** Runs in flight, by signal id: a second caller joins the first run instead of starting another. */
  private readonly inFlight = new Map<number, Promise<void>>();

  /** Processes one signal, at most once per (agent, signal, action): a batch of one. */
  process(signalId: number): Promise<void> {
    return this.processBatch([signalId])[0] as Promise<void>;
  }

  /**
   * The queue's handler: decides `signalIds` in order; one promise per signal, settled once it is
   * done (its trades landed or failed too). `onDecided(id)` says earlier that a signal is decided:
   * each of its agents refused it, recorded its outcome, or holds or waits behind a trade in
   * flight (the queue's lag stops counting it). Everything up to the turn reservations runs
   * synchronously, so the agents take the signals in the queue's order.
   */
  processBatch(signalIds: readonly number[], onDecided: (signalId: number) => void = () => {}): Promise<void>[] {
    const signals = this.d.signals.byIds(signalIds);
    const batch = new BatchDecisions(
      { candidates: (u) => this.agents.candidates(u), isPaused: (u, m) => this.d.guardRails.isPaused(u, m) },
      this.d.clock.now(),
      { maxAgeSeconds: this.d.signalMaxAgeSeconds, liveTradingEnabled: this.d.liveTradingEnabled },
    );
    const at = isoNow(this.d.clock);
    const decided: SignalEvaluation[] = [];
    const done: number[] = [];
    // Signals decided here settle with the batch's commit, made once the loop has seen them all.
    const inCommit: number[] = [];
    const out: Array<Promise<void> | null> = [];
    for (const id of signalIds) {
      // The trade key is checked before the swap but written after it, so two concurrent runs of one
      // signal would both swap (a live swap cannot be undone) before one of them is refused.
      const running = this.inFlight.get(id);
      const signal = signals.get(id);
      if (running || !signal || signal.processingStatus === "processed" || signal.processingStatus === "expired") {
        out.push(running ?? RESOLVED); // deleted before its turn, or decided already
        continue;
      }
      let waiting = batch.agentsOf(signal.userId);
      // A signal an earlier run started may have traded for some agent: the whole way, with its keys.
      if (waiting.length > 0 && !isExitSignal(signal.signalType) && signal.processingStatus === "pending") {
        const split = batch.split(signal, waiting);
        waiting = split.waiting;
        for (const r of split.refused) {
          this.logRefusal(signal, r.agent, r.rule, r.reason, r.ageSeconds);
          decided.push(evaluationOf(signal.id, r, at));
        }
      }
      if (waiting.length === 0) {
        done.push(signal.id);
        inCommit.push(out.length);
        out.push(null);
        continue;
      }
      const run = this.runInTurns(signal, waiting, () => onDecided(id)).finally(() => this.inFlight.delete(id));
      this.inFlight.set(id, run);
      out.push(run);
    }
    if (decided.length > 0 || done.length > 0) {
      // Its own transaction, at once: the batch is one write already (the group commit took 2.5×).
      let commit: Promise<void> = RESOLVED;
      try {
        this.d.sqlite
          .transaction(() => {
            this.evaluations.recordMany(decided);
            for (const id of done) this.d.signals.markStatus(id, "processed");
          })
          .immediate();
      } catch (err) {
        commit = Promise.reject(err);
      }
      for (const i of inCommit) out[i] = commit;
    }
    return out as Promise<void>[];
  }

  private logRefusal(signal: SignalRow, a: TradingCandidate, rule: string | null, reason: string, ageSeconds?: number) {
    if (rule === null) {
      this.log.info("stale signal not acted on", { signalId: signal.id, agentId: a.id, ageSeconds });
      return;
    }
    this.log.info("agent not eligible for signal", {
      signalId: signal.id,
      agentId: a.id,
      tokenAddress: signal.tokenAddress,
      rule,
      reason,
    });
  }

  /**
   * One signal for `agents`, each in its turn (reserved now, synchronously, in queue order).
   * `decided` is called once every agent is decided or holds or waits behind a trade in flight.
   */
  private async runInTurns(signal: SignalRow, agents: TradingCandidate[], decided: () => void): Promise<void> {
    const turns = this.turns.forRun(
      agents.map((a) => a.id),
      decided,
    );
    try {
      if (agents.length > 0) {
        await this.mark(signal.id, "processing");
        if (isExitSignal(signal.signalType)) await this.processExit(signal, agents, turns);
        else await this.processEntry(signal, agents, turns);
      }
    } finally {
      turns.release();
    }
    await this.mark(signal.id, "processed");
  }

  private async processExit(signal: SignalRow, agents: TradingCandidate[], turns: RunTurns): Promise<void> {
    await turns.each(agents, async (a, trading) => {
      if (this.d.engine.alreadyTraded(a.id, signal.id, "SELL")) {
        await this.record(signal.id, a.id, true, null, "closed");
        return;
      }
      const p = this.d.positions.openForAgentToken(a.id, signal.tokenAddress);
      if (!p) return;
      // A copied sell closes only what its own source opened (rules/signal-source.ts).
      const { sources } = resolveStoredConfig(a.overrides).filters;
      const other = exitSourceRefusal(sources, signal, this.d.signals.originOfPosition(p.id));
      if (other) return this.record(signal.id, a.id, false, `source: ${other}`, "skipped");
      // An exit signal is an automatic trade: a live position needs both live switches.
      if (p.tradingMode === "live" && !(this.d.liveTradingEnabled && a.automatedTradingLive)) {
        this.log.info("exit signal not acted on: automatic live trading is off", {
          signalId: signal.id,
          agentId: a.id,
          positionId: p.id,
        });
        await this.record(
          signal.id,
          a.id,
          false,
          "live_trading: automatic live trading is off for this agent or globally",
          "skipped",
        );
        return;
      }
      try {
        trading();
        await this.d.engine.closePosition(p.id, "signal", { signalId: signal.id });
        await this.record(signal.id, a.id, true, null, "closed");
      } catch (err) {
        const reason = publicErrorMessage(err);
        this.log.warn("exit signal close failed", { signalId: signal.id, agentId: a.id, positionId: p.id, reason });
        await this.record(signal.id, a.id, true, reason, "failed");
      }
    });
  }

  private async processEntry(signal: SignalRow, agents: TradingCandidate[], turns: RunTurns): Promise<void> {
    // Market data is fetched at most once per signal, and only if some agent's filter needs it.
    let market: Promise<TokenMarketData | null> | null = null;
    const marketData = () =>
      (market ??= this.d.marketData
        .getTokens([signal.tokenAddress])
        .then((m) => m.get(signal.tokenAddress) ?? null)
        .catch((err) => {
          this.log.warn("market data unavailable", {
            signalId: signal.id,
            tokenAddress: signal.tokenAddress,
            reason: err instanceof Error ? err.message : String(err),
          });
          return null;
        }));
    // The simulated buys of this signal share quotes (src/trading/signal-quotes.ts).
    const sharedQuotes = new SignalQuoteBook();

    await turns.each(agents, (a, trading) => this.enter(signal, a, marketData, sharedQuotes, trading));
  }

  /** One agent's entry: the rules in order (rules/eligibility.ts), then the buy. */
  private async enter(
    signal: SignalRow,
    a: TradingCandidate,
    marketData: () => Promise<TokenMarketData | null>,
    sharedQuotes: SignalQuoteBook,
    trading: () => void,
  ): Promise<void> {
    const now = this.d.clock.now();
    // Processed before a crash or restart: the trade key says so; never trade twice.
    if (this.d.engine.alreadyTraded(a.id, signal.id, "BUY")) {
      await this.record(signal.id, a.id, true, null, () => this.keyedOutcome(a.id, signal.id, null));
      return;
    }
    // Decided too late after it was received (a backlog, a restart): the buy opens nothing.
    const age = evaluateSignalAge(Date.parse(signal.createdAt), now, this.d.signalMaxAgeSeconds);
    if (age.stale) {
      this.logRefusal(signal, a, null, age.reason, age.ageSeconds);
      await this.record(signal.id, a.id, false, age.reason, "stale");
      return;
    }
    const config = resolveStoredConfig(a.overrides);
    const refuse = async (r: { rule: string; reason: string }) => {
      this.logRefusal(signal, a, r.rule, r.reason);
      await this.record(signal.id, a.id, false, `${r.rule}: ${r.reason}`, "skipped");
    };
    const pre = checkBeforeMarketData({
      agent: a,
      config,
      signal,
      liveTradingEnabled: this.d.liveTradingEnabled,
      paused: this.d.guardRails.isPaused(signal.userId, a.tradingMode),
      hasWallet: a.walletAddress !== null,
      hasOpenPositionOnToken: this.d.positions.hasOpen(a.id, signal.tokenAddress),
      lastTradeAtMs: config.timing.minTimeBetweenTradesSeconds > 0 ? this.lastTradeAt(a.id) : null,
      nowMs: now,
    });
    if (!pre.eligible) {
      await refuse(pre);
      return;
    }
    const wallet = a.walletAddress as string;
    const solBalance = readBalance(
      { sqlite: this.d.sqlite },
      { agentId: a.id, walletAddress: wallet, tokenAddress: SOL_MINT },
    );
    const limited = this.d.sourceLimits?.check(signal, a.id, positionSizeSol(config.positionSizing, solBalance), now);
    if (limited && !limited.eligible) {
      await refuse(limited);
      return;
    }
    const size = limited?.sizeSol ?? positionSizeSol(config.positionSizing, solBalance);
    const md = needsMarketData(config.filters) ? await marketData() : null;
    // Rule risk_limit is the guard rails' gate's, asked by the engine at the moment of the buy.
    const post = checkMarketAndBalance({
      config,
      tokenAddress: signal.tokenAddress,
      marketData: md ? { marketCap: md.marketCapUsd, liquidity: md.liquidityUsd } : null,
      solBalance,
      tradeSizeSol: size,
    });
    if (!post.eligible) {
      await refuse(post);
      return;
    }
    // The engine asks the guard rails' gate (pause, breaker, exposure, open positions) and holds
    // the buy's place until it is recorded, in the live journal, or failed.
    trading(); // decided: the buy is in flight (a live one may take long to land)
    const result = await this.d.engine.openPosition({
      agent: { id: a.id, userId: a.userId, name: a.name, tradingMode: a.tradingMode },
      config,
      walletAddress: wallet,
      signal: { id: signal.id, tokenAddress: signal.tokenAddress, symbol: signal.symbol },
      sizeSol: size,
      // A signal without a symbol takes the one market data gives (not the mint's first letters).
      marketSymbol: signal.symbol ? null : ((md ?? (await marketData()))?.symbol ?? null),
      // Live: a second, independent price for the buy's floor when the Price API has none.
      marketPriceUsd: a.tradingMode === "live" ? ((await marketData())?.priceUsd ?? null) : null,
      // Live agents quote and swap on their own (the live executor ignores shared quotes).
      sharedQuotes: a.tradingMode === "simulation" ? sharedQuotes : undefined,
    });
    if (result.status === "skipped" && result.rule !== "already_traded") {
      await refuse(result);
      return;
    }
    await this.record(signal.id, a.id, true, null, () => this.openOutcome(a.id, signal.id, result));
  }
}
