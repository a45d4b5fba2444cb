import type { PriceBarRepository } from "../db/repositories/price-bars.ts";
import type { LabSignal } from "../db/repositories/strategy-lab-signals.ts";
import type { ReplaySignal, TokenPath } from "./types.ts";

// The price paths a backtest replays: per token, its bars from its first signal to
// `horizonMs` after its last one (a position can live no longer than the recorded history).

const DEFAULT_TOKEN_DECIMALS = 6;

export function toReplaySignals(signals: readonly LabSignal[]): ReplaySignal[] {
  return signals.map((s) => ({
    id: s.id,
    tokenAddress: s.tokenAddress,
    signalType: s.signalType,
    signalStrength: s.signalStrength,
    timeMs: Date.parse(s.createdAt),
    apiKeyId: s.apiKeyId,
    apiKeyName: s.apiKeyName,
    source: s.source,
  }));
}

export function loadPaths(
  bars: PriceBarRepository,
  signals: readonly ReplaySignal[],
  horizonMs: number,
  decimals: ReadonlyMap<string, number>,
): Map<string, TokenPath> {
  const span = new Map<string, { from: number; to: number }>();
  for (const s of signals) {
    const cur = span.get(s.tokenAddress);
    if (!cur) span.set(s.tokenAddress, { from: s.timeMs, to: s.timeMs });
    else {
      cur.from = Math.min(cur.from, s.timeMs);
      cur.to = Math.max(cur.to, s.timeMs);
    }
  }
  const paths = new Map<string, TokenPath>();
  for (const [token, { from, to }] of span) {
    // From the minute of the first signal: its bar starts up to a minute before it.
    const rows = bars.range(token, from - 60_000, to + horizonMs + 60_000);
    if (rows.length === 0) continue;
    paths.set(token, {
      times: rows.map((r) => r.time),
      closes: rows.map((r) => r.close),
      closeNums: Float64Array.from(rows, (r) => Number(r.close)),
      decimals: decimals.get(token) ?? DEFAULT_TOKEN_DECIMALS,
    });
  }
  return paths;
}
