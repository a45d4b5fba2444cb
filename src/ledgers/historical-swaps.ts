import type { Clock } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { iterateSwaps, listSwaps, type SwapFilter, type SwapRecord } from "../db/repositories/historical-swaps.ts";
import { type SwapInsert, swapLedger } from "../db/repositories/ledgers.ts";
import { newRowId } from "../db/row-id.ts";
import { ValidationError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { Big, decStr } from "../money.ts";
import { LedgerCrud } from "./ledger-crud.ts";

// Historical swaps (SPEC "Historical swap", "Historical swap endpoints"): one row per closed
// position, written by the trading engine at close; the HTTP CRUD serves tooling and
// corrections; the export streams every matching row as CSV.

type Row = SwapRecord;

export const CLOSE_REASONS = ["manual", "stop_loss", "stale_trade", "take_profit", "signal"] as const;
type CloseReason = (typeof CLOSE_REASONS)[number];

/** The record as the API shows it (SPEC "Historical swap"); positionId stays internal. */
export type SwapView = Omit<Row, "positionId">;

const toSwapView = (r: Row): SwapView => ({
  id: r.id,
  agentId: r.agentId,
  walletAddress: r.walletAddress,
  tokenAddress: r.tokenAddress,
  tokenSymbol: r.tokenSymbol,
  amount: r.amount,
  purchasePrice: r.purchasePrice,
  salePrice: r.salePrice,
  changePercent: r.changePercent,
  profitLossUsd: r.profitLossUsd,
  profitLossSol: r.profitLossSol,
  purchaseTime: r.purchaseTime,
  saleTime: r.saleTime,
  purchaseTransactionId: r.purchaseTransactionId,
  saleTransactionId: r.saleTransactionId,
  signalId: r.signalId,
  closeReason: r.closeReason,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export type SwapFields = Omit<SwapView, "id" | "agentId" | "closeReason" | "createdAt" | "updatedAt"> & {
  closeReason: CloseReason;
};

/** changePercent and profitLossSol are derived from the prices and amount when not sent. */
export type SwapCreate = { agentId: string } & Omit<
  SwapFields,
  "changePercent" | "profitLossSol" | "purchaseTransactionId" | "saleTransactionId" | "signalId"
> &
  Partial<
    Pick<SwapFields, "changePercent" | "profitLossSol" | "purchaseTransactionId" | "saleTransactionId" | "signalId">
  >;

export type SwapQuery = SwapFilter & { closeReason?: CloseReason };

const EXPORT_PAGE_SIZE = 500;

const derivedChangePercent = (purchasePrice: string, salePrice: string): string => {
  const p = new Big(purchasePrice);
  return p.eq(0) ? "0" : decStr(new Big(salePrice).minus(p).div(p).times(100));
};
const derivedProfitLossSol = (purchasePrice: string, salePrice: string, amount: string): string =>
  decStr(new Big(salePrice).minus(purchasePrice).times(amount));

export class HistoricalSwapService {
  private readonly crud: LedgerCrud<Row, SwapInsert, SwapView>;

  constructor(
    private readonly database: DatabaseHandle,
    clock: Clock,
    logger: Logger,
  ) {
    this.crud = new LedgerCrud(
      {
        repo: swapLedger(database.db),
        notFound: "Historical swap not found",
        log: {
          created: "historical swap recorded",
          updated: "historical swap updated",
          deleted: "historical swap deleted",
          idField: "swapId",
        },
        view: toSwapView,
        stamp: (now) => ({ updatedAt: now }),
        emptyUpdate: "At least one field must be provided",
      },
      database,
      clock,
      logger,
    );
  }

  /** Most recent sale first. */
  list(userId: string, q: SwapQuery & { limit: number; offset: number }): SwapView[] {
    this.crud.requireAgent(userId, q.agentId);
    return listSwaps(this.database.db, q).map(toSwapView);
  }

  /**
   * Rows for the CSV export. Ownership is checked now (so a 404 comes before any byte is sent);
   * rows are then read lazily, page by page, so a large export never sits in memory at once. With
   * `limit` it is the list's page; without, every matching row.
   */
  exportRows(userId: string, q: SwapQuery & { limit?: number; offset: number }): Iterable<SwapView> {
    this.crud.requireAgent(userId, q.agentId);
    if (q.limit !== undefined) return this.list(userId, { ...q, limit: q.limit });
    const db = this.database.db;
    return {
      *[Symbol.iterator]() {
        for (const row of iterateSwaps(db, q, EXPORT_PAGE_SIZE)) yield toSwapView(row);
      },
    };
  }

  get(userId: string, id: string): SwapView {
    return this.crud.get(userId, id);
  }

  create(userId: string, input: SwapCreate): SwapView {
    this.crud.requireAgent(userId, input.agentId); // 404 before the 400 of the times (as before)
    assertTimesOrdered(input.purchaseTime, input.saleTime);
    const now = this.crud.now();
    const row = {
      id: newRowId(),
      agentId: input.agentId,
      walletAddress: input.walletAddress,
      tokenAddress: input.tokenAddress,
      tokenSymbol: input.tokenSymbol,
      amount: input.amount,
      purchasePrice: input.purchasePrice,
      salePrice: input.salePrice,
      changePercent: input.changePercent ?? derivedChangePercent(input.purchasePrice, input.salePrice),
      profitLossUsd: input.profitLossUsd,
      profitLossSol: input.profitLossSol ?? derivedProfitLossSol(input.purchasePrice, input.salePrice, input.amount),
      purchaseTime: input.purchaseTime,
      saleTime: input.saleTime,
      purchaseTransactionId: input.purchaseTransactionId ?? null,
      saleTransactionId: input.saleTransactionId ?? null,
      signalId: input.signalId ?? null,
      closeReason: input.closeReason,
      createdAt: now,
      updatedAt: now,
    };
    return this.crud.create(userId, row, { closeReason: row.closeReason });
  }

  update(userId: string, id: string, patch: Partial<SwapFields>): SwapView {
    return this.crud.update(userId, id, patch, (row, changes) =>
      assertTimesOrdered(changes.purchaseTime ?? row.purchaseTime, changes.saleTime ?? row.saleTime),
    );
  }

  delete(userId: string, id: string): void {
    this.crud.delete(userId, id);
  }
}

function assertTimesOrdered(purchaseTime: string, saleTime: string): void {
  if (saleTime < purchaseTime) throw new ValidationError("saleTime must not be before purchaseTime");
}
