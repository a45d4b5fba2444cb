import type { Clock } from "../clock.ts";
import type { PriceBarRepository } from "../db/repositories/price-bars.ts";
import type { LabSignal, StrategyLabSignalRepository } from "../db/repositories/strategy-lab-signals.ts";
import { loadPaths, toReplaySignals } from "./load-paths.ts";
import { barAtOrAfter } from "./replay.ts";
import type { TokenPath } from "./types.ts";

// Signal-source report: per source and signal type, how the caller's signals
// moved after they were given, from the recorded or imported 1-minute bars. As in the backtest
// (docs/decisions.md "Strategy lab") a signal enters at the close of the first bar at or after
// its creation, and each bar stands for its close. Over the window [signal, signal + T]:
//   - reached gain: some close ≥ entry × (1 + X %) before any close ≤ entry × (1 − Y %);
//   - maximum gain: (highest close ÷ entry − 1) × 100, at least 0; time to peak: minutes from the
//     entry bar to the first bar with that close;
//   - maximum drawdown: (1 − lowest close ÷ entry) × 100, at least 0 (the adverse move from entry).
// A signal without a bar inside its window has no data; one whose window has not ended yet and
// that reached neither threshold is pending. Shares and medians are over the resolved signals.

export interface ReportQuery {
  startDate?: string;
  endDate?: string;
  gainPercent: number;
  lossPercent: number;
  windowHours: number;
}

export interface SourceReportEntry {
  source: string | null;
  signalType: string;
  count: number;
  withData: number;
  pending: number;
  resolved: number;
  reachedGain: number;
  reachedLoss: number;
  /** reachedGain ÷ resolved; null without a resolved signal. */
  reachedGainShare: number | null;
  medianMaxGainPercent: number | null;
  medianMaxDrawdownPercent: number | null;
  medianMinutesToPeak: number | null;
}

export interface SignalOutcome {
  status: "no_data" | "pending" | "gain" | "loss" | "neither";
  maxGainPercent: number;
  maxDrawdownPercent: number;
  minutesToPeak: number;
}

const round = (x: number) => Math.round(x * 10_000) / 10_000;

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return round(s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2);
}

/** One signal's path over its window (pure; the rules of the header above). */
export function signalOutcome(
  path: TokenPath | undefined,
  signalMs: number,
  q: Pick<ReportQuery, "gainPercent" | "lossPercent" | "windowHours">,
  nowMs: number,
): SignalOutcome {
  const none: SignalOutcome = { status: "no_data", maxGainPercent: 0, maxDrawdownPercent: 0, minutesToPeak: 0 };
  const endMs = signalMs + q.windowHours * 3_600_000;
  const start = path ? barAtOrAfter(path, signalMs) : -1;
  if (!path || start < 0 || path.times[start]! > endMs) return none;
  const entry = path.closeNums[start]!;
  if (!(entry > 0)) return none;
  const up = entry * (1 + q.gainPercent / 100);
  const down = entry * (1 - q.lossPercent / 100);
  let hit: "gain" | "loss" | null = null;
  let high = entry;
  let low = entry;
  let peakAt = path.times[start]!;
  for (let i = start + 1; i < path.times.length && path.times[i]! <= endMs; i++) {
    const p = path.closeNums[i]!;
    if (hit === null && p >= up) hit = "gain";
    else if (hit === null && p <= down) hit = "loss";
    if (p > high) {
      high = p;
      peakAt = path.times[i]!;
    }
    if (p < low) low = p;
  }
  const status = hit ?? (nowMs < endMs ? "pending" : "neither");
  return {
    status,
    maxGainPercent: round((high / entry - 1) * 100),
    maxDrawdownPercent: round((1 - low / entry) * 100),
    minutesToPeak: round((peakAt - path.times[start]!) / 60_000),
  };
}

export class SignalSourceReport {
  constructor(private readonly d: { signals: StrategyLabSignalRepository; bars: PriceBarRepository; clock: Clock }) {}

  /** The caller's signals only: another user's never count. */
  build(userId: string, q: ReportQuery): SourceReportEntry[] {
    const signals = this.d.signals.select(userId, { startDate: q.startDate, endDate: q.endDate });
    const replay = toReplaySignals(signals);
    const paths = loadPaths(this.d.bars, replay, q.windowHours * 3_600_000, new Map());
    const now = this.d.clock.now();
    const groups = new Map<string, { first: LabSignal; outcomes: SignalOutcome[] }>();
    signals.forEach((s, i) => {
      const key = JSON.stringify([s.source, s.signalType]);
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { first: s, outcomes: [] }));
      g.outcomes.push(signalOutcome(paths.get(s.tokenAddress), replay[i]!.timeMs, q, now));
    });
    const rows = [...groups.values()].map(({ first, outcomes }) => {
      const resolved = outcomes.filter((o) => o.status === "gain" || o.status === "loss" || o.status === "neither");
      const gain = resolved.filter((o) => o.status === "gain").length;
      return {
        source: first.source,
        signalType: first.signalType,
        count: outcomes.length,
        withData: outcomes.filter((o) => o.status !== "no_data").length,
        pending: outcomes.filter((o) => o.status === "pending").length,
        resolved: resolved.length,
        reachedGain: gain,
        reachedLoss: resolved.filter((o) => o.status === "loss").length,
        reachedGainShare: resolved.length > 0 ? round(gain / resolved.length) : null,
        medianMaxGainPercent: median(resolved.map((o) => o.maxGainPercent)),
        medianMaxDrawdownPercent: median(resolved.map((o) => o.maxDrawdownPercent)),
        medianMinutesToPeak: median(resolved.map((o) => o.minutesToPeak)),
      };
    });
    return rows.sort(
      (a, b) => (a.source ?? "").localeCompare(b.source ?? "") || a.signalType.localeCompare(b.signalType),
    );
  }
}
