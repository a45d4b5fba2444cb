import type { Database } from "bun:sqlite";
import { type Clock, isoNow } from "../clock.ts";
import { RiskExposureReader } from "../db/repositories/risk-exposure.ts";
import { type ControlsRow, type StoredLimits, TradingControlsRepository } from "../db/repositories/trading-controls.ts";
import type { EventBus } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import { Big, decNum, decStr } from "../money.ts";
import { dailyLossSol } from "./rules/daily-loss.ts";
import { dailyLossOver, type RiskState } from "./rules/eligibility.ts";
import type { TradingMode, TrippedBreaker } from "./rules/types.ts";

// A person's guard rails over all their agents (issue 34 items 1 and 2,
// docs/decisions/operator-experience-iv.md): per mode, a pause switch (rule `paused`), account-wide
// risk limits (rule `risk_limit`) and a daily-loss breaker that stops entries until the person
// resumes. Exits, stop-losses and take-profits never ask any of them. LIVE_TRADING_ENABLED stays
// the hard switch above all this. The rules themselves are pure (rules/eligibility.ts); this class
// reads what they need, keeps the switches and trips the breaker.

export type ModeChoice = TradingMode | "all";
const modesOf = (m: ModeChoice): TradingMode[] => (m === "all" ? ["simulation", "live"] : [m]);

/** Limits as the API shows them: numbers, null = off. */
export interface RiskLimitsView {
  maxOpenPositions: number | null;
  maxExposureSol: number | null;
  dailyLossLimitSol: number | null;
}

/**
 * Documented defaults, the same in both modes until the person says otherwise: a simulation that
 * opened 51 positions where live stops at 10 was not the same game (issue 44 item 3).
 */
export const DEFAULT_RISK_LIMITS: Readonly<Record<TradingMode, RiskLimitsView>> = {
  simulation: { maxOpenPositions: 10, maxExposureSol: 5, dailyLossLimitSol: 1 },
  live: { maxOpenPositions: 10, maxExposureSol: 5, dailyLossLimitSol: 1 },
};

export interface ModeRisk extends RiskLimitsView {
  tripped: TrippedBreaker | null;
  /** Where the account stands against the limits now. */
  usage: { openPositions: number; exposureSol: number; dailyLossSol: number };
}

export interface ModeStatus {
  paused: boolean;
  pausedAt: string | null;
  tripped: TrippedBreaker | null;
}

const DAY_MS = 86_400_000;
/** The monitor's ticks look at the breakers at most this often (entries and closes look at once). */
const SWEEP_EVERY_MS = 30_000;

const trippedOf = (r: ControlsRow): TrippedBreaker | null =>
  r.trippedAt && r.trippedReason ? { reason: r.trippedReason, at: r.trippedAt } : null;

const toView = (r: ControlsRow, mode: TradingMode): RiskLimitsView =>
  r.limitsSet
    ? {
        maxOpenPositions: r.maxOpenPositions,
        maxExposureSol: r.maxExposureSol === null ? null : decNum(r.maxExposureSol),
        dailyLossLimitSol: r.dailyLossLimitSol === null ? null : decNum(r.dailyLossLimitSol),
      }
    : { ...DEFAULT_RISK_LIMITS[mode] };

const toStored = (v: RiskLimitsView): StoredLimits => ({
  maxOpenPositions: v.maxOpenPositions,
  maxExposureSol: v.maxExposureSol === null ? null : decStr(new Big(v.maxExposureSol)),
  dailyLossLimitSol: v.dailyLossLimitSol === null ? null : decStr(new Big(v.dailyLossLimitSol)),
});

interface Deps {
  sqlite: Database;
  clock: Clock;
  events: EventBus;
  logger: Logger;
}

export class GuardRails {
  private readonly controls: TradingControlsRepository;
  private readonly exposure: RiskExposureReader;
  private readonly log: Logger;
  /**
   * Entries that passed the rules and have not settled, per user and mode. They count beside the
   * stored positions, so agents entering at once cannot break a limit together (briefly counted
   * twice once stored: the safe side).
   */
  private readonly inFlight = new Map<string, { count: number; sol: Big }>();
  private lastSweepAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly d: Deps) {
    this.controls = new TradingControlsRepository(d.sqlite);
    this.exposure = new RiskExposureReader(d.sqlite);
    this.log = d.logger.child({ component: "guard-rails" });
  }

  status(userId: string): Record<TradingMode, ModeStatus> {
    const one = (mode: TradingMode): ModeStatus => {
      const r = this.controls.get(userId, mode);
      return { paused: r.paused, pausedAt: r.pausedAt, tripped: trippedOf(r) };
    };
    return { simulation: one("simulation"), live: one("live") };
  }

  pause(userId: string, choice: ModeChoice): Record<TradingMode, ModeStatus> {
    const at = isoNow(this.d.clock);
    const modes = modesOf(choice);
    for (const m of modes) this.controls.pause(userId, m, at);
    this.log.info("trading paused", { userId, modes });
    this.d.events.publish("trading.paused", userId, { modes, at });
    return this.status(userId);
  }

  /** Lifts the pause and clears a tripped breaker; the daily loss then counts from now. */
  resume(userId: string, choice: ModeChoice): Record<TradingMode, ModeStatus> {
    const at = isoNow(this.d.clock);
    const modes = modesOf(choice);
    const clearedBreakers = modes.filter((m) => trippedOf(this.controls.get(userId, m)) !== null);
    for (const m of modes) this.controls.resume(userId, m, at);
    this.log.info("trading resumed", { userId, modes, clearedBreakers });
    this.d.events.publish("trading.resumed", userId, { modes, at, clearedBreakers });
    return this.status(userId);
  }

  limits(userId: string): Record<TradingMode, ModeRisk> {
    const one = (mode: TradingMode): ModeRisk => {
      const r = this.controls.get(userId, mode);
      const open = this.exposure.openExposure(userId, mode);
      return {
        ...toView(r, mode),
        tripped: trippedOf(r),
        usage: {
          openPositions: open.openPositions,
          exposureSol: decNum(sum(open.heldCostSol)),
          dailyLossSol: decNum(this.dailyLoss(userId, mode, r)),
        },
      };
    };
    return { simulation: one("simulation"), live: one("live") };
  }

  /** PUT /risk-limits: the modes given, each field given (null = off); the others unchanged. */
  setLimits(
    userId: string,
    patch: Partial<Record<TradingMode, Partial<RiskLimitsView>>>,
  ): Record<TradingMode, ModeRisk> {
    const at = isoNow(this.d.clock);
    for (const mode of ["simulation", "live"] as const) {
      const p = patch[mode];
      if (!p) continue;
      const next = { ...toView(this.controls.get(userId, mode), mode), ...p };
      this.controls.setLimits(userId, mode, toStored(next), at);
      this.log.info("risk limits set", { userId, mode, ...next });
    }
    // A limit lowered below today's loss trips the breaker at once.
    for (const mode of ["simulation", "live"] as const) if (patch[mode]) this.checkBreaker(userId, mode);
    return this.limits(userId);
  }

  /**
   * What the entry rules need for one agent of `userId` in `mode`. Only what a set limit needs is
   * read, so an account without limits (simulation by default) costs one row lookup. A daily loss
   * found over the limit trips the breaker here.
   */
  entryGate(userId: string, agentId: string, mode: TradingMode, agentMaxOpenPositions: number | null) {
    let row = this.controls.get(userId, mode);
    const limits = toView(row, mode);
    let dailyLoss = new Big(0);
    if (!row.trippedAt && limits.dailyLossLimitSol !== null) {
      dailyLoss = this.dailyLoss(userId, mode, row);
      if (dailyLossOver(limits.dailyLossLimitSol, dailyLoss)) {
        this.trip(userId, mode, dailyLoss, limits.dailyLossLimitSol);
        row = this.controls.get(userId, mode);
      }
    }
    const pending = this.inFlight.get(`${userId}:${mode}`) ?? { count: 0, sol: new Big(0) };
    const needsOpen = limits.maxOpenPositions !== null || limits.maxExposureSol !== null;
    const open = needsOpen ? this.exposure.openExposure(userId, mode) : { openPositions: 0, heldCostSol: [] };
    const risk: RiskState = {
      limits,
      tripped: trippedOf(row),
      openPositions: open.openPositions + pending.count,
      agentOpenPositions: agentMaxOpenPositions === null ? 0 : this.exposure.agentOpenPositions(agentId, mode),
      exposureSol: sum(open.heldCostSol).plus(pending.sol),
      dailyLossSol: dailyLoss,
    };
    return { paused: row.paused, risk };
  }

  /** The owner's pause switch of `mode` alone (a batch of signals reads it once per owner and mode). */
  isPaused(userId: string, mode: TradingMode): boolean {
    return this.controls.get(userId, mode).paused;
  }

  /** Holds an entry's place until it settled; call the returned function once it did (or failed). */
  reserve(userId: string, mode: TradingMode, sizeSol: Big): () => void {
    const key = `${userId}:${mode}`;
    const p = this.inFlight.get(key) ?? { count: 0, sol: new Big(0) };
    this.inFlight.set(key, { count: p.count + 1, sol: p.sol.plus(sizeSol) });
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const q = this.inFlight.get(key);
      if (!q) return;
      if (q.count <= 1) this.inFlight.delete(key);
      else this.inFlight.set(key, { count: q.count - 1, sol: q.sol.minus(sizeSol) });
    };
  }

  /** Trips the mode's breaker when its daily loss is over the limit; the breaker, if tripped. */
  checkBreaker(userId: string, mode: TradingMode): TrippedBreaker | null {
    const row = this.controls.get(userId, mode);
    if (row.trippedAt) return trippedOf(row);
    const limit = toView(row, mode).dailyLossLimitSol;
    if (limit === null) return null;
    const loss = this.dailyLoss(userId, mode, row);
    if (!dailyLossOver(limit, loss)) return null;
    this.trip(userId, mode, loss, limit);
    return trippedOf(this.controls.get(userId, mode));
  }

  /** A closed position may push its owner's daily loss over the limit: looked at at once. */
  attach(): () => void {
    return this.d.events.subscribe((e) => {
      if (e.type !== "position.closed" || !e.userId) return;
      for (const mode of ["simulation", "live"] as const) this.checkBreaker(e.userId, mode);
    });
  }

  /**
   * After a monitor tick, at most every 30 s: simulation accounts that set a daily loss limit
   * (none by default), and every account that traded live in the last day (on by default).
   */
  sweep(): void {
    const now = this.d.clock.now();
    if (now - this.lastSweepAt < SWEEP_EVERY_MS) return;
    this.lastSweepAt = now;
    for (const userId of this.controls.usersWithDailyLossLimit("simulation")) this.checkBreaker(userId, "simulation");
    const since = new Date(now - DAY_MS).toISOString();
    for (const userId of this.exposure.usersTradingSince("live", since)) this.checkBreaker(userId, "live");
  }

  /** Realized over the window plus unrealized of positions opened in it; the window starts at a resume. */
  private dailyLoss(userId: string, mode: TradingMode, row: ControlsRow): Big {
    const dayAgo = new Date(this.d.clock.now() - DAY_MS).toISOString();
    const since = row.resumedAt && row.resumedAt > dayAgo ? row.resumedAt : dayAgo;
    const w = this.exposure.windowTrades(userId, mode, since);
    return dailyLossSol(w.closedProfitLossSol, w.open);
  }

  private trip(userId: string, mode: TradingMode, loss: Big, limitSol: number): void {
    const reason = `loss of ${decStr(loss, 9)} SOL in the last 24 h is over the daily loss limit of ${limitSol} SOL`;
    const at = isoNow(this.d.clock);
    if (!this.controls.trip(userId, mode, reason, at)) return;
    this.log.warn("daily loss breaker tripped: no new entries until resumed", { userId, mode, reason });
    this.d.events.publish("risk.tripped", userId, {
      mode,
      reason,
      at,
      dailyLossSol: decStr(loss, 9),
      dailyLossLimitSol: String(limitSol),
    });
  }
}

function sum(values: readonly string[]): Big {
  let s = new Big(0);
  for (const v of values) s = s.plus(v);
  return s;
}
