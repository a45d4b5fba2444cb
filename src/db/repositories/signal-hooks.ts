import { and, desc, eq, gte, isNotNull, or, sql } from "drizzle-orm";
import type { DatabaseHandle } from "../client.ts";
import { signalHookDeliveries, signalHooks, tradingSignals } from "../schema/index.ts";

// The signal-hook tables (src/db/schema/signal-hooks.ts), written only from here.

export type SignalHookRow = typeof signalHooks.$inferSelect;
export type NewDelivery = Omit<typeof signalHookDeliveries.$inferInsert, "id">;

export interface DeliveryRow {
  id: number;
  receivedAt: string;
  status: number;
  error: string | null;
  duplicate: boolean;
  signalId: number | null;
  tokenAddress: string | null;
  symbol: string | null;
  signalType: string | null;
  signalStrength: number | null;
}

export class SignalHookRepository {
  constructor(private readonly database: DatabaseHandle) {}

  private get db() {
    return this.database.db;
  }

  insert(row: typeof signalHooks.$inferInsert): void {
    this.db.insert(signalHooks).values(row).run();
  }

  listOf(userId: string): SignalHookRow[] {
    return this.db
      .select()
      .from(signalHooks)
      .where(eq(signalHooks.userId, userId))
      .orderBy(desc(signalHooks.createdAt), desc(signalHooks.id))
      .all();
  }

  countOf(userId: string): number {
    return (
      this.db.select({ n: sql<number>`count(*)` }).from(signalHooks).where(eq(signalHooks.userId, userId)).get()?.n ?? 0
    );
  }

  owned(userId: string, id: string): SignalHookRow | undefined {
    return this.db
      .select()
      .from(signalHooks)
      .where(and(eq(signalHooks.id, id), eq(signalHooks.userId, userId)))
      .get();
  }

  /** The hook a token's digest names (a unique index: the digest, not the token, is compared). */
  byTokenHash(tokenHash: string): SignalHookRow | undefined {
    return this.db.select().from(signalHooks).where(eq(signalHooks.tokenHash, tokenHash)).get();
  }

  update(id: string, patch: Partial<typeof signalHooks.$inferInsert>): void {
    this.db.update(signalHooks).set(patch).where(eq(signalHooks.id, id)).run();
  }

  delete(userId: string, id: string): boolean {
    return (
      this.db
        .delete(signalHooks)
        .where(and(eq(signalHooks.id, id), eq(signalHooks.userId, userId)))
        .returning({ one: sql`1` })
        .all().length > 0
    );
  }

  /** Records a delivery and forgets the hook's deliveries older than its newest `keep`. */
  recordDelivery(row: NewDelivery, keep: number): void {
    this.db.insert(signalHookDeliveries).values(row).run();
    this.database.sqlite
      .query(
        `DELETE FROM signal_hook_deliveries WHERE hook_id = ?1 AND id < (
           SELECT id FROM signal_hook_deliveries WHERE hook_id = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)`,
      )
      .run(row.hookId, keep - 1);
  }

  /**
   * The signal of the first delivery since `since` that stored one with the same body digest or
   * alertId; undefined when there is none (or its signal was deleted since).
   */
  firstSignalOf(hookId: string, since: string, bodyHash: string, alertId: string | null): number | undefined {
    const same = alertId
      ? or(eq(signalHookDeliveries.bodyHash, bodyHash), eq(signalHookDeliveries.alertId, alertId))
      : eq(signalHookDeliveries.bodyHash, bodyHash);
    return (
      this.db
        .select({ signalId: signalHookDeliveries.signalId })
        .from(signalHookDeliveries)
        .where(
          and(
            eq(signalHookDeliveries.hookId, hookId),
            gte(signalHookDeliveries.receivedAt, since),
            eq(signalHookDeliveries.duplicate, false),
            isNotNull(signalHookDeliveries.signalId),
            same,
          ),
        )
        .orderBy(signalHookDeliveries.id)
        .limit(1)
        .get()?.signalId ?? undefined
    );
  }

  /** The hook's deliveries, newest first, each with the signal it stored or repeated. */
  deliveriesOf(hookId: string, limit: number): DeliveryRow[] {
    return this.db
      .select({
        id: signalHookDeliveries.id,
        receivedAt: signalHookDeliveries.receivedAt,
        status: signalHookDeliveries.status,
        error: signalHookDeliveries.error,
        duplicate: signalHookDeliveries.duplicate,
        signalId: signalHookDeliveries.signalId,
        tokenAddress: tradingSignals.tokenAddress,
        symbol: tradingSignals.symbol,
        signalType: tradingSignals.signalType,
        signalStrength: tradingSignals.signalStrength,
      })
      .from(signalHookDeliveries)
      .leftJoin(tradingSignals, eq(tradingSignals.id, signalHookDeliveries.signalId))
      .where(eq(signalHookDeliveries.hookId, hookId))
      .orderBy(desc(signalHookDeliveries.id))
      .limit(limit)
      .all();
  }
}
