import { and, desc, eq, gte, lt, lte, or, type SQL, sql } from "drizzle-orm";
import { requireOwnedAgent } from "../agents/ownership.ts";
import type { Clock } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { agents, historicalSwaps } from "../db/schema/index.ts";
import { NotFoundError, ValidationError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { Big, decStr } from "../money.ts";

// Historical swaps (SPEC "Historical swap", "Historical swap endpoints"): one row per closed
// position, written by the trading engine at close; the HTTP CRUD serves tooling and
// corrections; the export streams every matching row as CSV.

type Row = typeof historicalSwaps.$inferSelect;

export const CLOSE_REASONS = ["manual", "stop_loss", "stale_trade", "take_profit", "signal"] as const;
export type CloseReason = (typeof CLOSE_REASONS)[number];

export interface SwapView {
  id: string;
  agentId: string;
  walletAddress: string;
  tokenAddress: string;
  tokenSymbol: string;
  amount: string;
  purchasePrice: string;
  salePrice: string;
  changePercent: string;
  profitLossUsd: string;
  profitLossSol: string;
  purchaseTime: string;
  saleTime: string;
  purchaseTransactionId: string | null;
  saleTransactionId: string | null;
  signalId: string | null;
  closeReason: string;
  createdAt: string;
  updatedAt: string;
}

export const toSwapView = (r: Row): SwapView => ({
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

export interface SwapFields {
  walletAddress: string;
  tokenAddress: string;
  tokenSymbol: string;
  amount: string;
  purchasePrice: string;
  salePrice: string;
  changePercent: string;
  profitLossUsd: string;
  profitLossSol: string;
  purchaseTime: string;
  saleTime: string;
  purchaseTransactionId: string | null;
  saleTransactionId: string | null;
  signalId: string | null;
  closeReason: CloseReason;
}

/** changePercent and profitLossSol are derived from the prices and amount when not sent. */
export type SwapCreate = { agentId: string } & Omit<
  SwapFields,
  "changePercent" | "profitLossSol" | "purchaseTransactionId" | "saleTransactionId" | "signalId"
> &
  Partial<
    Pick<SwapFields, "changePercent" | "profitLossSol" | "purchaseTransactionId" | "saleTransactionId" | "signalId">
  >;

export interface SwapQuery {
  agentId: string;
  walletAddress?: string;
  tokenAddress?: string;
  tokenSymbol?: string;
  startPurchaseTime?: string;
  endPurchaseTime?: string;
  startSaleTime?: string;
  endSaleTime?: string;
  signalId?: number;
  minProfitLossUsd?: number;
  maxProfitLossUsd?: number;
  closeReason?: CloseReason;
}

export const EXPORT_PAGE_SIZE = 500;

export const derivedChangePercent = (purchasePrice: string, salePrice: string): string => {
  const p = new Big(purchasePrice);
  return p.eq(0) ? "0" : decStr(new Big(salePrice).minus(p).div(p).times(100));
};
export const derivedProfitLossSol = (purchasePrice: string, salePrice: string, amount: string): string =>
  decStr(new Big(salePrice).minus(purchasePrice).times(amount));

export class HistoricalSwapService {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  private get db() {
    return this.database.db;
  }

  private nowIso(): string {
    return new Date(this.clock.now()).toISOString();
  }

  private owned(userId: string, id: string): Row {
    const row = this.db
      .select({ s: historicalSwaps })
      .from(historicalSwaps)
      .innerJoin(agents, eq(agents.id, historicalSwaps.agentId))
      .where(and(eq(historicalSwaps.id, id), eq(agents.userId, userId)))
      .get();
    if (!row) throw new NotFoundError("Historical swap not found");
    return row.s;
  }

  private conditions(q: SwapQuery): SQL[] {
    const s = historicalSwaps;
    const where: SQL[] = [eq(s.agentId, q.agentId)];
    if (q.walletAddress !== undefined) where.push(eq(s.walletAddress, q.walletAddress));
    if (q.tokenAddress !== undefined) where.push(eq(s.tokenAddress, q.tokenAddress));
    if (q.tokenSymbol !== undefined) where.push(eq(s.tokenSymbol, q.tokenSymbol));
    if (q.startPurchaseTime !== undefined) where.push(gte(s.purchaseTime, q.startPurchaseTime));
    if (q.endPurchaseTime !== undefined) where.push(lte(s.purchaseTime, q.endPurchaseTime));
    if (q.startSaleTime !== undefined) where.push(gte(s.saleTime, q.startSaleTime));
    if (q.endSaleTime !== undefined) where.push(lte(s.saleTime, q.endSaleTime));
    // signal_id is text in the table (SPEC types it string); the query parameter is an integer.
    if (q.signalId !== undefined) where.push(eq(s.signalId, String(q.signalId)));
    // The amounts are decimal text; the filter bounds are numbers (SPEC), compared numerically.
    if (q.minProfitLossUsd !== undefined) where.push(sql`CAST(${s.profitLossUsd} AS REAL) >= ${q.minProfitLossUsd}`);
    if (q.maxProfitLossUsd !== undefined) where.push(sql`CAST(${s.profitLossUsd} AS REAL) <= ${q.maxProfitLossUsd}`);
    if (q.closeReason !== undefined) where.push(eq(s.closeReason, q.closeReason));
    return where;
  }

  /** Most recent sale first. */
  list(userId: string, q: SwapQuery & { limit: number; offset: number }): SwapView[] {
    requireOwnedAgent(this.database, userId, q.agentId);
    return this.db
      .select()
      .from(historicalSwaps)
      .where(and(...this.conditions(q)))
      .orderBy(desc(historicalSwaps.saleTime), desc(sql`rowid`))
      .limit(q.limit)
      .offset(q.offset)
      .all()
      .map(toSwapView);
  }

  /**
   * Rows for the CSV export. Ownership is checked now (so a 404 comes before any byte is sent);
   * rows are then read lazily, page by page on (saleTime, rowid), so a large export never sits in
   * memory at once. With `limit` it is the list's page; without, every matching row.
   */
  exportRows(userId: string, q: SwapQuery & { limit?: number; offset: number }): Iterable<SwapView> {
    requireOwnedAgent(this.database, userId, q.agentId);
    if (q.limit !== undefined) return this.list(userId, { ...q, limit: q.limit });
    const base = this.conditions(q);
    const db = this.db;
    return {
      *[Symbol.iterator]() {
        let cursor: { saleTime: string; seq: number } | null = null;
        let offset = q.offset;
        for (;;) {
          const where = [...base];
          if (cursor) {
            // The plain range term lets SQLite seek the (agent_id, sale_time) index to the cursor;
            // with the OR alone every page rescanned the agent's rows from the newest (quadratic).
            where.push(lte(historicalSwaps.saleTime, cursor.saleTime));
            where.push(
              or(
                lt(historicalSwaps.saleTime, cursor.saleTime),
                and(eq(historicalSwaps.saleTime, cursor.saleTime), sql`rowid < ${cursor.seq}`),
              ) as SQL,
            );
          }
          const page = db
            .select({ row: historicalSwaps, seq: sql<number>`rowid` })
            .from(historicalSwaps)
            .where(and(...where))
            .orderBy(desc(historicalSwaps.saleTime), desc(sql`rowid`))
            .limit(EXPORT_PAGE_SIZE)
            .offset(offset)
            .all();
          offset = 0;
          for (const p of page) yield toSwapView(p.row);
          if (page.length < EXPORT_PAGE_SIZE) return;
          const last = page[page.length - 1] as (typeof page)[number];
          cursor = { saleTime: last.row.saleTime, seq: last.seq };
        }
      },
    };
  }

  get(userId: string, id: string): SwapView {
    return toSwapView(this.owned(userId, id));
  }

  create(userId: string, input: SwapCreate): SwapView {
    requireOwnedAgent(this.database, userId, input.agentId);
    assertTimesOrdered(input.purchaseTime, input.saleTime);
    const now = this.nowIso();
    const row = {
      id: crypto.randomUUID(),
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
    this.db.insert(historicalSwaps).values(row).run();
    this.logger.info("historical swap recorded", {
      agentId: input.agentId,
      swapId: row.id,
      closeReason: row.closeReason,
    });
    return this.get(userId, row.id);
  }

  update(userId: string, id: string, patch: Partial<SwapFields>): SwapView {
    const changes = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<SwapFields>;
    if (Object.keys(changes).length === 0) throw new ValidationError("At least one field must be provided");
    const row = this.owned(userId, id);
    assertTimesOrdered(changes.purchaseTime ?? row.purchaseTime, changes.saleTime ?? row.saleTime);
    this.db
      .update(historicalSwaps)
      .set({ ...changes, updatedAt: this.nowIso() })
      .where(eq(historicalSwaps.id, id))
      .run();
    this.logger.info("historical swap updated", { agentId: row.agentId, swapId: id, fields: Object.keys(changes) });
    return this.get(userId, id);
  }

  delete(userId: string, id: string): void {
    const row = this.owned(userId, id);
    this.db.delete(historicalSwaps).where(eq(historicalSwaps.id, id)).run();
    this.logger.info("historical swap deleted", { agentId: row.agentId, swapId: id });
  }
}

function assertTimesOrdered(purchaseTime: string, saleTime: string): void {
  if (saleTime < purchaseTime) throw new ValidationError("saleTime must not be before purchaseTime");
}
