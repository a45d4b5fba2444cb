import { and, desc, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { auditLog } from "../schema/users.ts";

// audit_log (src/audit/audit-log.ts decides what goes in): inserts, reads of one user's entries,
// and the retention prune. Nothing here updates a row; a trigger refuses updates anyway.

export type AuditRow = typeof auditLog.$inferSelect;
export type AuditInsert = Omit<typeof auditLog.$inferInsert, "id">;

export interface AuditQuery {
  limit: number;
  offset: number;
  action?: string;
  since?: string;
}

export class AuditLogRepository {
  constructor(private readonly db: Db) {}

  insert(row: AuditInsert): void {
    this.db.insert(auditLog).values(row).run();
  }

  /** Newest first, and the total that matches the filter. */
  list(userId: string, q: AuditQuery): { rows: AuditRow[]; total: number } {
    const where = and(...this.filter(userId, q));
    const rows = this.db
      .select()
      .from(auditLog)
      .where(where)
      .orderBy(desc(auditLog.at), desc(auditLog.id))
      .limit(q.limit)
      .offset(q.offset)
      .all();
    const total = this.db.select({ n: sql<number>`count(*)` }).from(auditLog).where(where).get()?.n ?? 0;
    return { rows, total };
  }

  private filter(userId: string, q: AuditQuery): SQL[] {
    const parts = [eq(auditLog.userId, userId)];
    if (q.action) parts.push(eq(auditLog.action, q.action));
    if (q.since) parts.push(gte(auditLog.at, q.since));
    return parts;
  }

  /** Whether the user has an entry of `action` from address `ip` at or after `since` (new-login notices). */
  hasFrom(userId: string, action: string, ip: string, since: string): boolean {
    const row = this.db
      .select({ id: auditLog.id })
      .from(auditLog)
      .where(
        and(eq(auditLog.userId, userId), eq(auditLog.action, action), eq(auditLog.ip, ip), gte(auditLog.at, since)),
      )
      .limit(1)
      .get();
    return row !== undefined;
  }

  /** Removes entries older than `before` (the retention setting); the count removed. */
  pruneBefore(before: string): number {
    return this.db.delete(auditLog).where(lt(auditLog.at, before)).returning({ id: auditLog.id }).all().length;
  }
}
