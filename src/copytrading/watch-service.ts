import { type Clock, isoNow } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { SignalRepository } from "../db/repositories/signals.ts";
import { WalletWatchRepository, type WalletWatchRow } from "../db/repositories/wallet-watches.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import { decNum, decStr, fromAtomic, toAtomic } from "../money.ts";
import { type SignalProcessing, signalProcessing } from "../signals/signal-decisions.ts";

// The wallet watches API's rules (PRODUCT.md §7): a user's followed wallets, at
// most WALLET_WATCH_MAX each, one watch per address. Creating or re-enabling a watch sets the
// moment from which it copies (never history); another user's watch is not found.

export interface WatchInput {
  address: string;
  label: string;
  minSolAmount: number;
  signalStrength: number;
  copySells: boolean;
  enabled: boolean;
  /** Per-watch copy limits (limits.ts): SOL per copied buy, copied positions open per agent, SOL a day per agent. */
  maxSolPerTrade: number;
  maxOpenPositions: number;
  dailySolBudget: number;
}

export interface WalletWatch extends WatchInput {
  id: string;
  lastSeenSignature: string | null;
  lastError: string | null;
  lagSeconds: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface DetectedTradeView {
  signature: string;
  side: "buy" | "sell";
  tokenAddress: string;
  /** SOL the wallet spent (buy) or received (sell), decimal string. */
  solAmount: string;
  /** Token amount in atomic units. */
  tokenAmountAtomic: string;
  blockTime: string;
  detectedAt: string;
  /** The signal it became; null for a sell of a watch that does not copy sells, or an ignored one. */
  signalId: number | null;
  /** Non-null: shaped like a trade but not the wallet's swap, so never copied (detect.ts). */
  ignoredReason: "not_signed" | "not_a_swap" | null;
  /** What the user's agents did with that signal. */
  processing: SignalProcessing | null;
}

const lamportsOf = (sol: number): string => toAtomic(decStr(sol, 9), 9).toString();

function toWalletWatch(r: WalletWatchRow): WalletWatch {
  return {
    id: r.id,
    address: r.address,
    label: r.label,
    minSolAmount: decNum(fromAtomic(r.minSolLamports, 9)),
    signalStrength: r.signalStrength,
    copySells: r.copySells,
    enabled: r.enabled,
    maxSolPerTrade: decNum(fromAtomic(r.maxSolPerTradeLamports, 9)),
    maxOpenPositions: r.maxOpenPositions,
    dailySolBudget: decNum(fromAtomic(r.dailySolBudgetLamports, 9)),
    lastSeenSignature: r.lastSeenSignature,
    lastError: r.lastError,
    lagSeconds: r.lagSeconds,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

export class WalletWatchService {
  readonly rows: WalletWatchRepository;
  private readonly signals: SignalRepository;

  constructor(
    private readonly database: DatabaseHandle,
    private readonly clock: Clock,
    private readonly maxPerUser: number,
  ) {
    this.rows = new WalletWatchRepository(database);
    this.signals = new SignalRepository(database.sqlite);
  }

  private owned(userId: string, id: string): WalletWatchRow {
    const row = this.rows.owned(userId, id);
    if (!row) throw new NotFoundError("Wallet watch not found");
    return row;
  }

  create(userId: string, input: WatchInput): WalletWatch {
    const now = isoNow(this.clock);
    const id = crypto.randomUUID();
    this.database.sqlite.transaction(() => {
      if (this.rows.countOf(userId) >= this.maxPerUser)
        throw new ConflictError(`At most ${this.maxPerUser} wallet watches per user (WALLET_WATCH_MAX)`);
      if (this.rows.byAddress(userId, input.address)) throw new ConflictError("This wallet is already watched");
      this.rows.insert({
        id,
        userId,
        address: input.address,
        label: input.label,
        minSolLamports: lamportsOf(input.minSolAmount),
        signalStrength: input.signalStrength,
        copySells: input.copySells,
        enabled: input.enabled,
        maxSolPerTradeLamports: lamportsOf(input.maxSolPerTrade),
        maxOpenPositions: input.maxOpenPositions,
        dailySolBudgetLamports: lamportsOf(input.dailySolBudget),
        watchFrom: now,
        createdAt: now,
        updatedAt: now,
      });
    })();
    return this.get(userId, id);
  }

  list(userId: string): WalletWatch[] {
    return this.rows.listOf(userId).map(toWalletWatch);
  }

  get(userId: string, id: string): WalletWatch {
    return toWalletWatch(this.owned(userId, id));
  }

  /**
   * Changes a watch. Re-enabling it, or pointing it at another address, starts it afresh: the
   * cursor is dropped and nothing from before now is copied.
   */
  update(userId: string, id: string, patch: Partial<WatchInput>): WalletWatch {
    const now = isoNow(this.clock);
    this.database.sqlite.transaction(() => {
      const row = this.owned(userId, id);
      const address = patch.address ?? row.address;
      if (address !== row.address && this.rows.byAddress(userId, address))
        throw new ConflictError("This wallet is already watched");
      const restart = (patch.enabled === true && !row.enabled) || address !== row.address;
      this.rows.update(id, {
        address,
        ...(patch.label !== undefined ? { label: patch.label } : {}),
        ...(patch.minSolAmount !== undefined ? { minSolLamports: lamportsOf(patch.minSolAmount) } : {}),
        ...(patch.signalStrength !== undefined ? { signalStrength: patch.signalStrength } : {}),
        ...(patch.copySells !== undefined ? { copySells: patch.copySells } : {}),
        ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
        ...(patch.maxSolPerTrade !== undefined ? { maxSolPerTradeLamports: lamportsOf(patch.maxSolPerTrade) } : {}),
        ...(patch.maxOpenPositions !== undefined ? { maxOpenPositions: patch.maxOpenPositions } : {}),
        ...(patch.dailySolBudget !== undefined ? { dailySolBudgetLamports: lamportsOf(patch.dailySolBudget) } : {}),
        ...(restart ? { watchFrom: now, lastSeenSignature: null, lastError: null, lagSeconds: null } : {}),
        updatedAt: now,
      });
    })();
    return this.get(userId, id);
  }

  delete(userId: string, id: string): void {
    if (!this.rows.delete(userId, id)) throw new NotFoundError("Wallet watch not found");
  }

  /** The watch's detected trades, newest first, with what the agents did with each signal. */
  trades(userId: string, id: string, limit: number): DetectedTradeView[] {
    this.owned(userId, id);
    const rows = this.rows.recentTrades(userId, limit, id);
    const signals = rows.flatMap((r) => (r.signalId !== null ? [this.signals.owned(userId, r.signalId)] : []));
    const processing = signalProcessing(
      this.database,
      signals.filter((s) => s !== null),
    );
    return rows.map((r) => ({
      signature: r.signature,
      side: r.side,
      tokenAddress: r.mint,
      solAmount: decStr(fromAtomic(r.solLamports, 9), 9),
      tokenAmountAtomic: r.tokenAmount,
      blockTime: r.blockTime,
      detectedAt: r.detectedAt,
      signalId: r.signalId,
      ignoredReason: r.ignoredReason,
      processing: r.signalId !== null ? (processing.get(r.signalId) ?? null) : null,
    }));
  }
}
