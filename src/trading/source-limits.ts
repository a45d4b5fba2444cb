import type { Big } from "../money.ts";

// Limits a signal's source sets on a buy, asked by the signal processor for every agent before its
// balance check. Declared here, beside the processor that asks, so the sources that implement it
// (copy trading's per-watch limits, src/copytrading/limits.ts) depend on trading, not the reverse.

export type SourceLimitResult =
  | { eligible: true; sizeSol: Big }
  | { eligible: false; rule: "copy_max_open_positions" | "copy_daily_budget"; reason: string };

export interface SourceLimits {
  check(
    signal: { userId: string; source: string | null },
    agentId: string,
    sizeSol: Big,
    nowMs: number,
  ): SourceLimitResult;
}
