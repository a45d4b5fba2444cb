import type { BacktestTradeRow, BacktestVariantRow } from "../db/repositories/backtests.ts";
import type { PriceBarRepository } from "../db/repositories/price-bars.ts";
import type { PriceImpactRepository } from "../db/repositories/price-impacts.ts";
import type { LabSignal } from "../db/repositories/strategy-lab-signals.ts";
import type { Logger } from "../logger.ts";
import type { TokenDecimalsProvider } from "../market/types.ts";
import { loadPaths, toReplaySignals } from "./load-paths.ts";
import { alignSignals, replayVariant } from "./replay.ts";
import type { ResolvedVariant } from "./request.ts";

// One backtest from its signals to stored-form results: load the price paths once, replay every
// variant through the engine's rules (src/backtest/replay.ts). The worker (API backtests) and
// the `trading-agent backtest` command both run it, so the two can never disagree.

export interface RunBacktestDeps {
  bars: PriceBarRepository;
  decimals: TokenDecimalsProvider;
  logger: Logger;
  priorityFeeSol: number;
  horizonMs: number;
  /** Recorded price impacts; absent: the default impact for every fill (src/price-impact.ts). */
  impacts?: Pick<PriceImpactRepository, "table">;
}

export type VariantResult = Omit<BacktestVariantRow, "backtestId">;
export type TradeResult = Omit<BacktestTradeRow, "backtestId">;

export async function runBacktest(
  input: { initialSol: number; variants: readonly ResolvedVariant[]; signals: readonly LabSignal[] },
  d: RunBacktestDeps,
  /** Called after each variant (progress; the worker yields to requests there). */
  afterVariant: (done: number, total: number) => Promise<void> | void = () => {},
): Promise<{ variants: VariantResult[]; trades: TradeResult[] }> {
  const signals = toReplaySignals(input.signals);
  const mints = [...new Set(signals.map((s) => s.tokenAddress))];
  const decimals = await d.decimals.getDecimals(mints).catch((err) => {
    d.logger.warn("token decimals unavailable; 6 assumed", { reason: err instanceof Error ? err.message : err });
    return new Map<string, number>();
  });
  const paths = loadPaths(d.bars, signals, d.horizonMs, decimals);
  const aligned = alignSignals(signals, paths);
  const impacts = d.impacts?.table(mints);
  const variants: VariantResult[] = [];
  const trades: TradeResult[] = [];
  for (const [i, v] of input.variants.entries()) {
    const r = replayVariant(
      {
        config: v.config,
        initialSol: String(input.initialSol),
        signals,
        paths,
        priorityFeeSol: d.priorityFeeSol,
        impacts,
      },
      aligned,
    );
    variants.push({ position: i, name: v.name, summary: JSON.stringify(r.summary), equity: JSON.stringify(r.equity) });
    for (const [seq, t] of r.trades.entries())
      trades.push({
        variant: i,
        seq,
        signalId: t.signalId,
        tokenAddress: t.tokenAddress,
        openedAt: new Date(t.openedAtMs).toISOString(),
        closedAt: new Date(t.closedAtMs).toISOString(),
        entryPriceSol: t.entryPriceSol,
        exitPriceSol: t.exitPriceSol,
        amount: t.amount,
        costSol: t.costSol,
        profitLossSol: t.profitLossSol,
        changePercent: t.changePercent,
        closeReason: t.closeReason,
        takeProfitLevels: t.takeProfitLevels,
        dcaOrders: t.dcaOrders,
      });
    await afterVariant(i + 1, input.variants.length);
  }
  return { variants, trades };
}
