import { Big, decStr } from "../money.ts";
import { NO_IMPACTS } from "../price-impact.ts";
import {
  applyDcaFill,
  checkBeforeMarketData,
  checkMarketAndBalance,
  closePnl,
  dcaWithinMinimumBalance,
  decidePositionAction,
  isExitSignal,
  nextPeak,
  type PositionAction,
  positionSizeSol,
  salePnl,
} from "../trading/rules/index.ts";
import { isRefused, replayFills } from "./fills.ts";
import { MinHeap } from "./heap.ts";
import { summarize } from "./metrics.ts";
import { type ScanState, scan, screenFor, stopFactorOf } from "./position-scan.ts";
import type {
  BacktestCloseReason,
  BacktestTrade,
  ReplayInput,
  ReplayResult,
  ReplaySignal,
  TokenPath,
} from "./types.ts";

// One variant replayed in virtual time (issue 17): a simulation agent with `initialSol` receives
// the signals in order and its positions are ticked on every 1-minute bar, through the same rule
// functions as the engine — eligibility, sizing, slippage, fees, stop-loss, take-profit with moon
// bag, DCA, stale-trade (decidePositionAction, one action per tick), P/L (pnl.ts). Position
// fields are kept as the decimal strings the positions table holds (decStr), so every rule sees
// the same inputs it sees in the engine. Fills: src/backtest/fills.ts.

interface OpenPosition extends ScanState {
  seq: number;
  time: number;
  signalId: number;
  tokenAddress: string;
  path: TokenPath;
  /** Bar index: where the next scan starts, or (armed) the bar to evaluate. */
  next: number;
  armed: boolean;
  peakPriceSol: string;
  purchaseAmount: string;
  costSol: string;
  heldCostSol: string;
  realizedProfitSol: string;
  openingSolAmount: string;
  /** remainingAmount as a float, for the equity curve only. */
  remainingNum: number;
}

interface SignalEvent {
  signal: ReplaySignal;
  path: TokenPath;
  index: number;
  time: number;
}

/** The first bar at or after `t` (binary search), or -1. */
export function barAtOrAfter(path: TokenPath, t: number): number {
  let lo = 0;
  let hi = path.times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (path.times[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo < path.times.length ? lo : -1;
}

/** Signals aligned to their first bar (signals without price data are reported, not replayed). */
export function alignSignals(
  signals: readonly ReplaySignal[],
  paths: ReadonlyMap<string, TokenPath>,
): { events: SignalEvent[]; noData: number } {
  const events: SignalEvent[] = [];
  let noData = 0;
  for (const signal of signals) {
    const path = paths.get(signal.tokenAddress);
    const index = path ? barAtOrAfter(path, signal.timeMs) : -1;
    if (!path || index < 0) {
      noData++;
      continue;
    }
    events.push({ signal, path, index, time: path.times[index]! });
  }
  events.sort((a, b) => a.time - b.time || a.signal.timeMs - b.signal.timeMs || a.signal.id - b.signal.id);
  return { events, noData };
}

export function replayVariant(input: ReplayInput, aligned = alignSignals(input.signals, input.paths)): ReplayResult {
  const { config, priorityFeeSol } = input;
  // Fills at the bar's price less the recorded price impact (src/price-impact.ts).
  const fills = replayFills(config.slippage, priorityFeeSol, input.impacts ?? NO_IMPACTS);
  const stopFactor = stopFactorOf(config);
  let balance = new Big(input.initialSol);
  let lastTradeAtMs: number | null = null;
  let seq = 0;
  const open = new Map<string, OpenPosition>();
  const heap = new MinHeap<OpenPosition>();
  const trades: BacktestTrade[] = [];
  const skipped: Record<string, number> = {};
  const skip = (why: string) => (skipped[why] = (skipped[why] ?? 0) + 1);
  if (aligned.noData > 0) skipped.no_price_data = aligned.noData;
  // Balance after every trade, and the open positions' last known prices, for the equity curve.
  const equity: Array<{ time: number; valueSol: Big }> = [{ time: aligned.events[0]?.time ?? 0, valueSol: balance }];
  const exposure = { openSince: 0, openMs: 0 };

  // The curve is for display: open positions are marked in floats (the balance stays exact).
  const markEquity = (time: number) => {
    let marked = 0;
    for (const p of open.values()) {
      // The position's last bar at or before `time`.
      const after = barAtOrAfter(p.path, time + 1);
      const idx = after < 0 ? p.path.times.length - 1 : Math.max(0, after - 1);
      marked += p.remainingNum * p.path.closeNums[idx]!;
    }
    equity.push({ time, valueSol: marked > 0 ? balance.plus(marked.toFixed(9)) : balance });
  };

  const schedule = (p: OpenPosition) => {
    p.seq = seq++;
    const n = p.path.times.length;
    p.time = p.path.times[Math.min(p.next, n - 1)]!;
    heap.push(p);
  };

  const finish = (
    p: OpenPosition,
    time: number,
    reason: BacktestCloseReason,
    sale: { price: string | null; pnl: Big; change: Big },
  ) => {
    open.delete(p.tokenAddress);
    if (open.size === 0) exposure.openMs += time - exposure.openSince;
    trades.push({
      signalId: p.signalId,
      tokenAddress: p.tokenAddress,
      openedAtMs: p.openedAtMs,
      closedAtMs: time,
      entryPriceSol: p.entryPriceSol,
      exitPriceSol: sale.price,
      amount: p.purchaseAmount,
      costSol: p.costSol,
      profitLossSol: decStr(sale.pnl),
      changePercent: decStr(sale.change, 4),
      closeReason: reason,
      takeProfitLevels: p.levelsHit,
      dcaOrders: p.dcaOrders,
    });
  };

  /** Sells what remains and closes (engine: sell(kind close)). False when the fill was refused. */
  const closePosition = (p: OpenPosition, index: number, reason: BacktestCloseReason): boolean => {
    const time = p.path.times[index]!;
    const remaining = new Big(p.remainingAmount);
    let proceeds = new Big(0);
    let fees = new Big(0);
    if (remaining.gt(0)) {
      const fill = fills.sell(p.tokenAddress, remaining, p.path.closes[index]!, p.path.decimals, true);
      if (isRefused(fill)) return false;
      proceeds = fill.proceeds;
      fees = fill.feesSol;
      // The rent comes back to the balance, not into the position's P/L (as in the engine).
      balance = balance.plus(proceeds.minus(fees)).plus(fill.rentRefundSol);
      lastTradeAtMs = time;
    }
    const pnl = closePnl({
      costSol: p.costSol,
      heldCostSol: p.heldCostSol,
      remainingAmount: p.remainingAmount,
      entryPriceSol: p.entryPriceSol,
      realizedProfitSol: p.realizedProfitSol,
      proceedsSol: proceeds,
      feesSol: fees,
      solUsdPrice: 0,
    });
    finish(p, time, reason, {
      price: remaining.gt(0) ? decStr(proceeds.div(remaining)) : null,
      pnl: pnl.profitLossSol,
      change: pnl.changePercent,
    });
    markEquity(time);
    return true;
  };

  const act = (p: OpenPosition, index: number, action: PositionAction): void => {
    const price = p.path.closes[index]!;
    const time = p.path.times[index]!;
    if (action.kind === "close") {
      closePosition(p, index, action.reason);
      return;
    }
    if (action.kind === "take_profit") {
      const fill = fills.sell(p.tokenAddress, action.sellAmount, price, p.path.decimals, action.closesPosition);
      if (isRefused(fill)) return;
      const received = fill.proceeds;
      balance = balance.plus(received.minus(fill.feesSol)).plus(fill.rentRefundSol);
      lastTradeAtMs = time;
      const sale = salePnl({
        heldCostSol: p.heldCostSol,
        remainingAmount: p.remainingAmount,
        tokensSold: action.sellAmount,
        proceedsSol: received,
        feesSol: fill.feesSol,
      });
      const realized = new Big(p.realizedProfitSol).plus(sale.realizedProfitSol);
      p.realizedProfitSol = decStr(realized);
      p.heldCostSol = decStr(sale.heldCostAfterSol);
      p.remainingAmount = decStr(action.remainingAfter);
      p.remainingNum = Number(p.remainingAmount);
      p.levelsHit = action.levelsHit;
      p.moonBagActivated = action.moonBagActivated;
      if (action.closesPosition) {
        const pnl = closePnl({
          costSol: p.costSol,
          heldCostSol: "0",
          remainingAmount: "0",
          entryPriceSol: p.entryPriceSol,
          realizedProfitSol: realized,
          proceedsSol: 0,
          feesSol: 0,
          solUsdPrice: 0,
        });
        finish(p, time, "take_profit", {
          price: decStr(fill.proceeds.div(action.sellAmount)),
          pnl: pnl.profitLossSol,
          change: pnl.changePercent,
        });
      }
      markEquity(time);
      return;
    }
    if (action.kind === "dca") {
      // The engine refuses a buy the wallet cannot pay, and skips one that would leave it under the
      // minimum balance (rules/dca.ts); so does the replay.
      if (!dcaWithinMinimumBalance(balance, action.amountSol, config.minimumAgentBalance)) return;
      if (balance.lt(action.amountSol)) return;
      const fill = fills.buy(p.tokenAddress, action.amountSol, price, p.path.decimals);
      if (isRefused(fill) || balance.lt(fill.paid)) return;
      balance = balance.minus(fill.paid);
      lastTradeAtMs = time;
      const next = applyDcaFill(p, { solSwapped: fill.solSwapped, feesSol: fill.feesSol, tokensReceived: fill.tokens });
      p.entryPriceSol = decStr(next.entryPriceSol);
      p.purchaseAmount = decStr(next.purchaseAmount);
      p.remainingAmount = decStr(next.remainingAmount);
      p.remainingNum = Number(p.remainingAmount);
      p.costSol = decStr(next.costSol);
      p.heldCostSol = decStr(next.heldCostSol);
      p.dcaOrders = next.dcaOrders;
      markEquity(time);
    }
  };

  /**
   * A position's turn. Unarmed: find the next bar where a rule may fire and wait in the queue for
   * that bar's time (other positions and signals act in between, in time order). Armed: that bar
   * has come; the rules decide.
   */
  const step = (p: OpenPosition): void => {
    if (open.get(p.tokenAddress) !== p) return; // closed by an exit signal meanwhile
    const n = p.path.times.length;
    if (!p.armed) {
      if (p.next >= n) {
        closePosition(p, n - 1, "end_of_data");
        return;
      }
      const hit = scan(p.path, p.next, Number(p.peakPriceSol), screenFor(config, p, stopFactor));
      // The peak the skipped ticks would have persisted (nextPeak over their prices).
      if (hit.peakIndex >= 0 && hit.peakIndex < hit.index)
        p.peakPriceSol = decStr(nextPeak(p.peakPriceSol, p.path.closes[hit.peakIndex]!));
      p.next = hit.index;
      p.armed = true;
      schedule(p);
      return;
    }
    p.armed = false;
    const i = p.next;
    const decision = decidePositionAction({
      config,
      position: {
        entryPriceSol: p.entryPriceSol,
        remainingAmount: p.remainingAmount,
        levelsHit: p.levelsHit,
        moonBagActivated: p.moonBagActivated,
        tokenDecimals: p.path.decimals,
        dcaOrders: p.dcaOrders,
        originalCostSol: p.openingSolAmount,
        openedAtMs: p.openedAtMs,
        peakPriceSol: p.peakPriceSol,
      },
      priceSol: p.path.closes[i]!,
      nowMs: p.path.times[i]!,
    });
    if (decision.peakChanged) p.peakPriceSol = decStr(decision.peakPriceSol);
    if (decision.action.kind !== "none") act(p, i, decision.action);
    if (open.get(p.tokenAddress) !== p) return;
    if (i === n - 1) {
      closePosition(p, i, "end_of_data");
      return;
    }
    p.next = i + 1;
    schedule(p);
  };

  const enter = (e: SignalEvent): void => {
    const { signal, path, index, time } = e;
    if (isExitSignal(signal.signalType)) {
      const p = open.get(signal.tokenAddress);
      if (p) closePosition(p, index, "signal");
      return;
    }
    const pre = checkBeforeMarketData({
      agent: { tradingMode: "simulation", automatedTradingSimulation: true, automatedTradingLive: false },
      config,
      signal: {
        tokenAddress: signal.tokenAddress,
        signalStrength: signal.signalStrength,
        signalType: signal.signalType,
      },
      liveTradingEnabled: false,
      hasWallet: true,
      hasOpenPositionOnToken: open.has(signal.tokenAddress),
      lastTradeAtMs: config.timing.minTimeBetweenTradesSeconds > 0 ? lastTradeAtMs : null,
      nowMs: time,
    });
    if (!pre.eligible) return void skip(pre.rule);
    const size = positionSizeSol(config.positionSizing, balance);
    // No market data exists for the past: variants with market filters are refused at validation.
    const post = checkMarketAndBalance({
      config,
      tokenAddress: signal.tokenAddress,
      marketData: null,
      solBalance: balance,
      tradeSizeSol: size,
    });
    if (!post.eligible) return void skip(post.rule);
    const fill = fills.buy(signal.tokenAddress, size, path.closes[index]!, path.decimals, true);
    if (isRefused(fill) || balance.lt(fill.paid)) return void skip("failed");
    balance = balance.minus(fill.paid);
    lastTradeAtMs = time;
    const entry = decStr(fill.solSwapped.div(fill.tokens));
    if (open.size === 0) exposure.openSince = time;
    const p: OpenPosition = {
      seq: 0,
      time,
      signalId: signal.id,
      tokenAddress: signal.tokenAddress,
      path,
      next: index + 1,
      armed: false,
      openedAtMs: time,
      entryPriceSol: entry,
      peakPriceSol: entry,
      levelsHit: 0,
      dcaOrders: 0,
      moonBagActivated: false,
      remainingAmount: decStr(fill.tokens),
      purchaseAmount: decStr(fill.tokens),
      costSol: decStr(fill.cost),
      heldCostSol: decStr(fill.cost),
      realizedProfitSol: "0",
      openingSolAmount: decStr(fill.solSwapped),
      remainingNum: Number(fill.tokens),
    };
    open.set(signal.tokenAddress, p);
    markEquity(time);
    schedule(p);
  };

  // Positions act before a signal of the same minute (the monitor tick, then the signal).
  let s = 0;
  const events = aligned.events;
  while (s < events.length || heap.size > 0) {
    const top = heap.peek();
    if (top && (s >= events.length || top.time <= events[s]!.time)) step(heap.pop()!);
    else enter(events[s++]!);
  }
  return {
    trades,
    equity: equity.map((e) => ({ time: new Date(e.time).toISOString(), valueSol: decStr(e.valueSol) })),
    summary: summarize(input.initialSol, trades, equity, exposure.openMs, skipped),
  };
}
