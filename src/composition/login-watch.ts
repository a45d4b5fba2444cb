import type { AuditLog } from "../audit/audit-log.ts";
import type { AccountService } from "../auth/accounts.ts";
import type { EventBus } from "../events/bus.ts";

interface LoginWatchDeps {
  accounts: AccountService;
  audit: AuditLog;
  events: EventBus;
}

/**
 * What the account service and the guard rails report, written to the audit log: each login
 * attempt on a known account, a lockout, an admin password changed from the environment, and the
 * daily-loss breaker tripping (published on the bus by src/trading/guard-rails.ts).
 */
export function watchLogins(d: LoginWatchDeps): void {
  const { audit } = d;
  d.accounts.observeLogins({
    succeeded: (userId, origin) => audit.record({ userId, action: "auth.login", actor: "user", ...origin }),
    // Whoever typed the wrong password is not known to be the user.
    failed: (userId, origin, reason) =>
      audit.record({ userId, action: "auth.login_failed", actor: "anonymous", ...origin, details: { reason } }),
    locked: (userId, origin, lockedUntil) =>
      audit.record({ userId, action: "auth.locked", actor: "anonymous", ...origin, details: { lockedUntil } }),
    passwordChanged: (userId) =>
      audit.record({ userId, action: "auth.password_changed", actor: "system", details: { by: "ADMIN_PASSWORD" } }),
  });
  d.events.subscribe((e) => {
    if (e.type !== "risk.tripped" || !e.userId) return;
    const { mode, reason, dailyLossSol, dailyLossLimitSol } = e.data as Record<string, unknown>;
    audit.record({
      userId: e.userId,
      action: "breaker.tripped",
      actor: "system",
      target: typeof mode === "string" ? mode : null,
      details: { reason, dailyLossSol, dailyLossLimitSol },
    });
  });
}
