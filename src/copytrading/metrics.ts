import { Counter, Histogram, type Registry } from "../metrics/prom.ts";

// Copy trading on /metrics (PRODUCT.md §6 exposition): how late copies are, and what the watcher
// saw. Registered on the service's own registry.

export interface CopyTradingMetrics {
  /** One per transaction decided: a detected buy or sell, or one ignored (failed, stale, history, no trade, under the minimum). */
  transactions: Counter<"outcome">;
  /** Block time → signal, seconds, per copied trade. */
  lag: Histogram<string>;
  /**
   * Transactions not copied, by why: decided from the signature list alone, without a
   * getTransaction (`failed_unread`, `stale`, `dust_memo`, `dust_logs`), or after reading it (a detect.ts reason).
   */
  ignored: Counter<"reason">;
}

const IGNORED_REASONS = [
  "failed_unread",
  "stale",
  "dust_memo",
  "dust_logs",
  "failed",
  "no_trade",
  "below_minimum",
  "ambiguous",
  "not_signed",
  "not_a_swap",
] as const;

export function createCopyTradingMetrics(registry: Registry): CopyTradingMetrics {
  const registers = [registry];
  const transactions = new Counter({
    name: "copy_trading_transactions_total",
    help: "Transactions of watched wallets decided by the copy-trading watcher, by outcome (buy, sell, ignored).",
    labelNames: ["outcome"] as const,
    registers,
  });
  for (const outcome of ["buy", "sell", "ignored"] as const) transactions.inc({ outcome }, 0);
  const lag = new Histogram({
    name: "copy_trading_lag_seconds",
    help: "Seconds from a watched wallet's transaction (block time) to the signal copying it.",
    buckets: [1, 2, 5, 10, 15, 20, 30, 45, 60, 90, 120],
    registers,
  });
  const ignored = new Counter({
    name: "copy_trading_ignored_total",
    help: "Transactions of watched wallets not copied, by reason; failed_unread, stale, dust_memo and dust_logs cost no getTransaction.",
    labelNames: ["reason"] as const,
    registers,
  });
  for (const reason of IGNORED_REASONS) ignored.inc({ reason }, 0);
  return { transactions, lag, ignored };
}
