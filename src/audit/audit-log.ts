import { type Clock, isoNow } from "../clock.ts";
import type { Db } from "../db/client.ts";
import { AuditLogRepository, type AuditQuery, type AuditRow } from "../db/repositories/audit-log.ts";
import type { Logger } from "../logger.ts";

// The audit log (PRODUCT.md §2, docs/decisions/box-on-the-internet.md): who did what to an
// account, from where. Append-only: entries are written through record() and read back by their
// owner; only the retention prune removes them. Entries never hold a secret: callers pass names,
// ids and prefixes, and record() drops any detail whose name says it could be one.

export type AuditAction =
  | "auth.login"
  | "auth.login_failed"
  | "auth.logout"
  | "auth.locked"
  | "auth.unlocked"
  | "auth.password_changed"
  | "auth.2fa_enabled"
  | "auth.2fa_disabled"
  | "auth.2fa_reset"
  | "api_key.created"
  | "api_key.deleted"
  | "signal_hook.created"
  | "signal_hook.deleted"
  | "agent.created"
  | "agent.updated"
  | "agent.deleted"
  | "agent.config_updated"
  | "wallet.assigned"
  | "wallet.unassigned"
  | "risk_limits.updated"
  | "trading.paused"
  | "trading.resumed"
  | "trading.close_all"
  | "breaker.tripped"
  | "position.closed_manually"
  | "position.sold_manually"
  | "webhook.created"
  | "webhook.deleted"
  | "telegram.linked"
  | "database.restored";

/** Who acted: the user (a JWT), one of their API keys, their Telegram chat, the operator's CLI, or the service. */
type AuditActor = "user" | "anonymous" | `api_key:${string}` | "telegram" | "cli" | "system";

export interface AuditRecord {
  userId: string;
  action: AuditAction;
  actor: AuditActor;
  ip?: string | null;
  userAgent?: string | null;
  /** What was acted on: an agent id, an API key id, a mode… */
  target?: string | null;
  details?: Record<string, unknown>;
}

export interface AuditEntry {
  id: number;
  at: string;
  action: string;
  actor: string;
  ip: string | null;
  userAgent: string | null;
  target: string | null;
  details: Record<string, unknown>;
}

/** A detail named like one of these never reaches the log, whatever a caller passes. */
const SECRET_NAME = /secret|password|token|privatekey|otp|recovery|^code$|^key$/i;

export class AuditLog {
  private readonly rows: AuditLogRepository;

  constructor(
    db: Db,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.rows = new AuditLogRepository(db);
  }

  /**
   * Appends one entry. An audit write that fails is logged and swallowed: the action it records
   * has already happened, and its caller's answer must say so.
   */
  record(r: AuditRecord): void {
    try {
      this.rows.insert({
        userId: r.userId,
        at: isoNow(this.clock),
        action: r.action,
        actor: r.actor,
        ip: r.ip ?? null,
        userAgent: r.userAgent ?? null,
        target: r.target ?? null,
        details: withoutSecrets(r.details ?? {}),
      });
    } catch (err) {
      this.logger.error("audit log write failed", { action: r.action, userId: r.userId, error: String(err) });
    }
  }

  list(userId: string, q: AuditQuery): { entries: AuditEntry[]; total: number } {
    const { rows, total } = this.rows.list(userId, q);
    return { entries: rows.map(toEntry), total };
  }

  /** Entries older than `retentionDays` go; the count removed. */
  prune(retentionDays: number): number {
    const before = new Date(this.clock.now() - retentionDays * 86_400_000).toISOString();
    return this.rows.pruneBefore(before);
  }
}

function withoutSecrets(details: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(details).filter(([name]) => !SECRET_NAME.test(name)));
}

function toEntry(row: AuditRow): AuditEntry {
  const { userId: _owner, ...entry } = row;
  return entry;
}
