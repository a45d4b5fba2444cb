import type { Database } from "bun:sqlite";
import { type Clock, isoNow } from "../clock.ts";
import { type InDoubtBuy, RiskExposureReader } from "../db/repositories/risk-exposure.ts";
import { type ControlsRow, type StoredLimits, TradingControlsRepository } from "../db/repositories/trading-controls.ts";
import type { EventBus } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import { Big, decNum, decStr, fromAtomic } from "../money.ts";
import { dailyLossSol } from "./rules/daily-loss.ts";
import { dailyLossOver, pausedReason, type RiskState, riskLimitRefusal } from "./rules/eligibility.ts";
import type { TradingMode, TrippedBreaker } from "./rules/types.ts";

// A person's guard rails over all their agents (issue 34 items 1 and 2,
// docs/decisions/operator-experience-iv.md): per mode, a pause switch (rule `paused`), account-wide
// risk limits (rule `risk_limit`) and a daily-loss breaker that stops entries until the person
// resumes. Exits, stop-losses and take-profits never ask any of them. LIVE_TRADING_ENABLED stays
// the hard switch above all this. The rules themselves are pure (rules/eligibility.ts); this class
// reads what they need, keeps the switches and trips the breaker.
//
// The gate (issue 41 items 1 and 2, docs/decisions/controls-without-side-doors.md): every buy —
// a signal's entry, a copied buy, a DCA order, whatever is added later — is admitted by ONE
// function, admitBuy, and the engine swaps a buy only with the pass it hands out
// (buy-path.ts swapBuy). What counts against the limits: the open positions, the live buys
// whose outcome the journal has not resolved (read from live_trades, so it holds across a
// restart), and the buys admitted and not yet recorded anywhere (held in memory, each dropped
// from the count once the journal or a position holds it).

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

/** What a buy is for: a signal's entry (opens a position) or DCA order `order` of a position. */
type BuyAction = { kind: "open"; signalId: number } | { kind: "dca"; positionId: string; order: number };

export interface GateBuy {
  userId: string;
  agentId: string;
  mode: TradingMode;
  sizeSol: Big;
  action: BuyAction;
  /** The agent's own risk.maxOpenPositions (null: none). */
  agentMaxOpenPositions: number | null;
}

/** An admitted buy's place under the limits: released once the buy is recorded, failed or in the journal. */
export interface BuyPass {
  release(): void;
}

export type GateAnswer =
  | { admitted: true; pass: BuyPass }
  | { admitted: false; rule: "paused" | "risk_limit"; reason: string };

/** The one gate, as the trading engine sees it. */
export interface BuyGate {
  admitBuy(buy: GateBuy): GateAnswer;
  /** True for a pass this gate handed out and that is not released yet. */
  holds(pass: BuyPass): boolean;
}

interface Reservation {
  key: string;
  agentId: string;
  opens: boolean;
  sol: Big;
}

/** The same action's key whether it is admitted here or read back from the journal's intent. */
const keyOf = (
  agentId: string,
  a: { kind: string | null; signalId?: number | null; positionId?: string | null; order?: number | null },
) => (a.kind === "dca" ? `dca:${a.positionId}:${a.order}` : `open:${agentId}:${a.signalId}`);

/** Where a user's mode stands: stored positions, live buys in doubt, admitted buys not recorded yet. */
interface Standing {
  openPositions: number;
  agentOpenPositions: number;
  exposureSol: Big;
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
   * Buys admitted and not released, per user and mode. They count beside the stored positions and
   * the journal's buys in doubt, so agents buying at once cannot break a limit together (briefly
   * counted twice between the settling commit and the release: the safe side).
   */
  private readonly inFlight = new Map<string, Set<Reservation>>();
  private readonly passes = new WeakSet<BuyPass>();
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
      const open = this.standing(userId, mode, null);
      return {
        ...toView(r, mode),
        tripped: trippedOf(r),
        usage: {
          openPositions: open.openPositions,
          exposureSol: decNum(open.exposureSol),
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
   * THE gate of every buy (issue 41 item 2): the owner's pause of the mode (rule `paused`), then
   * rule `risk_limit` — a tripped breaker or a daily loss over the limit, the agent's own
   * risk.maxOpenPositions and the account's maxOpenPositions (for a buy that opens a position),
   * maxExposureSol — over what stands now (standing). Admitted, the buy holds its place until the
   * pass is released. Only what a set limit needs is read, so an account without limits
   * (simulation by default) costs one row lookup. A daily loss found over the limit trips the
   * breaker here.
   */
  admitBuy(buy: GateBuy): GateAnswer {
    const { userId, mode } = buy;
    let row = this.controls.get(userId, mode);
    if (row.paused) return { admitted: false, rule: "paused", reason: pausedReason(mode) };
    const limits = toView(row, mode);
    let dailyLoss = new Big(0);
    if (!row.trippedAt && limits.dailyLossLimitSol !== null) {
      dailyLoss = this.dailyLoss(userId, mode, row);
      if (dailyLossOver(limits.dailyLossLimitSol, dailyLoss)) {
        this.trip(userId, mode, dailyLoss, limits.dailyLossLimitSol);
        row = this.controls.get(userId, mode);
      }
    }
    const opens = buy.action.kind === "open";
    const agentMax = opens ? buy.agentMaxOpenPositions : null;
    // A DCA order adds to a position: the position counts are not its business, the SOL is.
    const applied = opens ? limits : { ...limits, maxOpenPositions: null };
    const needsOpen = applied.maxOpenPositions !== null || applied.maxExposureSol !== null || agentMax !== null;
    const open = needsOpen
      ? this.standing(userId, mode, buy.agentId)
      : { openPositions: 0, agentOpenPositions: 0, exposureSol: new Big(0) };
    const risk: RiskState = { limits: applied, tripped: trippedOf(row), ...open, dailyLossSol: dailyLoss };
    const broken = riskLimitRefusal(risk, agentMax, buy.sizeSol);
    if (broken) return { admitted: false, rule: "risk_limit", reason: broken };
    return { admitted: true, pass: this.reserve(buy) };
  }

  holds(pass: BuyPass): boolean {
    return this.passes.has(pass);
  }

  /** The owner's pause switch of `mode` alone (a batch of signals reads it once per owner and mode). */
  isPaused(userId: string, mode: TradingMode): boolean {
    return this.controls.get(userId, mode).paused;
  }

  /** Holds an admitted buy's place; its pass releases it once (the engine does, whatever happened). */
  private reserve(buy: GateBuy): BuyPass {
    const bucket = `${buy.userId}:${buy.mode}`;
    const held = this.inFlight.get(bucket) ?? new Set<Reservation>();
    this.inFlight.set(bucket, held);
    const r: Reservation = {
      key: keyOf(buy.agentId, buy.action),
      agentId: buy.agentId,
      opens: buy.action.kind === "open",
      sol: buy.sizeSol,
    };
    held.add(r);
    const pass: BuyPass = {
      release: () => {
        if (!this.passes.delete(pass)) return;
        held.delete(r);
        if (held.size === 0 && this.inFlight.get(bucket) === held) this.inFlight.delete(bucket);
      },
    };
    this.passes.add(pass);
    return pass;
  }

  /**
   * The stored open positions, the live buys the journal has not resolved (an opening buy counts
   * as the position it may be, a DCA order as its SOL) and the admitted buys neither holds yet.
   */
  private standing(userId: string, mode: TradingMode, agentId: string | null): Standing {
    const stored = this.exposure.openExposure(userId, mode);
    const inDoubt: InDoubtBuy[] = mode === "live" ? this.exposure.inDoubtBuys(userId) : [];
    const recorded = new Set(inDoubt.map((b) => keyOf(b.agentId, b)));
    const pending = [...(this.inFlight.get(`${userId}:${mode}`) ?? [])].filter((r) => !recorded.has(r.key));
    const opening = [...inDoubt.filter((b) => b.kind !== "dca"), ...pending.filter((r) => r.opens)];
    let exposure = sum(stored.heldCostSol);
    for (const b of inDoubt) exposure = exposure.plus(fromAtomic(b.inputLamports, 9));
    for (const r of pending) exposure = exposure.plus(r.sol);
    return {
      openPositions: stored.openPositions + opening.length,
      agentOpenPositions:
        agentId === null
          ? 0
          : this.exposure.agentOpenPositions(agentId, mode) + opening.filter((o) => o.agentId === agentId).length,
      exposureSol: exposure,
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
