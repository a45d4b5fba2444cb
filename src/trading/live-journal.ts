import { type Clock, isoNow } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { type LiveTradeRecord, LiveTradeRepository, type NewLiveTrade } from "../db/repositories/live-trades.ts";
import type { CloseReason } from "./rules/types.ts";

// The live swap journal (table live_trades; PRODUCT.md §5: "a trade whose outcome is unknown
// (sent, not confirmed) is never re-sent: it is reconciled from the chain by signature").
//
//   executor signs → writeAhead(status "sending") → sendTransaction → confirm
//     confirmed on time  → the settlement records the trade, status "confirmed"
//     failed / expired   → status "failed" / "expired" (nothing else recorded)
//     refused by the RPC → discard (it never left the machine)
//     unknown            → the settlement records a PENDING trade, status "pending" + intent
//   reconciler (monitor tick): pending rows, and "sending" rows no executor is working on (the
//   process stopped while confirming), are resolved by signature.
//
// While a row of an (agent, token) is unresolved, the executor refuses another swap of that
// token for that agent: nothing is ever sent twice, and the position cannot be sold while its
// buy is in doubt.

export type LiveTradeStatus = "sending" | "pending" | "confirmed" | "failed" | "expired";

/** What a pending live swap was for: how the reconciler settles it once the chain has spoken. */
export type LiveIntent =
  | { kind: "open"; userId: string; signalId: number; symbol: string }
  | { kind: "dca"; positionId: string; order: number }
  | {
      kind: "take_profit";
      positionId: string;
      levelsHit: number;
      moonBagActivated: boolean;
      moonBagAmount: string | null;
      closesPosition: boolean;
    }
  | { kind: "close"; positionId: string; reason: CloseReason; signalId?: number };

/** A journal row with its intent parsed. */
export type LiveTrade = Omit<LiveTradeRecord, "intent" | "status"> & {
  status: LiveTradeStatus;
  intent: LiveIntent | null;
};

const parse = (r: LiveTradeRecord | null): LiveTrade | null =>
  r
    ? { ...r, status: r.status as LiveTradeStatus, intent: r.intent ? (JSON.parse(r.intent) as LiveIntent) : null }
    : null;

export class LiveTradeJournal {
  /**
   * Signatures an executor is confirming right now: the reconciler leaves them alone. The
   * executor adds; whoever records the outcome (settlement, or the executor on a failure)
   * releases.
   */
  readonly inFlight = new Set<string>();
  private readonly rows: LiveTradeRepository;

  constructor(
    db: Pick<DatabaseHandle, "sqlite">,
    private readonly clock: Clock,
  ) {
    this.rows = new LiveTradeRepository(db.sqlite);
  }

  /** Written BEFORE sendTransaction: from here on the swap is never forgotten. */
  writeAhead(r: NewLiveTrade): void {
    this.rows.insertSending(r, isoNow(this.clock));
  }

  /** The RPC refused the transaction: it never left the machine, so nothing is kept. */
  discard(signature: string): void {
    this.rows.delete(signature);
  }

  /** Final state. Synchronous: callable inside the settling SQLite transaction. */
  resolve(
    signature: string,
    status: "confirmed" | "failed" | "expired",
    opts: { error?: string; transactionId?: string } = {},
  ): void {
    this.rows.resolve(signature, status, opts.error ?? null, opts.transactionId ?? null, isoNow(this.clock));
  }

  /** Outcome unknown: handed to the reconciler with what it was for and the pending transaction row. */
  markPending(signature: string, intent: LiveIntent, transactionId: string): void {
    this.rows.markPending(signature, JSON.stringify(intent), transactionId, isoNow(this.clock));
  }

  get(signature: string): LiveTrade | null {
    return parse(this.rows.get(signature));
  }

  /** Rows whose outcome is not recorded yet, oldest first (in-flight ones included). */
  unresolved(): LiveTrade[] {
    return this.rows.unresolved().map((r) => parse(r) as LiveTrade);
  }

  /** True while a swap of this token by this agent is in doubt (the executor refuses another). */
  hasUnresolved(agentId: string, tokenAddress: string): boolean {
    return this.rows.hasUnresolved(agentId, tokenAddress);
  }

  /** True while any swap of the wallet is in doubt (deposit checks wait for it). */
  hasUnresolvedForWallet(walletAddress: string): boolean {
    return this.rows.hasUnresolvedForWallet(walletAddress);
  }
}
