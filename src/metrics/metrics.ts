import type { Clock } from "../clock.ts";
import { HttpRequestStats } from "./http-requests.ts";
import { Counter, collectDefaultMetrics, Gauge, Registry } from "./prom.ts";

// The Prometheus exposition of PRODUCT.md §6: process CPU and memory, HTTP request counts and
// durations, and the trading metrics (signals received, trades by mode/side/outcome, open
// positions, SOL price and its staleness). Every Services instance owns its own Registry (never
// prom-client's global one) so tests can build many apps in one process.

export type TradeMode = "simulation" | "live";
type TradeSide = "buy" | "sell";
type TradeOutcome = "success" | "failed";

/** What the SOL price stream reports at scrape time (registered by src/market/). */
export interface SolPriceSnapshot {
  /** Latest USD price, or null before the first update. */
  priceUsd: number | null;
  /** Epoch ms of the latest update, or null before the first update. */
  updatedAt: number | null;
  /** SPEC "Limits": stale after 60 s without update or while the price connection is down. */
  stale: boolean;
}

export interface MetricsSources {
  /** Open positions per trading mode; read at scrape time. */
  openPositions?: () => Partial<Record<TradeMode, number>>;
  solPrice?: () => SolPriceSnapshot | null;
  /** Age of the oldest undecided signal, seconds (src/signals/signal-queue.ts). */
  signalQueueLag?: () => number;
}

// Default Node metrics that promtool's linter rejects (gauges named *_total). Their per-type
// siblings (nodejs_active_handles{type} ...) stay, so nothing is lost.
const LINT_REJECTED_DEFAULTS = [
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total",
];

const MODES: readonly TradeMode[] = ["simulation", "live"];
const SIDES: readonly TradeSide[] = ["buy", "sell"];
const OUTCOMES: readonly TradeOutcome[] = ["success", "failed"];

export interface Metrics {
  readonly registry: Registry;
  /**
   * `http_requests_total{method,status,route}` and `http_request_duration_seconds`; route is the
   * matched pattern or "unmatched".
   */
  readonly http: HttpRequestStats;
  /** One per accepted POST /trading-signals. */
  readonly signalsReceived: Counter<string>;
  /** One per executed or failed trade: `trades.inc({mode, side, outcome})`. */
  readonly trades: Counter<"mode" | "side" | "outcome">;
  /** One per rule-triggered trade skipped before swapping: `tradesSkipped.inc({mode, rule})`. */
  readonly tradesSkipped: Counter<"mode" | "rule">;
  /** Replaces the scrape-time readers (open positions, SOL price); see MetricsSources. */
  setSources(sources: MetricsSources): void;
  /** Prometheus text exposition. */
  exposition(): Promise<string>;
  readonly contentType: string;
}

export function createMetrics(clock: Clock, initial: MetricsSources = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of LINT_REJECTED_DEFAULTS) registry.removeSingleMetric(name);

  let sources: MetricsSources = { ...initial };
  const registers = [registry];

  const http = new HttpRequestStats(registry);
  const signalsReceived = new Counter({
    name: "trading_signals_received_total",
    help: "Trading signals accepted by POST /trading-signals.",
    registers,
  });
  const trades = new Counter({
    name: "trading_trades_total",
    help: "Trades attempted by the engine, by trading mode, side and outcome.",
    labelNames: ["mode", "side", "outcome"] as const,
    registers,
  });
  // Every combination exists from the start, so rate() sees the first trade (Prometheus practice).
  for (const mode of MODES)
    for (const side of SIDES) for (const outcome of OUTCOMES) trades.inc({ mode, side, outcome }, 0);
  const tradesSkipped = new Counter({
    name: "trading_trades_skipped_total",
    help: "Rule-triggered trades skipped before swapping (e.g. a DCA order under minimumAgentBalance), by mode and rule.",
    labelNames: ["mode", "rule"] as const,
    registers,
  });
  for (const mode of MODES) tradesSkipped.inc({ mode, rule: "minimum_balance" }, 0);

  new Gauge({
    name: "trading_open_positions",
    help: "Open positions, by trading mode.",
    labelNames: ["mode"] as const,
    registers,
    collect() {
      const counts = readSafely(() => sources.openPositions?.()) ?? {};
      for (const mode of MODES) this.set({ mode }, counts[mode] ?? 0);
    },
  });
  new Gauge({
    name: "sol_price_usd",
    help: "Latest SOL/USD price from the price stream; 0 before the first update (see sol_price_stale).",
    registers,
    collect() {
      const snap = readSafely(() => sources.solPrice?.());
      this.set(snap?.priceUsd != null && Number.isFinite(snap.priceUsd) ? snap.priceUsd : 0);
    },
  });
  new Gauge({
    name: "sol_price_age_seconds",
    help: "Seconds since the latest SOL/USD price update; +Inf before the first update.",
    registers,
    collect() {
      // An unlabelled gauge cannot be absent in prom-client; "never updated" is infinitely old,
      // so an alert on `> 60` fires for it too.
      const snap = readSafely(() => sources.solPrice?.());
      this.set(snap?.updatedAt != null ? Math.max(0, (clock.now() - snap.updatedAt) / 1000) : Infinity);
    },
  });
  new Gauge({
    name: "sol_price_stale",
    help: "1 when the SOL/USD price is stale (over 60 s old or the price connection down), else 0.",
    registers,
    collect() {
      const snap = readSafely(() => sources.solPrice?.());
      // No price stream registered, or no price yet: the price is not usable, so it is stale.
      this.set(snap && !snap.stale && snap.priceUsd != null ? 0 : 1);
    },
  });

  new Gauge({
    name: "signal_queue_lag_seconds",
    help: "Seconds since the oldest signal not yet decided was received; 0 when none waits.",
    registers,
    collect() {
      this.set(readSafely(() => sources.signalQueueLag?.()) ?? 0);
    },
  });

  return {
    registry,
    http,
    signalsReceived,
    trades,
    tradesSkipped,
    setSources(next) {
      sources = { ...sources, ...next };
    },
    exposition: () => registry.metrics(),
    contentType: registry.contentType,
  };
}

/** A scrape must never fail because one reader did (database closed, stream torn down). */
function readSafely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
