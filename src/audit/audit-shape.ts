// The audit log's action names and entry shape, with no imports: read by the service
// (src/audit/audit-log.ts, the routes) and by the dashboard's Audit log page (its action filter),
// so the page offers exactly the actions the service writes.

/** Every action the service records (dotted, PRODUCT.md §2). */
export const AUDIT_ACTIONS = [
  "auth.login",
  "auth.login_failed",
  "auth.logout",
  "auth.locked",
  "auth.unlocked",
  "auth.password_changed",
  "auth.2fa_enabled",
  "auth.2fa_disabled",
  "auth.2fa_reset",
  "api_key.created",
  "api_key.deleted",
  "signal_hook.created",
  "signal_hook.deleted",
  "agent.created",
  "agent.updated",
  "agent.deleted",
  "agent.config_updated",
  "wallet.assigned",
  "wallet.unassigned",
  "risk_limits.updated",
  "trading.paused",
  "trading.resumed",
  "trading.close_all",
  "breaker.tripped",
  "position.bought_manually",
  "position.closed_manually",
  "position.sold_manually",
  "webhook.created",
  "webhook.deleted",
  "telegram.linked",
  "database.restored",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** An entry as GET /api/v1/audit-log answers it. */
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
