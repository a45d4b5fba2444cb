import type { Clock } from "../clock.ts";

// The Solana RPC request budget (docs/decisions.md "Copy trading"). Every request the one RPC
// client sends is recorded here, whoever sends it; live trading (swaps, confirmations, the
// reconciler, balance reads) never waits for the budget. Background readers (the copy-trading
// watcher) ask `allow()` before each request and stop for this round when the window's requests
// have reached their ceiling, which lies below the provider's limit: the rest of the window stays
// for live trading, so a poll never costs a live trade a 429. The public mainnet-beta endpoint
// allows 100 requests per 10 s per address.

export interface RpcBudgetLimits {
  windowMs: number;
  /** The provider's limit per window. */
  limit: number;
  /** Requests per window background readers may use together with everything else. */
  backgroundCeiling: number;
}

const DEFAULT_RPC_BUDGET: RpcBudgetLimits = { windowMs: 10_000, limit: 100, backgroundCeiling: 60 };

export class RpcRequestBudget {
  /** Epoch ms of each request inside the current window, oldest first. */
  private readonly sent: number[] = [];

  constructor(
    private readonly clock: Pick<Clock, "now">,
    readonly limits: RpcBudgetLimits = DEFAULT_RPC_BUDGET,
  ) {}

  private prune(now: number): void {
    while (this.sent.length > 0 && this.sent[0]! <= now - this.limits.windowMs) this.sent.shift();
  }

  /** A request went out (any sender). */
  record(): void {
    const now = this.clock.now();
    this.prune(now);
    this.sent.push(now);
  }

  /** Requests sent in the current window. */
  used(): number {
    this.prune(this.clock.now());
    return this.sent.length;
  }

  /** Whether a background request may go out now (it is recorded when the client sends it). */
  allow(): boolean {
    return this.used() < this.limits.backgroundCeiling;
  }
}
