import { resolveStoredConfig } from "../agents/trading-config.ts";
import { type Clock, isoNow } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { LiveTradeRepository } from "../db/repositories/live-trades.ts";
import { ManualReplayRepository } from "../db/repositories/manual-replays.ts";
import type { PositionRepository } from "../db/repositories/positions.ts";
import { SignalRepository } from "../db/repositories/signals.ts";
import { TradingAgentRepository } from "../db/repositories/trading-agents.ts";
import { AppError, ConflictError, ExternalServiceError, NotFoundError, OperationalError } from "../errors.ts";
import { readBalance } from "../ledgers/balance-ledger.ts";
import { Big, SOL_MINT } from "../money.ts";
import type { GuardRails } from "./guard-rails.ts";
import { ManualRequestKeys, type RequestKey } from "./manual-idempotency.ts";
import { checkBeforeMarketData, checkMarketAndBalance } from "./rules/eligibility.ts";
import type { OpenResult, TradingEngine } from "./trading-engine.ts";

// A buy the operator asks for (issue 44 item 5, docs/decisions/operator-experience-v.md "Manual
// trading"): POST /agents/:id/buy, the dashboard's Buy form and Telegram's /buy. It is recorded
// as a signal of source `manual` (processed at once: never queued, so no other agent trades it)
// and bought through the engine's openPosition, the path every automated entry takes: the guard
// rails' gate (pause, breaker, limits, exposure), the screening and the floor in the executor,
// fees, ledgers, and the trade key of (agent, signal) that makes a retried request buy once.

/** The source of the signals recording the operator's own trades (manual buys and sales). */
export const MANUAL_SOURCE = "manual";

export interface ManualBuyRequest {
  tokenAddress: string;
  amountSol: string;
}

export interface ManualBuyResult {
  status: "opened" | "pending";
  signalId: number;
  positionId: string | null;
  tradingMode: "simulation" | "live";
}

interface Deps {
  database: DatabaseHandle;
  clock: Clock;
  engine: TradingEngine;
  guardRails: GuardRails;
  positions: PositionRepository;
  liveTradingEnabled: boolean;
}

/** A refusal by a rule an automated entry also obeys: 409 with the rule beside the error. */
class RefusedError extends ConflictError {
  constructor(rule: string, reason: string) {
    super(reason, { rule });
  }
}

export class ManualBuys {
  private readonly agents: TradingAgentRepository;
  private readonly signals: SignalRepository;
  private readonly replays: ManualReplayRepository;
  private readonly liveTrades: LiveTradeRepository;
  private readonly keys: ManualRequestKeys;

  constructor(private readonly d: Deps) {
    this.agents = new TradingAgentRepository(d.database.sqlite);
    this.signals = new SignalRepository(d.database.sqlite);
    this.replays = new ManualReplayRepository(d.database.sqlite);
    this.liveTrades = new LiveTradeRepository(d.database.sqlite);
    this.keys = new ManualRequestKeys(d.database, d.clock);
  }

  /**
   * Buys, or with an Idempotency-Key seen before answers what the first request bought
   * (manual-idempotency.ts; `replayed`: nothing was done, nothing to audit). Synchronous up to the engine's swap: the key's check, the rules and
   * the signal's insert with the key happen in one step no concurrent request can enter.
   */
  async buy(
    userId: string,
    agentId: string,
    req: ManualBuyRequest,
    key?: RequestKey,
  ): Promise<{ bought: ManualBuyResult; replayed: boolean }> {
    const a = this.agents.candidates(userId).find((x) => x.id === agentId);
    if (!a) throw new NotFoundError("Agent not found");
    const request = ["buy", agentId, req.tokenAddress, req.amountSol];
    const traded = (signalId: number) =>
      this.replays.positionOfSignal(agentId, signalId) !== null || this.liveTrades.signalInPlay(agentId, signalId);
    const first = this.keys.prior(key, request, traded);
    if (first !== null) return { bought: this.replay(agentId, first), replayed: true };
    const config = resolveStoredConfig(a.overrides);
    const size = new Big(req.amountSol);
    // The rules of an entry that still mean something when the operator picks the token and the
    // size: live trading switched on, the pause, a wallet, the token lists, one position per token,
    // the minimum balance. The automation switches, signal strength and type and the pacing between
    // trades choose signals; a manual buy has none to choose.
    const pre = checkBeforeMarketData({
      agent: { tradingMode: a.tradingMode, automatedTradingSimulation: true, automatedTradingLive: true },
      config: {
        // The operator's own choice: no source filter applies (filters.sources choose bots' signals).
        filters: { ...config.filters, minSignalStrength: 1, signalTypes: [], sources: [] },
        timing: { ...config.timing, minTimeBetweenTradesSeconds: 0 },
      },
      signal: {
        tokenAddress: req.tokenAddress,
        signalStrength: 5,
        signalType: "buy",
        apiKeyId: null,
        apiKeyName: null,
        source: "manual",
      },
      liveTradingEnabled: this.d.liveTradingEnabled,
      paused: this.d.guardRails.isPaused(userId, a.tradingMode),
      hasWallet: a.walletAddress !== null,
      hasOpenPositionOnToken: this.d.positions.hasOpen(a.id, req.tokenAddress),
      lastTradeAtMs: null,
      nowMs: this.d.clock.now(),
    });
    if (!pre.eligible) throw new RefusedError(pre.rule, pre.reason);
    const wallet = a.walletAddress as string;
    const solBalance = readBalance(
      { sqlite: this.d.database.sqlite },
      { agentId: a.id, walletAddress: wallet, tokenAddress: SOL_MINT },
    );
    const post = checkMarketAndBalance({
      // Market cap and liquidity filters choose among signals' tokens; the operator chose this one.
      config: { ...config, filters: { ...config.filters, minMarketCap: null, maxMarketCap: null, minLiquidity: null } },
      tokenAddress: req.tokenAddress,
      marketData: null,
      solBalance,
      tradeSizeSol: size,
    });
    if (!post.eligible) throw new RefusedError(post.rule, post.reason);
    const signal = this.signals.insert(
      userId,
      null,
      {
        tokenAddress: req.tokenAddress,
        symbol: null,
        signalType: "buy",
        activationReason: `manual buy of ${req.amountSol} SOL for agent ${a.name}`,
        signalStrength: 5,
        source: MANUAL_SOURCE,
      },
      isoNow(this.d.clock),
      "processed",
    );
    const bought = await this.keys.run(key, request, signal.id, traded, async () => {
      const result = await this.d.engine.openPosition({
        agent: { id: a.id, userId, name: a.name, tradingMode: a.tradingMode },
        config,
        walletAddress: wallet,
        signal: { id: signal.id, tokenAddress: req.tokenAddress, symbol: null },
        sizeSol: size,
      });
      return answer(result, { signalId: signal.id, tradingMode: a.tradingMode });
    });
    return { bought, replayed: false };
  }

  /** The first request's answer: the position its signal opened, or its live swap still in doubt. */
  private replay(agentId: string, signalId: number): ManualBuyResult {
    const p = this.replays.positionOfSignal(agentId, signalId);
    if (p) return { status: "opened", positionId: p.id, signalId, tradingMode: p.tradingMode as "simulation" | "live" };
    return { status: "pending", positionId: null, signalId, tradingMode: "live" };
  }
}

/**
 * What the audit log keeps of a manual buy (POST /agents/:id/buy and Telegram's /buy alike); the
 * token is `mint`, since the log drops any detail named like a secret ("token…").
 */
export function manualBuyDetails(agentId: string, req: ManualBuyRequest, r: ManualBuyResult) {
  return { agentId, mint: req.tokenAddress, amountSol: req.amountSol, status: r.status, signalId: r.signalId };
}

/** The engine's outcome as the route's answer; a refusal or a failure throws its error. */
function answer(result: OpenResult, base: Pick<ManualBuyResult, "signalId" | "tradingMode">): ManualBuyResult {
  switch (result.status) {
    case "opened":
      return { status: "opened", positionId: result.positionId, ...base };
    case "pending":
      return { status: "pending", positionId: null, ...base };
    case "skipped":
      throw new RefusedError(result.rule, result.reason);
    case "failed":
      // The engine's own refusals (screening, balance, the floor) keep their 4xx; a provider's is 502.
      if (result.error instanceof AppError && !(result.error instanceof OperationalError)) throw result.error;
      throw new ExternalServiceError("trading", result.reason);
  }
}
