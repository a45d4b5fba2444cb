import { and, asc, desc, eq, inArray, lte, notInArray, sql } from "drizzle-orm";
import { type DatabaseHandle, inTransaction } from "../client.ts";
import { webhookAttempts, webhookDeliveries, webhooks } from "../schema/index.ts";
import { webhookStamp } from "./table-writes.ts";

// The webhooks tables (src/db/schema/notifications.ts), written only from here.

export type WebhookRow = typeof webhooks.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export interface DueDelivery {
  delivery: DeliveryRow;
  webhook: Pick<WebhookRow, "id" | "userId" | "url" | "sealedSecret" | "enabled">;
}

export interface AttemptRecord {
  deliveryId: string;
  webhookId: string;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  at: string;
  /** The delivery's state after this attempt. */
  next: { status: "delivered" | "failed" } | { status: "pending"; nextAttemptAt: number };
}

/** The endpoint's new failure state, decided from its current one inside the same transaction. */
export type EndpointDecision = (failingSince: string | null) => {
  failingSince: string | null;
  /** Set when this failure disables the endpoint; its pending deliveries are given up too. */
  disable?: { at: string; reason: string };
} | null;

export class WebhookRepository {
  private readonly stamp: () => string;
  /** enabledOf's answers, valid while the webhooks' write stamp is `stamp`. */
  private enabled = { stamp: "", byUser: new Map<string, readonly WebhookRow[]>() };

  constructor(private readonly database: DatabaseHandle) {
    this.stamp = webhookStamp(database.sqlite);
  }

  private get db() {
    return this.database.db;
  }

  insert(row: typeof webhooks.$inferInsert): void {
    this.db.insert(webhooks).values(row).run();
  }

  listOf(userId: string): WebhookRow[] {
    return this.db.select().from(webhooks).where(eq(webhooks.userId, userId)).orderBy(desc(webhooks.createdAt)).all();
  }

  owned(userId: string, id: string): WebhookRow | undefined {
    return this.db
      .select()
      .from(webhooks)
      .where(and(eq(webhooks.id, id), eq(webhooks.userId, userId)))
      .get();
  }

  update(id: string, patch: Partial<typeof webhooks.$inferInsert>): void {
    this.db.update(webhooks).set(patch).where(eq(webhooks.id, id)).run();
  }

  delete(userId: string, id: string): boolean {
    return (
      this.db
        .delete(webhooks)
        .where(and(eq(webhooks.id, id), eq(webhooks.userId, userId)))
        .returning({ one: sql`1` })
        .all().length > 0
    );
  }

  /**
   * The user's enabled endpoints; the caller filters on the event list (a JSON column). Asked for
   * every event of the user: a monitor tick that raises 10,000 peaks publishes 10,000 events, and a
   * query each would be a large part of the tick. The answer is kept while the webhooks' write stamp
   * (./table-writes.ts: any write to the table through this connection, any commit by another)
   * is unchanged, so an endpoint created, disabled or deleted anywhere is seen by the next event;
   * the signals, trades and positions written meanwhile do not empty it.
   */
  enabledOf(userId: string): readonly WebhookRow[] {
    const stamp = this.stamp();
    if (stamp !== this.enabled.stamp) this.enabled = { stamp, byUser: new Map() };
    let rows = this.enabled.byUser.get(userId);
    if (!rows) {
      rows = this.db
        .select()
        .from(webhooks)
        .where(and(eq(webhooks.userId, userId), eq(webhooks.enabled, true)))
        .all();
      if (this.enabled.byUser.size < 10_000) this.enabled.byUser.set(userId, rows);
    }
    return rows;
  }

  insertDeliveries(rows: Array<typeof webhookDeliveries.$inferInsert>): void {
    if (rows.length === 0) return;
    inTransaction(this.database, () => {
      this.db.insert(webhookDeliveries).values(rows).run();
    });
  }

  /** Pending deliveries due at `now`, oldest first, skipping those already in flight. */
  due(now: number, limit: number, inFlight: string[]): DueDelivery[] {
    if (limit <= 0) return [];
    const conditions = [eq(webhookDeliveries.status, "pending"), lte(webhookDeliveries.nextAttemptAt, now)];
    if (inFlight.length > 0) conditions.push(notInArray(webhookDeliveries.id, inFlight));
    return this.db
      .select({
        delivery: webhookDeliveries,
        webhook: {
          id: webhooks.id,
          userId: webhooks.userId,
          url: webhooks.url,
          sealedSecret: webhooks.sealedSecret,
          enabled: webhooks.enabled,
        },
      })
      .from(webhookDeliveries)
      .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
      .where(and(...conditions))
      .orderBy(asc(webhookDeliveries.nextAttemptAt), asc(webhookDeliveries.createdAt))
      .limit(limit)
      .all();
  }

  /**
   * One attempt's outcome, in one transaction: the attempt row, the delivery, and (unless
   * `decide` is null: test messages) the endpoint's failure run. Returns the disable applied.
   */
  recordAttempt(r: AttemptRecord, decide: EndpointDecision | null): { at: string; reason: string } | null {
    return inTransaction(this.database, () => {
      const current = this.db
        .select({ failingSince: webhooks.failingSince, enabled: webhooks.enabled })
        .from(webhooks)
        .where(eq(webhooks.id, r.webhookId))
        .get();
      if (!current) return null;
      this.db
        .insert(webhookAttempts)
        .values({
          deliveryId: r.deliveryId,
          webhookId: r.webhookId,
          attempt: r.attempt,
          statusCode: r.statusCode,
          error: r.error,
          durationMs: r.durationMs,
          at: r.at,
        })
        .run();
      // An endpoint disabled while this attempt was in flight gets no retry.
      const next = r.next.status === "pending" && !current.enabled ? { status: "failed" as const } : r.next;
      this.db
        .update(webhookDeliveries)
        .set({
          attempts: r.attempt,
          status: next.status,
          ...(next.status === "pending"
            ? { nextAttemptAt: next.nextAttemptAt }
            : { finishedAt: r.at, nextAttemptAt: 0 }),
        })
        .where(eq(webhookDeliveries.id, r.deliveryId))
        .run();
      if (!decide || !current.enabled) return null;
      const d = decide(current.failingSince);
      if (!d) return null;
      this.db
        .update(webhooks)
        .set({
          failingSince: d.failingSince,
          ...(d.disable ? { enabled: false, disabledAt: d.disable.at, disabledReason: d.disable.reason } : {}),
        })
        .where(eq(webhooks.id, r.webhookId))
        .run();
      if (d.disable) this.giveUpPending(r.webhookId, r.at);
      return d.disable ?? null;
    });
  }

  /** Gives up every pending delivery of an endpoint (disabled: nothing more is sent to it). */
  giveUpPending(webhookId: string, at: string): void {
    this.db
      .update(webhookDeliveries)
      .set({ status: "failed", finishedAt: at, nextAttemptAt: 0 })
      .where(and(eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.status, "pending")))
      .run();
  }

  /** Attempts of an endpoint, newest first, with the event each delivery carried. */
  attemptsOf(webhookId: string, page: { limit: number; offset: number }) {
    return this.db
      .select({
        id: webhookAttempts.id,
        deliveryId: webhookAttempts.deliveryId,
        eventType: webhookDeliveries.eventType,
        deliveryStatus: webhookDeliveries.status,
        attempt: webhookAttempts.attempt,
        statusCode: webhookAttempts.statusCode,
        error: webhookAttempts.error,
        durationMs: webhookAttempts.durationMs,
        at: webhookAttempts.at,
      })
      .from(webhookAttempts)
      .innerJoin(webhookDeliveries, eq(webhookDeliveries.id, webhookAttempts.deliveryId))
      .where(eq(webhookAttempts.webhookId, webhookId))
      .orderBy(desc(webhookAttempts.id))
      .limit(page.limit)
      .offset(page.offset)
      .all();
  }

  pendingCount(): number {
    return (
      this.db
        .select({ n: sql<number>`count(*)` })
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.status, "pending"))
        .get()?.n ?? 0
    );
  }

  /** Deletes finished deliveries (and their attempts) finished before `before` (retention). */
  pruneFinished(before: string): number {
    return this.db
      .delete(webhookDeliveries)
      .where(and(inArray(webhookDeliveries.status, ["delivered", "failed"]), lte(webhookDeliveries.finishedAt, before)))
      .returning({ one: sql`1` })
      .all().length;
  }
}
