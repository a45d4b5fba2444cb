import { type Clock, isoNow } from "../../clock.ts";
import type { DatabaseHandle } from "../../db/client.ts";
import { type LiveTradeRecord, LiveTradeRepository, type NewLiveTrade } from "../../db/repositories/live-trades.ts";
import { ConflictError, TradingError } from "../../errors.ts";
import { decStr } from "../../money.ts";
import type { LiveIntent } from "../executor.ts";
import type { SaleRequest } from "../settlement/types.ts";

// The live swap journal (table live_trades; PRODUCT.md §5: "a trade whose outcome is unknown
// (sent, not confirmed) is never re-sent: it is reconciled from the chain by signature").
//
//   executor inspects, signs → writeAhead(status "sending", with its intent) → broadcast
//     confirmed on time  → the settlement records the trade, status "confirmed"
//     failed / expired   → status "failed" / "expired" (nothing else recorded); expired only
//                          when proven (live/outcome.ts)
//     anything else      → the settlement records a PENDING trade, status "pending"
//   A send error never removes the row: the node may have forwarded the transaction (issue 15).
//   reconciler (monitor tick): pending rows, and "sending" rows no executor is working on (the
//   process stopped while confirming), are resolved by signature; the intent written before
//   sending says which ledger effect a landed swap completes (open for signal S, DCA order k,
//   take-profit level n, the manual sale of signal S, close).
//
// While a row of an (agent, token) is unresolved, the executor refuses another swap of that
// token for that agent: nothing is ever sent twice, and the position cannot be sold while its
// buy is in doubt.

type LiveTradeStatus = "sending" | "pending" | "unknown" | "confirmed" | "failed" | "expired";

/**
 * What an operator reads for an attempt in state "unknown" (API, dashboard, log): the node could
 * not prove the transaction absent, so it may have landed; nothing of that token is traded until
 * the chain answers.
 */
export const UNKNOWN_ATTEMPT_MESSAGE =
  "The outcome of this live swap cannot be proven: the Solana RPC node has no history back to when it was sent, so it may have landed. Look the signature up on an explorer or a full-history RPC node; point SOLANA_RPC_URL at a node with full transaction history and the next monitor tick settles it. Until then this token is not traded for this agent or wallet.";

/** A journal row with its intent parsed. */
export type LiveTrade = Omit<LiveTradeRecord, "intent" | "status"> & {
  status: LiveTradeStatus;
  intent: LiveIntent | null;
};

const parse = (r: LiveTradeRecord | null): LiveTrade | null =>
  r
    ? { ...r, status: r.status as LiveTradeStatus, intent: r.intent ? (JSON.parse(r.intent) as LiveIntent) : null }
    : null;

export const PENDING_TRADE_MESSAGE =
  "A live trade of this token is still awaiting confirmation; it will be reconciled from the chain before another is sent";

/**
 * The action a swap is for was already sent (in doubt, or done): issue 15 "an action with a
 * pending or unknown attempt is never started again". The engine treats it as "already traded".
 */
export class ActionAlreadyTakenError extends ConflictError {
  constructor(
    readonly intent: LiveIntent,
    /** The earlier attempt is still in doubt (else it is confirmed: the action is done). */
    readonly inDoubt: boolean,
  ) {
    super(inDoubt ? PENDING_TRADE_MESSAGE : "This trade was already made on chain; it is not sent again", {
      action: intent.kind,
    });
  }
}

/** Whether two intents name the same action (signal S's open, DCA order k, take-profit level n, a close). */
export function sameAction(a: LiveIntent, b: LiveIntent): boolean {
  switch (a.kind) {
    case "open":
      return b.kind === "open" && b.signalId === a.signalId;
    case "dca":
      return b.kind === "dca" && b.positionId === a.positionId && b.order === a.order;
    case "take_profit":
      return b.kind === "take_profit" && b.positionId === a.positionId && b.levelsHit === a.levelsHit;
    case "close":
      return b.kind === "close" && b.positionId === a.positionId;
    case "manual_sale":
      return b.kind === "manual_sale" && b.positionId === a.positionId && b.signalId === a.signalId;
  }
}

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

  /** Written BEFORE sendTransaction: from here on the swap and its purpose are never forgotten. */
  writeAhead(r: Omit<NewLiveTrade, "intent">, intent: LiveIntent | null): void {
    // The aggregator handed back a transaction already journaled (same bytes, same signature):
    // it either landed already or can never land again; sending it is never a new trade.
    if (this.rows.get(r.signature))
      throw new TradingError("The swap aggregator returned a transaction that was already sent once; not sent again", {
        signature: r.signature,
      });
    this.rows.insertSending({ ...r, intent: intent ? JSON.stringify(intent) : null }, isoNow(this.clock));
  }

  /** Final state. Synchronous: callable inside the settling SQLite transaction. */
  resolve(
    signature: string,
    status: "confirmed" | "failed" | "expired",
    opts: { error?: string; transactionId?: string } = {},
  ): void {
    this.rows.resolve(signature, status, opts.error ?? null, opts.transactionId ?? null, isoNow(this.clock));
  }

  /** Not provable either way by the node (live/outcome.ts "unknown"): stays open, every action blocked. */
  markUnknown(signature: string, reason: string): boolean {
    return this.rows.markUnknown(signature, reason, UNKNOWN_ATTEMPT_MESSAGE, isoNow(this.clock));
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

  /**
   * True while a swap of this token by this agent, or from this wallet, is in doubt (the executor
   * refuses another): a wallet's attempt blocks its token whichever agent holds the wallet now.
   */
  hasUnresolved(agentId: string, tokenAddress: string, walletAddress = ""): boolean {
    return this.rows.hasUnresolved(agentId, walletAddress, tokenAddress);
  }

  /** Attempts of the agent (any token) still in doubt: deleting it would lose track of them. */
  countUnresolvedForAgent(agentId: string): number {
    return this.rows.countUnresolvedForAgent(agentId);
  }

  /**
   * True when a swap for this very action was sent and did not fail or expire: it is in doubt or
   * done, and starting it again could repeat it (a restarted signal after the reconciler settled
   * its buy, a DCA order a crash left confirmed but unseen by the caller).
   */
  actionTaken(agentId: string, tokenAddress: string, intent: LiveIntent): "in_doubt" | "done" | null {
    const rows = this.rows
      .intentsInPlay(agentId, tokenAddress)
      .filter((r) => sameAction(JSON.parse(r.intent) as LiveIntent, intent));
    if (rows.length === 0) return null;
    return rows.some((r) => r.status === "confirmed") ? "done" : "in_doubt";
  }

  /** The highest priority fee an expired attempt of this very action paid (null: none expired). */
  lastExpiredFee(agentId: string, tokenAddress: string, intent: LiveIntent): number | null {
    const fees = this.rows
      .expiredAttempts(agentId, tokenAddress)
      .filter((r) => sameAction(JSON.parse(r.intent) as LiveIntent, intent))
      .map((r) => r.priorityFeeLamports);
    return fees.length > 0 ? Math.max(...fees) : null;
  }

  /** True while any swap of the wallet is in doubt (deposit checks wait for it). */
  hasUnresolvedForWallet(walletAddress: string): boolean {
    return this.rows.hasUnresolvedForWallet(walletAddress);
  }
}

/** The journal intent of a take-profit sale, a manual part or a close of position `positionId`. */
export function saleIntent(positionId: string, sale: SaleRequest): LiveIntent {
  if (sale.kind === "manual_sale")
    return { kind: "manual_sale", positionId, signalId: sale.signalId, percent: sale.percent };
  if (sale.kind === "close")
    return {
      kind: "close",
      positionId,
      reason: sale.reason,
      ...(sale.signalId !== undefined ? { signalId: sale.signalId } : {}),
    };
  return {
    kind: "take_profit",
    positionId,
    levelsHit: sale.levelsHit,
    moonBagActivated: sale.moonBagActivated,
    moonBagAmount: sale.moonBagAmount ? decStr(sale.moonBagAmount) : null,
    closesPosition: sale.closesPosition,
  };
}
