import { resolveStoredConfig } from "../agents/trading-config.ts";
import type { DatabaseHandle } from "../db/client.ts";
import type { PositionRecord } from "../db/repositories/positions.ts";
import { OperationalError, publicErrorMessage, TradingError } from "../errors.ts";
import { readBalance } from "../ledgers/balance-ledger.ts";
import type { Logger } from "../logger.ts";
import type { Metrics } from "../metrics/metrics.ts";
import { type Big, decStr, SOL_DECIMALS, SOL_MINT, toAtomic } from "../money.ts";
import type { SwapFill, SwapRequest, TradeExecutor } from "./executor.ts";
import type { BuyGate, BuyPass } from "./guard-rails.ts";
import { ActionAlreadyTakenError, recordedPriceSol } from "./live/index.ts";
import { dcaWithinMinimumBalance } from "./rules/dca.ts";
import { resolveSlippageBps } from "./rules/slippage.ts";
import type { TradingMode } from "./rules/types.ts";
import type { TradeReporter } from "./settlement/post-commit.ts";
import type { Settled, Settlement, SettleOutcome } from "./settlement/types.ts";
import { screeningFilters } from "./token-screen.ts";
import type { OpenRequest, OpenResult } from "./trade-requests.ts";

// The trading engine's buys (issue 41 item 2, docs/decisions/controls-without-side-doors.md):
// a signal's buy and a DCA order, each admitted by the guard rails' one gate (guard-rails.ts
// admitBuy) before anything is asked of the network, and swapped only through swapBuy with the
// gate's pass. The pass is released once the buy is recorded (a position), in the live journal
// (a swap in doubt, which the gate counts from there) or failed. test/trading/buy-paths.test.ts
// keeps swapBuy the only way a buy reaches an executor.

/** What the engine lends its buys. */
export interface BuyPathDeps {
  sqlite: DatabaseHandle["sqlite"];
  gate: BuyGate;
  log: Logger;
  metrics: Metrics;
  reporter: TradeReporter;
  executorFor(mode: TradingMode): TradeExecutor;
  tokenDecimals(mint: string): Promise<number>;
  solUsd(): Promise<Big>;
  /** Refuses a buy the wallet cannot pay, before any swap. */
  assertSol(agentId: string, walletAddress: string, amount: Big): void;
  settle<T extends Settled>(mode: TradingMode, run: (s: Settlement) => SettleOutcome<T>): Promise<SettleOutcome<T>>;
  alreadyTraded(agentId: string, signalId: number, action: "BUY"): boolean;
}

const ALREADY_TRADED = {
  status: "skipped",
  rule: "already_traded",
  reason: "signal already traded by this agent",
} as const;

export class BuyPath {
  constructor(private readonly d: BuyPathDeps) {}

  /** A signal's buy (the engine's openPosition). */
  async open(req: OpenRequest): Promise<OpenResult> {
    const { agent, config, signal } = req;
    const mode = agent.tradingMode;
    if (this.d.alreadyTraded(agent.id, signal.id, "BUY")) {
      this.d.log.info("trade skipped: signal already traded by this agent", {
        agentId: agent.id,
        signalId: signal.id,
        tokenAddress: signal.tokenAddress,
      });
      return ALREADY_TRADED;
    }
    const gate = this.d.gate.admitBuy({
      userId: agent.userId,
      agentId: agent.id,
      mode,
      sizeSol: req.sizeSol,
      action: { kind: "open", signalId: signal.id },
      agentMaxOpenPositions: config.risk.maxOpenPositions,
    });
    if (!gate.admitted) return { status: "skipped", rule: gate.rule, reason: gate.reason };
    try {
      return await this.openAdmitted(req, gate.pass);
    } finally {
      // Recorded (a position, or the journal's row of a swap in doubt) or failed: the stored state counts it now.
      gate.pass.release();
    }
  }

  private async openAdmitted(req: OpenRequest, pass: BuyPass): Promise<OpenResult> {
    const { agent, config, signal } = req;
    const mode = agent.tradingMode;
    const ctx = { agentId: agent.id, signalId: signal.id, tokenAddress: signal.tokenAddress };
    try {
      const executor = this.d.executorFor(mode);
      const [decimals, solUsd] = await Promise.all([this.d.tokenDecimals(signal.tokenAddress), this.d.solUsd()]);
      const lamports = toAtomic(req.sizeSol, SOL_DECIMALS);
      if (lamports <= 0n) throw new TradingError("Trade size rounds to zero");
      // Cheap pre-check before any network call; the settlement's debit (size plus fees) is the authority.
      this.d.assertSol(agent.id, req.walletAddress, req.sizeSol);
      const symbol = signal.symbol || req.marketSymbol || signal.tokenAddress.slice(0, 6);
      const fill = await this.swapBuy(executor, pass, {
        agentId: agent.id,
        walletAddress: req.walletAddress,
        tokenMint: signal.tokenAddress,
        tokenDecimals: decimals,
        amountAtomic: lamports,
        slippageBps: resolveSlippageBps(null, config.slippage),
        maxBps: config.slippage.maxBps,
        sharedQuotes: req.sharedQuotes,
        referencePriceSol: recordedPriceSol(req.marketPriceUsd, solUsd),
        screening: screeningFilters(config.filters),
        intent: { kind: "open", userId: agent.userId, signalId: signal.id, symbol },
      });
      const trade = {
        agentId: agent.id,
        userId: agent.userId,
        walletAddress: req.walletAddress,
        signalId: signal.id,
        tokenAddress: signal.tokenAddress,
        symbol,
        decimals,
        mode,
      };
      const outcome = await this.d.settle(mode, (s) => s.open(trade, fill, solUsd));
      if (outcome.status === "settled") return { status: "opened", positionId: outcome.trade.positionId };
      if (outcome.status === "pending") return { status: "pending", reason: "the live swap awaits the chain" };
      this.d.log.info("trade skipped: signal already traded by this agent", ctx);
      return ALREADY_TRADED;
    } catch (err) {
      if (err instanceof ActionAlreadyTakenError) {
        // An earlier attempt (before a restart) was sent: the reconciler completes it, not a new swap.
        this.d.log.info("trade skipped: this signal's buy was already sent", ctx);
        return { status: "pending", reason: "the buy was sent before a restart" };
      }
      this.d.reporter.failed(ctx, agent.userId, "buy", mode, err, this.d.log);
      return { status: "failed", reason: publicErrorMessage(err), error: err };
    }
  }

  /** DCA order k of a position (the engine's dcaBuy). */
  async dca(p: PositionRecord, order: number, amountSol: Big): Promise<"recorded" | "skipped" | "failed"> {
    const mode = p.tradingMode;
    const ctx = { agentId: p.agentId, positionId: p.id, tokenAddress: p.tokenAddress, dcaOrder: order };
    try {
      const config = resolveStoredConfig(p.configOverrides);
      const solKey = { agentId: p.agentId, walletAddress: p.walletAddress, tokenAddress: SOL_MINT };
      const balance = readBalance({ sqlite: this.d.sqlite }, solKey);
      // SPEC: an agent needs the minimum balance to trade; a DCA order may not take it under.
      if (!dcaWithinMinimumBalance(balance, amountSol, config.minimumAgentBalance)) {
        this.d.log.info("DCA order skipped", {
          ...ctx,
          rule: "minimum_balance",
          reason: `SOL balance ${decStr(balance)} less the order's ${decStr(amountSol)} is below minimumAgentBalance ${config.minimumAgentBalance}`,
        });
        this.d.metrics.tradesSkipped.inc({ mode, rule: "minimum_balance" });
        return "skipped";
      }
      // The same gate as every entry: held while paused, by the breaker, over maxExposureSol.
      const gate = this.d.gate.admitBuy({
        userId: p.userId,
        agentId: p.agentId,
        mode,
        sizeSol: amountSol,
        action: { kind: "dca", positionId: p.id, order },
        agentMaxOpenPositions: null,
      });
      if (!gate.admitted) {
        this.d.log.info("DCA order skipped", { ...ctx, rule: gate.rule, reason: gate.reason });
        this.d.metrics.tradesSkipped.inc({ mode, rule: gate.rule });
        return "skipped";
      }
      try {
        return await this.dcaAdmitted(p, order, amountSol, gate.pass);
      } finally {
        gate.pass.release();
      }
    } catch (err) {
      if (err instanceof OperationalError) throw err;
      this.d.reporter.failed(ctx, p.userId, "buy", mode, err, this.d.log);
      return "failed";
    }
  }

  private async dcaAdmitted(
    p: PositionRecord,
    order: number,
    amountSol: Big,
    pass: BuyPass,
  ): Promise<"recorded" | "failed"> {
    const mode = p.tradingMode;
    const ctx = { agentId: p.agentId, positionId: p.id, tokenAddress: p.tokenAddress, dcaOrder: order };
    try {
      const config = resolveStoredConfig(p.configOverrides);
      // Refuse before swapping, as openPosition does: the settling debit stays the authority.
      this.d.assertSol(p.agentId, p.walletAddress, amountSol);
      const solUsd = await this.d.solUsd();
      const fill = await this.swapBuy(this.d.executorFor(mode), pass, {
        agentId: p.agentId,
        walletAddress: p.walletAddress,
        tokenMint: p.tokenAddress,
        tokenDecimals: p.tokenDecimals,
        amountAtomic: toAtomic(amountSol, SOL_DECIMALS),
        slippageBps: resolveSlippageBps(null, config.slippage),
        maxBps: config.slippage.maxBps,
        referencePriceSol: recordedPriceSol(p.lastPriceSol),
        // Screened like the opening buy: since entry a Token-2022 fee may have been raised or the
        // way back to SOL gone, and averaging down into either only adds to the loss.
        screening: screeningFilters(config.filters),
        intent: { kind: "dca", positionId: p.id, order },
      });
      return (await this.d.settle(mode, (s) => s.dca(p, order, fill, solUsd))).status === "settled"
        ? "recorded"
        : "failed";
    } catch (err) {
      if (err instanceof OperationalError) throw err;
      if (err instanceof ActionAlreadyTakenError) {
        this.d.log.info("DCA order skipped: it was already sent", ctx);
        return "failed";
      }
      this.d.reporter.failed(ctx, p.userId, "buy", mode, err, this.d.log);
      return "failed";
    }
  }

  /**
   * The only way a buy reaches an executor: with a pass of the guard rails' gate that is still
   * held (test/trading/buy-paths.test.ts keeps it so). A buy without one is a bug, never a trade.
   */
  private swapBuy(executor: TradeExecutor, pass: BuyPass, req: Omit<SwapRequest, "side">): Promise<SwapFill> {
    if (!this.d.gate.holds(pass)) throw new TradingError("A buy reached the swap without passing the guard rails");
    return executor.swap({ ...req, side: "BUY" });
  }
}
