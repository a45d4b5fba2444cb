import { positionConfig } from "../agents/position-config.ts";
import { resolveStoredConfig, type TradingConfig } from "../agents/trading-config.ts";
import { type Clock, isoNow } from "../clock.ts";
import { type DatabaseHandle, inTransaction } from "../db/client.ts";
import type { MonitorRow, PositionRepository, PriceUpdate } from "../db/repositories/positions.ts";
import { TradingAgentRepository } from "../db/repositories/trading-agents.ts";
import { NotFoundError, OperationalError } from "../errors.ts";
import type { EventBus } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import type { QuotePricing } from "../market/quote-pricing.ts";
import type { TokenPriceProvider } from "../market/types.ts";
import { type Big, decStr } from "../money.ts";
import { TickLoop } from "../tick-loop.ts";
import type { MintWatch } from "./mint-watch.ts";
import {
  type MintPrice,
  type MonitorPriceSources,
  PriceWaits,
  priceHeldTokens,
  WAIT_UNPRICED,
} from "./monitor-prices.ts";
import { PausedPositions, pauseHolds } from "./paused-positions.ts";
import type { PositionLocks } from "./position-locks.ts";
import { decidePositionAction, type PositionAction } from "./rules/position-action.ts";
import { screenPosition } from "./rules/quick-screen.ts";
import { canonicalDecimal } from "./tick-price.ts";
import type { TradingEngine } from "./trading-engine.ts";

// The position monitor (PRODUCT.md §4): one tick prices every token with an open position in
// batches, persists current and peak prices, then applies per position, in order, stale-trade,
// trailing stop-loss, take-profit and DCA through the same execution path as any trade. The loop
// runs a tick, then waits what is left of the interval, so ticks never overlap (freqtrade's
// worker). Tests call tick() directly. Errors (src/errors.ts): a temporary one (prices
// unavailable, a failed trade) waits for the next tick; an OperationalError stops the loop.

export interface TickReport {
  positions: number;
  priced: number;
  actions: number;
  closed: number;
  failed: number;
  durationMs: number;
}

export interface PositionMonitorDeps {
  sqlite: DatabaseHandle["sqlite"];
  clock: Clock;
  logger: Logger;
  events: EventBus;
  positions: PositionRepository;
  locks: PositionLocks;
  engine: TradingEngine;
  tokenPrices: TokenPriceProvider;
  /**
   * Prices a held mint from a sell quote (src/market/quote-pricing.ts): one the price source
   * omits, and every one while SOL/USD is stale (monitor-prices.ts).
   */
  quotePricing?: Pick<QuotePricing, "fillMissing" | "pricesInSol"> | null;
  /** Why a position is not acted on (its `waitingReason`); the monitor's own when not given. */
  waits?: PriceWaits;
  /**
   * Held mints read again (src/trading/mint-watch.ts): a control the agent's filters refuse that
   * appeared after the buy pauses the position (paused-positions.ts says what still runs). Absent:
   * no chain to read (no SOLANA_RPC_URL).
   */
  mintWatch?: MintWatch | null;
  intervalSeconds: number;
  /** Runs after every tick that priced (the daily-loss breakers: src/trading/guard-rails.ts). */
  afterTick?: () => void;
  /**
   * Live trading (src/trading/live/index.ts): pending live swaps are reconciled by signature at
   * the start of each tick; a position whose swap is still in doubt, or whose agent may not trade
   * live automatically (LIVE_TRADING_ENABLED, automatedTradingLive), is priced but not acted on.
   */
  live?: {
    reconcile(): Promise<unknown>;
    pendingFor(agentId: string, tokenAddress: string): boolean;
    automaticAllowed(agentId: string): boolean;
  };
}

interface Planned {
  position: MonitorRow;
  action: PositionAction;
}

export class PositionMonitor {
  private readonly log: Logger;
  private readonly loop = new TickLoop(
    () => this.tick(),
    () => this.d.intervalSeconds * 1000,
    (err) => {
      this.log.error("monitor tick failed", { reason: err instanceof Error ? err.message : String(err) });
      // Operational: trading on would repeat the fault; the loop stops until a restart.
      if (!(err instanceof OperationalError)) return undefined;
      this.log.error("position monitor stopped: operational error", { reason: err.message });
      return "stop";
    },
  );
  private lastHourlySnapshot = 0;
  lastTick: TickReport | null = null;
  lastTickAt = 0;
  private readonly agents: TradingAgentRepository;
  readonly waits: PriceWaits;
  private readonly sources: MonitorPriceSources;
  private readonly pauses: PausedPositions;

  constructor(private readonly d: PositionMonitorDeps) {
    this.log = d.logger.child({ component: "monitor" });
    this.agents = new TradingAgentRepository(d.sqlite);
    this.waits = d.waits ?? new PriceWaits();
    this.pauses = new PausedPositions({ events: d.events, waits: this.waits, log: this.log, now: () => d.clock.now() });
    this.sources = {
      tokenPrices: d.tokenPrices,
      solUsd: () => d.engine.solUsdReading(),
      quotePricing: d.quotePricing,
      maxPriceAgeMs: 2 * d.intervalSeconds * 1000,
      now: () => d.clock.now(),
    };
  }

  /** The open positions and, per agent holding any, its owner and configuration (parsed once per tick). */
  private openPositions() {
    const read = this.d.positions.monitoredOpen();
    const agents = new Map<string, { userId: string; config: TradingConfig }>();
    for (const a of read.agents)
      agents.set(a.agentId, { userId: a.userId, config: resolveStoredConfig(a.configOverrides) });
    return { positions: read.positions, agents };
  }

  private decide(p: Omit<MonitorRow, "rowid"> & { openingSol: string }, config: TradingConfig, priceSol: Big) {
    return decidePositionAction({
      config,
      position: {
        entryPriceSol: p.entryPriceSol,
        remainingAmount: p.remainingAmount,
        levelsHit: p.levelsHit,
        moonBagActivated: p.moonBagActivated,
        tokenDecimals: p.tokenDecimals,
        dcaOrders: p.dcaOrders,
        originalCostSol: p.openingSol,
        openedAtMs: Date.parse(p.openedAt),
        peakPriceSol: p.peakPriceSol,
      },
      priceSol,
      nowMs: this.d.clock.now(),
    });
  }

  /** One pass over all open positions. */
  async tick(): Promise<TickReport> {
    const started = performance.now();
    const report: TickReport = { positions: 0, priced: 0, actions: 0, closed: 0, failed: 0, durationMs: 0 };
    if (this.d.live) {
      await this.d.live
        .reconcile()
        .catch((err) =>
          this.log.warn("live reconciliation failed", { reason: err instanceof Error ? err.message : String(err) }),
        );
    }
    const { positions: open, agents } = this.openPositions();
    report.positions = open.length;
    if (open.length > 0) {
      let prices: Map<string, MintPrice>;
      try {
        prices = await priceHeldTokens(this.sources, open);
      } catch (err) {
        // Temporary: no prices this tick means no decisions this tick; the next tick retries.
        this.log.warn("monitor tick skipped: prices unavailable", {
          reason: err instanceof Error ? err.message : String(err),
        });
        report.durationMs = performance.now() - started;
        this.lastTick = report;
        return report;
      }
      // Per position whose mint now has a control its agent's filters refuse, why (mint-watch.ts).
      const paused = this.d.mintWatch
        ? await this.d.mintWatch.pauses(
            open.map((p) => ({ ...p, filters: agents.get(p.agentId)?.config.filters ?? null })),
          )
        : new Map<string, string>();
      const planned = this.plan(open, agents, prices, paused, report);
      for (const plan of planned) {
        report.actions++;
        const outcome = await this.act(plan);
        if (outcome === "closed") report.closed++;
        else if (outcome === "failed") report.failed++;
      }
    }
    await this.maybeHourlySnapshots();
    try {
      this.d.afterTick?.();
    } catch (err) {
      this.log.warn("after-tick check failed", { reason: err instanceof Error ? err.message : String(err) });
    }
    report.durationMs = performance.now() - started;
    this.lastTick = report;
    this.lastTickAt = this.d.clock.now();
    return report;
  }

  /**
   * Prices every position, stores current and peak prices, and returns the actions to take,
   * oldest position first. A position whose token has no usable price waits (PriceWaits); so
   * does a paused one (`paused`), priced but not acted on.
   */
  private plan(
    open: MonitorRow[],
    agents: Map<string, { userId: string; config: TradingConfig }>,
    prices: Map<string, MintPrice>,
    paused: Map<string, string>,
    report: TickReport,
  ): Planned[] {
    const now = isoNow(this.d.clock);
    const nowMs = this.d.clock.now();
    const planned: Planned[] = [];
    const updates: PriceUpdate[] = [];
    const peaks: Array<{ p: MonitorRow; userId: string; peak: string }> = [];
    const openIds = new Set(open.map((p) => p.id));
    this.waits.retain(openIds);
    this.pauses.retain(openIds);
    for (const p of open) {
      const agent = agents.get(p.agentId);
      if (!agent) continue; // not possible (both read in one transaction); a type guard
      const mp = prices.get(p.tokenAddress);
      const pause = paused.get(p.id);
      this.pauses.note({ ...p, userId: agent.userId }, pause ?? null);
      if (mp?.kind !== "priced") {
        if (!pause) this.wait(p, mp?.reason ?? WAIT_UNPRICED);
        continue;
      }
      const tp = mp.price;
      if (!pause) this.waits.clear(p.id);
      report.priced++;
      // Most positions fire nothing: screened in doubles, decided exactly only when it may matter.
      const config = positionConfig(agent.config, p.exitConfig);
      const screen = screenPosition(config, p, tp.screen, nowMs);
      if (screen !== null) {
        const peak = screen === "price" ? tp.sol : canonicalDecimal(p.peakPriceSol);
        updates.push({ rowid: p.rowid, id: p.id, lastPriceSol: tp.sol, lastPriceUsd: tp.usd, peakPriceSol: peak });
        if (screen === "price") peaks.push({ p, userId: agent.userId, peak });
        continue;
      }
      // DCA orders are sized from the opening buy: read only when the rule may use it.
      const openingSol = config.dca.enabled ? this.d.positions.openingSolAmount(p.id) : "0";
      const decision = this.decide({ ...p, openingSol }, config, tp.priceSol);
      const peak = decStr(decision.peakPriceSol);
      updates.push({ rowid: p.rowid, id: p.id, lastPriceSol: tp.sol, lastPriceUsd: tp.usd, peakPriceSol: peak });
      if (decision.peakChanged) peaks.push({ p, userId: agent.userId, peak });
      const held = pauseHolds(pause !== undefined, p.tradingMode, decision.action.kind);
      if (decision.action.kind !== "none" && !held && !this.liveHeld(p))
        planned.push({ position: p, action: decision.action });
    }
    // Actions run oldest position first (the read has no order; a stable sort keeps rowid order among equals).
    planned.sort((a, b) =>
      a.position.openedAt < b.position.openedAt ? -1 : a.position.openedAt > b.position.openedAt ? 1 : 0,
    );
    // Current and peak prices of every position in one transaction: a restart loses nothing.
    this.d.positions.recordPrices(updates, now);
    for (const { p, userId, peak } of peaks) {
      this.d.events.publish("position.updated", userId, {
        positionId: p.id,
        agentId: p.agentId,
        change: "peak",
        peakPriceSol: peak,
      });
    }
    return planned;
  }

  /** A position not acted on now waits; said in the log when the reason changes. */
  private wait(p: Pick<MonitorRow, "id" | "agentId" | "tokenAddress">, reason: string): void {
    if (this.waits.set(p.id, reason, this.d.clock.now()))
      this.log.warn("position waits: no usable price", {
        positionId: p.id,
        agentId: p.agentId,
        tokenAddress: p.tokenAddress,
        reason,
      });
  }

  /** A live position the monitor must leave alone this tick (see PositionMonitorDeps.live). */
  private liveHeld(p: Pick<MonitorRow, "id" | "agentId" | "tokenAddress" | "tradingMode">): boolean {
    if (p.tradingMode !== "live") return false;
    if (!this.d.live) return false; // no live trading configured: the engine refuses the trade itself
    if (this.d.live.pendingFor(p.agentId, p.tokenAddress)) return true;
    if (!this.d.live.automaticAllowed(p.agentId)) {
      this.log.debug("live rule not acted on: automatic live trading is off", { positionId: p.id, agentId: p.agentId });
      return true;
    }
    return false;
  }

  /**
   * Executes one position's action under its lock, decided again at that moment: the row, the agent's configuration and the token's price
   * are read afresh, since an earlier action of the tick may have held it for a while (a live
   * swap: up to a minute) during which the owner may have changed the rules or the price moved.
   */
  private async act(plan: Planned): Promise<"closed" | "done" | "failed" | "skipped"> {
    const id = plan.position.id;
    return this.d.locks.withLock(id, async () => {
      try {
        const fresh = this.d.positions.byId(id);
        if (fresh?.status !== "open" || this.liveHeld(fresh)) return "skipped";
        const config = positionConfig(resolveStoredConfig(fresh.configOverrides), fresh.exitConfig);
        // Before signing anything the mint is read again (fresh for a live sale: money moves).
        const live = fresh.tradingMode === "live";
        const pause =
          (await this.d.mintWatch?.pauseReason(fresh.tokenAddress, config.filters, fresh.tradingMode, live)) ?? null;
        this.pauses.note(fresh, pause);
        if (pauseHolds(pause !== null, fresh.tradingMode, "exit")) return "skipped";
        const price = (await priceHeldTokens(this.sources, [fresh])).get(fresh.tokenAddress);
        if (price?.kind !== "priced") {
          this.wait(fresh, price?.reason ?? WAIT_UNPRICED);
          return "skipped";
        }
        const action = this.decide(fresh, config, price.price.priceSol).action;
        if (pauseHolds(pause !== null, fresh.tradingMode, action.kind)) return "skipped";
        if (action.kind !== "none")
          this.log.info("rule triggered", {
            positionId: id,
            agentId: fresh.agentId,
            rule: action.kind === "close" ? action.reason : action.kind,
            ...(action.kind === "close" ? { detail: action.detail } : {}),
            ...(action.kind === "take_profit" ? { level: action.level } : {}),
            ...(action.kind === "dca" ? { order: action.order } : {}),
            priceSol: price.price.sol,
          });
        switch (action.kind) {
          case "none":
            return "skipped";
          case "close":
            // Paused: a refused try is logged, not told at every tick (its owner was told of the pause).
            await this.d.engine.closeUnderLock(fresh, action.reason, { raw: true, tellFailure: pause === null });
            return "closed";
          case "take_profit": {
            const sold = await this.d.engine.sell(
              fresh,
              {
                kind: "take_profit",
                amount: action.sellAmount,
                levelsHit: action.levelsHit,
                levelPriceSol: action.levelPriceSol,
                moonBagActivated: action.moonBagActivated,
                moonBagAmount: action.moonBagAmount,
                closesPosition: action.closesPosition,
              },
              pause === null,
            );
            if (sold.status === "skipped") return "skipped";
            return action.closesPosition ? "closed" : "done";
          }
          case "dca": {
            const r = await this.d.engine.dcaBuy(fresh, action.order, action.amountSol);
            return r === "recorded" ? "done" : r;
          }
        }
      } catch (err) {
        if (err instanceof OperationalError) throw err;
        if (err instanceof NotFoundError) return "skipped"; // sold by another run meanwhile
        // Temporary: the engine logged the failed trade; the next tick tries again.
        return "failed";
      }
    });
  }

  /** One balance snapshot per agent wallet per hour (PRODUCT.md §3). */
  private async maybeHourlySnapshots(): Promise<void> {
    const now = this.d.clock.now();
    if (now - this.lastHourlySnapshot < 3600_000) return;
    this.lastHourlySnapshot = now;
    const iso = isoNow(this.d.clock);
    let solUsd: Big | null = null;
    try {
      solUsd = await this.d.engine.solUsd();
    } catch {
      // value in SOL only this hour
    }
    const wallets = this.agents.walletsWithoutSnapshotSince(new Date(now - 3600_000).toISOString());
    inTransaction({ sqlite: this.d.sqlite }, () => {
      for (const w of wallets) this.d.engine.snapshot(w.agentId, w.walletAddress, solUsd, iso, "hourly");
    });
  }

  /** Runs a tick, then waits what is left of the interval; never two ticks at once. */
  start(): void {
    this.loop.start();
  }

  /** Stops the loop and waits for the tick in flight (its trades finish). */
  stop(): Promise<void> {
    return this.loop.stop();
  }
}
