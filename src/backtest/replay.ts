import { Big, decStr } from "../money.ts";
import { NO_IMPACTS } from "../price-impact.ts";
import {
  applyDcaFill,
  checkBeforeMarketData,
  checkMarketAndBalance,
  closePnl,
  dcaWithinMinimumBalance,
  decidePositionAction,
  exitSourceRefusal,
  isExitSignal,
  nextPeak,
  type PositionAction,
  positionSizeSol,
  salePnl,
} from "../trading/rules/index.ts";
import { isRefused, replayFills } from "./fills.ts";
import { MinHeap } from "./heap.ts";
import { summarize } from "./metrics.ts";
import { type ClosingSale, closedTrade, type OpenPosition, openedPosition } from "./open-position.ts";
import { scan, screenFor, stopFactorOf } from "./position-scan.ts";
import type {
  BacktestCloseReason,
  BacktestTrade,
  ReplayInput,
  ReplayResult,
  ReplaySignal,
  TokenPath,
} from "./types.ts";

// One variant replayed in virtual time: a simulation agent with `initialSol` receives
// the signals in order and its positions are ticked on every 1-minute bar, through the same rule
// functions as the engine — eligibility, sizing, slippage, fees, stop-loss, take-profit with moon
// bag, DCA, stale-trade (decidePositionAction, one action per tick), P/L (pnl.ts). Position
// fields are kept as the decimal strings the positions table holds (decStr), so every rule sees
// the same inputs it sees in the engine (src/backtest/open-position.ts). Fills:
// src/backtest/fills.ts.

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
  return new Replay(input, aligned).run();
}

type TakeProfit = Extract<PositionAction, { kind: "take_profit" }>;
type Dca = Extract<PositionAction, { kind: "dca" }>;

/**
 * One variant's run: the agent's balance, its open positions queued by their next bar, and what
 * it traded. Signals and position turns are taken in time order (run); each rule's effect on the
 * balance and the position is one method.
 */
/** Account-wide limits (GET /risk-limits) belong to a user's live book, not to a replayed variant. */
const NO_ACCOUNT_LIMITS = {
  limits: { maxOpenPositions: null, maxExposureSol: null, dailyLossLimitSol: null },
  tripped: null,
  openPositions: 0,
  exposureSol: 0,
  dailyLossSol: 0,
} as const;

class Replay {
  private readonly config: ReplayInput["config"];
  // Fills at the bar's price less the recorded price impact (src/price-impact.ts).
  private readonly fills: ReturnType<typeof replayFills>;
  private readonly stopFactor: number;
  private balance: Big;
  private lastTradeAtMs: number | null = null;
  private seq = 0;
  private readonly open = new Map<string, OpenPosition>();
  private readonly heap = new MinHeap<OpenPosition>();
  private readonly trades: BacktestTrade[] = [];
  private readonly skipped: Record<string, number> = {};
  // Balance after every trade, and the open positions' last known prices, for the equity curve.
  private readonly equity: Array<{ time: number; valueSol: Big }>;
  private readonly exposure = { openSince: 0, openMs: 0 };

  constructor(
    private readonly input: ReplayInput,
    private readonly aligned: { events: SignalEvent[]; noData: number },
  ) {
    this.config = input.config;
    this.fills = replayFills(input.config.slippage, input.priorityFeeSol, input.impacts ?? NO_IMPACTS);
    this.stopFactor = stopFactorOf(input.config);
    this.balance = new Big(input.initialSol);
    if (aligned.noData > 0) this.skipped.no_price_data = aligned.noData;
    this.equity = [{ time: aligned.events[0]?.time ?? 0, valueSol: this.balance }];
  }

  run(): ReplayResult {
    // Positions act before a signal of the same minute (the monitor tick, then the signal).
    let s = 0;
    const events = this.aligned.events;
    while (s < events.length || this.heap.size > 0) {
      const top = this.heap.peek();
      if (top && (s >= events.length || top.time <= events[s]!.time)) this.step(this.heap.pop()!);
      else this.enter(events[s++]!);
    }
    return {
      trades: this.trades,
      equity: this.equity.map((e) => ({ time: new Date(e.time).toISOString(), valueSol: decStr(e.valueSol) })),
      summary: summarize(this.input.initialSol, this.trades, this.equity, this.exposure.openMs, this.skipped),
    };
  }

  private skip(why: string): void {
    this.skipped[why] = (this.skipped[why] ?? 0) + 1;
  }

  /** The curve is for display: open positions are marked in floats (the balance stays exact). */
  private markEquity(time: number): void {
    let marked = 0;
    for (const p of this.open.values()) {
      // The position's last bar at or before `time`.
      const after = barAtOrAfter(p.path, time + 1);
      const idx = after < 0 ? p.path.times.length - 1 : Math.max(0, after - 1);
      marked += p.remainingNum * p.path.closeNums[idx]!;
    }
    this.equity.push({ time, valueSol: marked > 0 ? this.balance.plus(marked.toFixed(9)) : this.balance });
  }

  private schedule(p: OpenPosition): void {
    p.seq = this.seq++;
    const n = p.path.times.length;
    p.time = p.path.times[Math.min(p.next, n - 1)]!;
    this.heap.push(p);
  }

  private finish(p: OpenPosition, time: number, reason: BacktestCloseReason, sale: ClosingSale): void {
    this.open.delete(p.tokenAddress);
    if (this.open.size === 0) this.exposure.openMs += time - this.exposure.openSince;
    this.trades.push(closedTrade(p, time, reason, sale));
  }

  /** Sells what remains and closes (engine: sell(kind close)). False when the fill was refused. */
  private closePosition(p: OpenPosition, index: number, reason: BacktestCloseReason): boolean {
    const time = p.path.times[index]!;
    const remaining = new Big(p.remainingAmount);
    let proceeds = new Big(0);
    let fees = new Big(0);
    if (remaining.gt(0)) {
      const fill = this.fills.sell(p.tokenAddress, remaining, p.path.closes[index]!, p.path.decimals, true);
      if (isRefused(fill)) return false;
      proceeds = fill.proceeds;
      fees = fill.feesSol;
      // The rent comes back to the balance, not into the position's P/L (as in the engine).
      this.balance = this.balance.plus(proceeds.minus(fees)).plus(fill.rentRefundSol);
      this.lastTradeAtMs = time;
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
    this.finish(p, time, reason, {
      price: remaining.gt(0) ? decStr(proceeds.div(remaining)) : null,
      pnl: pnl.profitLossSol,
      change: pnl.changePercent,
    });
    this.markEquity(time);
    return true;
  }

  private act(p: OpenPosition, index: number, action: PositionAction): void {
    if (action.kind === "close") this.closePosition(p, index, action.reason);
    else if (action.kind === "take_profit") this.takeProfit(p, index, action);
    else if (action.kind === "dca") this.buyMore(p, index, action);
  }

  private takeProfit(p: OpenPosition, index: number, action: TakeProfit): void {
    const time = p.path.times[index]!;
    const fill = this.fills.sell(
      p.tokenAddress,
      action.sellAmount,
      p.path.closes[index]!,
      p.path.decimals,
      action.closesPosition,
    );
    if (isRefused(fill)) return;
    const received = fill.proceeds;
    this.balance = this.balance.plus(received.minus(fill.feesSol)).plus(fill.rentRefundSol);
    this.lastTradeAtMs = time;
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
      this.finish(p, time, "take_profit", {
        price: decStr(fill.proceeds.div(action.sellAmount)),
        pnl: pnl.profitLossSol,
        change: pnl.changePercent,
      });
    }
    this.markEquity(time);
  }

  private buyMore(p: OpenPosition, index: number, action: Dca): void {
    // The engine refuses a buy the wallet cannot pay, and skips one that would leave it under the
    // minimum balance (rules/dca.ts); so does the replay.
    if (!dcaWithinMinimumBalance(this.balance, action.amountSol, this.config.minimumAgentBalance)) return;
    if (this.balance.lt(action.amountSol)) return;
    const fill = this.fills.buy(p.tokenAddress, action.amountSol, p.path.closes[index]!, p.path.decimals);
    if (isRefused(fill) || this.balance.lt(fill.paid)) return;
    this.balance = this.balance.minus(fill.paid);
    const time = p.path.times[index]!;
    this.lastTradeAtMs = time;
    const next = applyDcaFill(p, { solSwapped: fill.solSwapped, feesSol: fill.feesSol, tokensReceived: fill.tokens });
    p.entryPriceSol = decStr(next.entryPriceSol);
    p.purchaseAmount = decStr(next.purchaseAmount);
    p.remainingAmount = decStr(next.remainingAmount);
    p.remainingNum = Number(p.remainingAmount);
    p.costSol = decStr(next.costSol);
    p.heldCostSol = decStr(next.heldCostSol);
    p.dcaOrders = next.dcaOrders;
    this.markEquity(time);
  }

  /**
   * A position's turn. Unarmed: find the next bar where a rule may fire and wait in the queue for
   * that bar's time (other positions and signals act in between, in time order). Armed: that bar
   * has come; the rules decide.
   */
  private step(p: OpenPosition): void {
    if (this.open.get(p.tokenAddress) !== p) return; // closed by an exit signal meanwhile
    if (p.armed) this.decide(p);
    else this.arm(p);
  }

  private arm(p: OpenPosition): void {
    const n = p.path.times.length;
    if (p.next >= n) {
      this.closePosition(p, n - 1, "end_of_data");
      return;
    }
    const hit = scan(p.path, p.next, Number(p.peakPriceSol), screenFor(this.config, p, this.stopFactor));
    // The peak the skipped ticks would have persisted (nextPeak over their prices).
    if (hit.peakIndex >= 0 && hit.peakIndex < hit.index)
      p.peakPriceSol = decStr(nextPeak(p.peakPriceSol, p.path.closes[hit.peakIndex]!));
    p.next = hit.index;
    p.armed = true;
    this.schedule(p);
  }

  private decide(p: OpenPosition): void {
    p.armed = false;
    const i = p.next;
    const decision = decidePositionAction({
      config: this.config,
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
    if (decision.action.kind !== "none") this.act(p, i, decision.action);
    if (this.open.get(p.tokenAddress) !== p) return;
    if (i === p.path.times.length - 1) {
      this.closePosition(p, i, "end_of_data");
      return;
    }
    p.next = i + 1;
    this.schedule(p);
  }

  /** A signal at its bar: an exit closes the token's position; an entry opens one if the rules allow. */
  private enter(e: SignalEvent): void {
    const { signal, index } = e;
    if (isExitSignal(signal.signalType)) {
      const p = this.open.get(signal.tokenAddress);
      if (p && !exitSourceRefusal(this.config.filters.sources, signal, p.opener))
        this.closePosition(p, index, "signal");
      return;
    }
    const size = this.entrySize(e);
    if (size !== null) this.buy(e, size);
  }

  /** The entry rules as the engine applies them; the trade size, or null (counted as skipped). */
  private entrySize({ signal, time }: SignalEvent): Big | null {
    const config = this.config;
    const pre = checkBeforeMarketData({
      agent: { tradingMode: "simulation", automatedTradingSimulation: true, automatedTradingLive: false },
      config,
      signal,
      liveTradingEnabled: false,
      paused: false,
      hasWallet: true,
      hasOpenPositionOnToken: this.open.has(signal.tokenAddress),
      lastTradeAtMs: config.timing.minTimeBetweenTradesSeconds > 0 ? this.lastTradeAtMs : null,
      nowMs: time,
    });
    if (!pre.eligible) {
      this.skip(pre.rule);
      return null;
    }
    const size = positionSizeSol(config.positionSizing, this.balance);
    // No market data exists for the past: variants with market filters are refused at validation.
    const post = checkMarketAndBalance({
      config,
      tokenAddress: signal.tokenAddress,
      marketData: null,
      solBalance: this.balance,
      tradeSizeSol: size,
      // One variant is one agent: its own risk.maxOpenPositions applies; account limits do not.
      risk: { ...NO_ACCOUNT_LIMITS, agentOpenPositions: this.open.size },
    });
    if (!post.eligible) {
      this.skip(post.rule);
      return null;
    }
    return size;
  }

  /** The opening buy: pays the fill, opens the position and queues its first turn. */
  private buy({ signal, path, index, time }: SignalEvent, size: Big): void {
    const fill = this.fills.buy(signal.tokenAddress, size, path.closes[index]!, path.decimals, true);
    if (isRefused(fill) || this.balance.lt(fill.paid)) return void this.skip("failed");
    this.balance = this.balance.minus(fill.paid);
    this.lastTradeAtMs = time;
    if (this.open.size === 0) this.exposure.openSince = time;
    const p = openedPosition({ signal, path, index, time }, fill);
    this.open.set(signal.tokenAddress, p);
    this.markEquity(time);
    this.schedule(p);
  }
}
