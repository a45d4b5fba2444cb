import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { decStr, fromAtomic } from "../../money.ts";
import type { DatabaseHandle } from "../client.ts";
import { walletWatches, walletWatchGroups, walletWatchTrades } from "../schema/index.ts";
import { OPEN as LIVE_TRADE_OPEN } from "./live-trades.ts";

// The copy-trading tables (src/db/schema/copy-trading.ts), written only from here.

export type WalletWatchRow = typeof walletWatches.$inferSelect;
export type WalletWatchTradeRow = typeof walletWatchTrades.$inferSelect;
export type NewWatchTrade = Omit<typeof walletWatchTrades.$inferInsert, "id" | "signalId">;

export class WalletWatchRepository {
  constructor(private readonly database: DatabaseHandle) {}

  private get db() {
    return this.database.db;
  }

  insert(row: typeof walletWatches.$inferInsert): void {
    this.db.insert(walletWatches).values(row).run();
  }

  listOf(userId: string): WalletWatchRow[] {
    return this.db
      .select()
      .from(walletWatches)
      .where(eq(walletWatches.userId, userId))
      .orderBy(desc(walletWatches.createdAt), desc(walletWatches.id))
      .all();
  }

  countOf(userId: string): number {
    return (
      this.db.select({ n: sql<number>`count(*)` }).from(walletWatches).where(eq(walletWatches.userId, userId)).get()
        ?.n ?? 0
    );
  }

  owned(userId: string, id: string): WalletWatchRow | undefined {
    return this.db
      .select()
      .from(walletWatches)
      .where(and(eq(walletWatches.id, id), eq(walletWatches.userId, userId)))
      .get();
  }

  byAddress(userId: string, address: string): WalletWatchRow | undefined {
    return this.db
      .select()
      .from(walletWatches)
      .where(and(eq(walletWatches.userId, userId), eq(walletWatches.address, address)))
      .get();
  }

  byId(id: string): WalletWatchRow | undefined {
    return this.db.select().from(walletWatches).where(eq(walletWatches.id, id)).get();
  }

  /** Every enabled watch of every user, oldest first (the watcher's round). */
  enabled(): WalletWatchRow[] {
    return this.db
      .select()
      .from(walletWatches)
      .where(eq(walletWatches.enabled, true))
      .orderBy(asc(walletWatches.createdAt), asc(walletWatches.id))
      .all();
  }

  update(id: string, patch: Partial<typeof walletWatches.$inferInsert>): void {
    this.db.update(walletWatches).set(patch).where(eq(walletWatches.id, id)).run();
  }

  /**
   * The watcher's outcome of one poll (cursor, last error, lag), written only while the watch is
   * as the poll read it: an edit, pause or re-enable in between (which moves updatedAt and resets
   * the cursor) wins over a poll that began before it.
   */
  recordPoll(
    id: string,
    readAt: string,
    patch: Pick<Partial<typeof walletWatches.$inferInsert>, "lastSeenSignature" | "lastError" | "lagSeconds">,
  ): void {
    this.db
      .update(walletWatches)
      .set(patch)
      .where(and(eq(walletWatches.id, id), eq(walletWatches.updatedAt, readAt)))
      .run();
  }

  delete(userId: string, id: string): boolean {
    return (
      this.db
        .delete(walletWatches)
        .where(and(eq(walletWatches.id, id), eq(walletWatches.userId, userId)))
        .returning({ one: sql`1` })
        .all().length > 0
    );
  }

  /**
   * Records a detected trade once: false when this (watch, signature) is already recorded (an
   * overlapping poll, a restart). Runs inside the caller's transaction, beside the signal insert.
   */
  claimTrade(row: NewWatchTrade): boolean {
    return (
      this.db
        .insert(walletWatchTrades)
        .values(row)
        .onConflictDoNothing({ target: [walletWatchTrades.watchId, walletWatchTrades.signature] })
        .returning({ one: sql`1` })
        .all().length > 0
    );
  }

  /**
   * What the agent holds and spent from one source's signals: its open positions, and the SOL of
   * those opened since `since`. A live buy of the source whose outcome the journal has not
   * resolved counts as the position it may become (issue 41 item 1): its SOL in, sent at its
   * journal row's time.
   */
  copiedExposure(agentId: string, source: string, since: string): { open: number; openingSol: string[] } {
    const rows = this.database.sqlite
      .query<{ status: string; openingSol: string; openedAt: string }, [string, string]>(
        `SELECT p.status AS status, p.opening_sol AS openingSol, p.opened_at AS openedAt
           FROM positions p JOIN trading_signals s ON s.id = p.signal_id
          WHERE p.agent_id = ? AND s.source = ?`,
      )
      .all(agentId, source);
    const inDoubt = this.database.sqlite
      .query<{ lamports: string; sentAt: string }, [string, string]>(
        `SELECT l.input_atomic AS lamports, l.created_at AS sentAt
           FROM live_trades l JOIN trading_signals s ON s.id = json_extract(l.intent, '$.signalId')
          WHERE l.agent_id = ? AND s.source = ? AND l.side = 'BUY' AND json_extract(l.intent, '$.kind') = 'open'
            AND l.status IN ${LIVE_TRADE_OPEN}`,
      )
      .all(agentId, source);
    return {
      open: rows.filter((r) => r.status === "open").length + inDoubt.length,
      openingSol: [
        ...rows.filter((r) => r.openedAt >= since).map((r) => r.openingSol),
        ...inDoubt.filter((r) => r.sentAt >= since).map((r) => decStr(fromAtomic(r.lamports, 9), 9)),
      ],
    };
  }

  /** The user's watches of group `name`'s addresses (none when the group is gone). */
  groupMembers(userId: string, name: string): WalletWatchRow[] {
    const group = this.db
      .select({ addresses: walletWatchGroups.addresses })
      .from(walletWatchGroups)
      .where(and(eq(walletWatchGroups.userId, userId), eq(walletWatchGroups.name, name)))
      .get();
    const addresses = group ? (JSON.parse(group.addresses) as string[]) : [];
    if (addresses.length === 0) return [];
    return this.db
      .select()
      .from(walletWatches)
      .where(and(eq(walletWatches.userId, userId), inArray(walletWatches.address, addresses)))
      .all();
  }

  linkSignal(watchId: string, signature: string, signalId: number): void {
    this.db
      .update(walletWatchTrades)
      .set({ signalId })
      .where(and(eq(walletWatchTrades.watchId, watchId), eq(walletWatchTrades.signature, signature)))
      .run();
  }

  /** A user's detected trades, newest first; one watch's when `watchId` is given. */
  recentTrades(userId: string, limit: number, watchId?: string): Array<WalletWatchTradeRow & { address: string }> {
    return this.db
      .select({
        id: walletWatchTrades.id,
        watchId: walletWatchTrades.watchId,
        signature: walletWatchTrades.signature,
        side: walletWatchTrades.side,
        mint: walletWatchTrades.mint,
        solLamports: walletWatchTrades.solLamports,
        tokenAmount: walletWatchTrades.tokenAmount,
        blockTime: walletWatchTrades.blockTime,
        signalId: walletWatchTrades.signalId,
        detectedAt: walletWatchTrades.detectedAt,
        ignoredReason: walletWatchTrades.ignoredReason,
        address: walletWatches.address,
      })
      .from(walletWatchTrades)
      .innerJoin(walletWatches, eq(walletWatches.id, walletWatchTrades.watchId))
      .where(
        watchId
          ? and(eq(walletWatches.userId, userId), eq(walletWatchTrades.watchId, watchId))
          : eq(walletWatches.userId, userId),
      )
      .orderBy(desc(walletWatchTrades.id))
      .limit(limit)
      .all();
  }
}
