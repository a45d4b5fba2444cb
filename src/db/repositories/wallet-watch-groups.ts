import { and, desc, eq, gt, sql } from "drizzle-orm";
import type { DatabaseHandle } from "../client.ts";
import { walletWatches, walletWatchGroupSignals, walletWatchGroups, walletWatchTrades } from "../schema/index.ts";

// Watch groups and the signals they made (src/db/schema/copy-trading.ts), written only from here;
// the rules (names, counts, windows) are src/copytrading/groups.ts.

export type WatchGroupRow = typeof walletWatchGroups.$inferSelect;
type GroupChanges = Partial<Omit<typeof walletWatchGroups.$inferInsert, "id" | "userId" | "createdAt">>;

export class WatchGroupRepository {
  constructor(private readonly database: DatabaseHandle) {}

  private get db() {
    return this.database.db;
  }

  owned(userId: string, id: string): WatchGroupRow | undefined {
    return this.db
      .select()
      .from(walletWatchGroups)
      .where(and(eq(walletWatchGroups.id, id), eq(walletWatchGroups.userId, userId)))
      .get();
  }

  idByName(userId: string, name: string): string | undefined {
    return this.db
      .select({ id: walletWatchGroups.id })
      .from(walletWatchGroups)
      .where(and(eq(walletWatchGroups.userId, userId), eq(walletWatchGroups.name, name)))
      .get()?.id;
  }

  insert(row: typeof walletWatchGroups.$inferInsert): void {
    this.db.insert(walletWatchGroups).values(row).run();
  }

  listOf(userId: string): WatchGroupRow[] {
    return this.db
      .select()
      .from(walletWatchGroups)
      .where(eq(walletWatchGroups.userId, userId))
      .orderBy(desc(walletWatchGroups.createdAt), desc(walletWatchGroups.id))
      .all();
  }

  update(id: string, changes: GroupChanges): void {
    this.db.update(walletWatchGroups).set(changes).where(eq(walletWatchGroups.id, id)).run();
  }

  delete(id: string): void {
    this.db.delete(walletWatchGroups).where(eq(walletWatchGroups.id, id)).run();
  }

  /** Addresses of the user's watches with a detected, not ignored, buy of `mint` in (from, to]. */
  buyerAddresses(userId: string, mint: string, fromIso: string, toIso: string): string[] {
    return this.db
      .select({ address: walletWatches.address })
      .from(walletWatchTrades)
      .innerJoin(walletWatches, eq(walletWatches.id, walletWatchTrades.watchId))
      .where(
        and(
          eq(walletWatches.userId, userId),
          eq(walletWatchTrades.side, "buy"),
          eq(walletWatchTrades.mint, mint),
          sql`${walletWatchTrades.ignoredReason} IS NULL`,
          gt(walletWatchTrades.blockTime, fromIso),
          sql`${walletWatchTrades.blockTime} <= ${toIso}`,
        ),
      )
      .all()
      .map((r) => r.address);
  }

  /** Whether the group signalled `mint` after `sinceIso`. */
  signalledSince(groupId: string, mint: string, sinceIso: string): boolean {
    const recent = this.db
      .select({ id: walletWatchGroupSignals.id })
      .from(walletWatchGroupSignals)
      .where(
        and(
          eq(walletWatchGroupSignals.groupId, groupId),
          eq(walletWatchGroupSignals.mint, mint),
          gt(walletWatchGroupSignals.at, sinceIso),
        ),
      )
      .get();
    return recent !== undefined;
  }

  insertSignal(groupId: string, mint: string, atIso: string): void {
    this.db.insert(walletWatchGroupSignals).values({ groupId, mint, at: atIso }).run();
  }

  linkSignal(groupId: string, mint: string, atIso: string, signalId: number): void {
    this.db
      .update(walletWatchGroupSignals)
      .set({ signalId })
      .where(
        and(
          eq(walletWatchGroupSignals.groupId, groupId),
          eq(walletWatchGroupSignals.mint, mint),
          eq(walletWatchGroupSignals.at, atIso),
        ),
      )
      .run();
  }
}
