// The pure trading rules (PRODUCT.md §4): data in, decision out; no I/O, no clock reads.
// Amounts are Big (src/money.ts) or decimal strings; times are epoch ms passed in.

export * from "./daily-loss.ts";
export * from "./dca.ts";
export { big as toBig } from "./decimal-input.ts";
export * from "./eligibility.ts";
export * from "./exit-signal.ts";
export * from "./fees.ts";
export * from "./pnl.ts";
export * from "./position-action.ts";
export * from "./position-levels.ts";
export * from "./position-sizing.ts";
export * from "./quick-screen.ts";
export * from "./signal-source.ts";
export * from "./slippage.ts";
export * from "./stale-signal.ts";
export * from "./stale-trade.ts";
export * from "./stop-loss.ts";
export * from "./take-profit.ts";
export type * from "./types.ts";
