import { signal } from "@preact/signals";
import { api, get } from "./api.ts";
import { onEvent } from "./live.ts";

// The user's trading switches as GET /trading/status reports them (per mode: paused, the tripped
// daily-loss breaker) plus the service-wide facts the header and banners show (live trading on,
// the explorer links go to). Loaded once per session and again whenever a trading.paused,
// trading.resumed or risk.tripped event arrives, so every tab shows the same switches.

export type Mode = "simulation" | "live";

interface ModeStatus {
  paused: boolean;
  pausedAt: string | null;
  tripped: { reason: string; at: string } | null;
}

export interface TradingStatus {
  simulation: ModeStatus;
  live: ModeStatus;
  liveTradingEnabled: boolean;
  /** EXPLORER_URL: where transactions, wallets and tokens link to (absent from older servers). */
  explorerUrl?: string;
  /** DEMO_MARKET: the built-in synthetic market (absent from older servers). */
  demoMarket?: boolean;
}

export const tradingStatus = signal<TradingStatus | null>(null);

async function loadTradingStatus(): Promise<void> {
  tradingStatus.value = await get<TradingStatus>("/trading/status").catch(() => tradingStatus.value);
}

/** Pauses or resumes entries of one mode or both; resume also clears a tripped breaker. */
export async function setPaused(mode: Mode | "all", paused: boolean): Promise<void> {
  tradingStatus.value = await api<TradingStatus>("POST", paused ? "/trading/pause" : "/trading/resume", { mode });
}

let unsubscribe: (() => void) | null = null;

/** Starts following the switches (idempotent); stopTradingStatus on logout. */
export function followTradingStatus(): void {
  void loadTradingStatus();
  unsubscribe ??= onEvent((e) => {
    if (e.type === "trading.paused" || e.type === "trading.resumed" || e.type === "risk.tripped") {
      void loadTradingStatus();
    }
  });
}

export function stopTradingStatus(): void {
  unsubscribe?.();
  unsubscribe = null;
  tradingStatus.value = null;
}
