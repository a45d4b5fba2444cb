// One monitor tick for one position (PRODUCT.md §4): after the tick priced the token, the peak is
// raised, then the rules apply in this order — stale-trade, trailing stop-loss, take-profit, DCA —
// and the FIRST that fires is the tick's only action for this position (docs/decisions.md
// "Trading rules"). The next tick sees the state that action left (smaller remainder, higher
// levelsHit, lower average entry) and may fire the next rule. The new peak is returned whether or
// not an action fires; persist it when `peakChanged`.

import { type Big, decStr } from "../../money.ts";
import { type DcaPositionState, evaluateDca } from "./dca.ts";
import { big } from "./decimal-input.ts";
import { evaluateStale } from "./stale-trade.ts";
import { evaluateStopLoss } from "./stop-loss.ts";
import { evaluateTakeProfit, type TakeProfitPositionState } from "./take-profit.ts";
import type { DecimalInput, PositionRulesConfig } from "./types.ts";

export interface MonitoredPosition extends TakeProfitPositionState, DcaPositionState {
  /** Epoch ms of the opening buy. */
  openedAtMs: number;
  /** Persisted peak price in SOL (the entry price when opened). */
  peakPriceSol: DecimalInput;
}

export type PositionAction =
  | { kind: "none" }
  /** Sell what remains and close with this reason. */
  | { kind: "close"; reason: "stale_trade" | "stop_loss"; detail: string }
  /**
   * A SELL with isTakeProfit true of `sellAmount` tokens; then persist levelsHit, remainingAmount,
   * moonBagActivated, moonBagAmount. When `closesPosition`, close with closeReason `take_profit`.
   */
  | {
      kind: "take_profit";
      level: number;
      levelPriceSol: Big;
      sellAmount: Big;
      remainingAfter: Big;
      levelsHit: number;
      moonBagActivated: boolean;
      moonBagAmount: Big | null;
      closesPosition: boolean;
    }
  /** A BUY with isDca true of `amountSol` SOL; then apply `applyDcaFill`. */
  | { kind: "dca"; order: number; triggerPriceSol: Big; amountSol: Big };

export interface PositionTickInput {
  config: PositionRulesConfig;
  position: MonitoredPosition;
  /** Current token price in SOL, as priced by this tick. */
  priceSol: DecimalInput;
  nowMs: number;
}

export interface PositionTickDecision {
  action: PositionAction;
  peakPriceSol: Big;
  peakChanged: boolean;
}

export function decidePositionAction(input: PositionTickInput): PositionTickDecision {
  const { config, position, priceSol, nowMs } = input;
  const stop = evaluateStopLoss(config.stopLoss, position.peakPriceSol, priceSol);
  const peakPriceSol = stop.peakPriceSol;
  const decided = (action: PositionAction): PositionTickDecision => ({
    action,
    peakPriceSol,
    peakChanged: !peakPriceSol.eq(position.peakPriceSol),
  });

  const stale = evaluateStale(config.filters, position.openedAtMs, nowMs);
  if (stale.stale) {
    const days = config.filters.maxPositionAgeDays;
    return decided({ kind: "close", reason: "stale_trade", detail: `Position older than ${days} days` });
  }

  if (stop.triggered) {
    return decided({
      kind: "close",
      reason: "stop_loss",
      detail:
        `Price ${decStr(big(priceSol))} SOL is at or below the stop price ${decStr(stop.stopPriceSol)} SOL` +
        ` (peak ${decStr(peakPriceSol)})`,
    });
  }

  const tp = evaluateTakeProfit(config.takeProfit, position, priceSol);
  if (tp.triggered) {
    const { triggered: _, ...sale } = tp;
    return decided({ kind: "take_profit", ...sale });
  }

  const dca = evaluateDca(config.dca, position, priceSol);
  if (dca.triggered) {
    const { triggered: _, ...buy } = dca;
    return decided({ kind: "dca", ...buy });
  }

  return decided({ kind: "none" });
}
