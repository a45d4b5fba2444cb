import type { AuditLog } from "../audit/audit-log.ts";
import type { AccountService } from "../auth/accounts.ts";
import type { TwoFactorService } from "../auth/two-factor.ts";
import { type Clock, isoNow } from "../clock.ts";
import type { EventBus } from "../events/bus.ts";

interface LoginWatchDeps {
  accounts: AccountService;
  twoFactor: TwoFactorService;
  audit: AuditLog;
  events: EventBus;
  clock: Clock;
}

/** An address none of the account's logins used for this long is news (issue 43). */
const NEW_ADDRESS_AFTER_MS = 30 * 86_400_000;

/**
 * What the account service and the guard rails report, written to the audit log: each login
 * attempt on a known account, a lockout, an admin password changed from the environment, and the
 * daily-loss breaker tripping (published on the bus by src/trading/guard-rails.ts). The security
 * notices go on the bus, whence webhooks and Telegram take them: a login from an address not seen
 * in 30 days, a lockout, the second factor turned off (docs/decisions/box-on-the-internet.md).
 */
export function watchLogins(d: LoginWatchDeps): void {
  const { audit, events } = d;
  d.accounts.observeLogins({
    succeeded: (userId, origin) => {
      // Asked before this login is recorded, which would otherwise be the address's own witness.
      const since = new Date(d.clock.now() - NEW_ADDRESS_AFTER_MS).toISOString();
      const seen = audit.loggedInFrom(userId, origin.ip, since);
      audit.record({ userId, action: "auth.login", actor: "user", ...origin });
      if (!seen) events.publish("auth.new_login", userId, { ...origin, at: isoNow(d.clock) });
    },
    // Whoever typed the wrong password is not known to be the user.
    failed: (userId, origin, reason) =>
      audit.record({ userId, action: "auth.login_failed", actor: "anonymous", ...origin, details: { reason } }),
    locked: (userId, origin, lockedUntil) => {
      audit.record({ userId, action: "auth.locked", actor: "anonymous", ...origin, details: { lockedUntil } });
      events.publish("auth.locked", userId, { ...origin, at: isoNow(d.clock), lockedUntil });
    },
    passwordChanged: (userId) =>
      audit.record({ userId, action: "auth.password_changed", actor: "system", details: { by: "ADMIN_PASSWORD" } }),
  });
  // The route records the audit entry (it knows whether a JWT acted); the notice goes from here.
  d.twoFactor.observeDisable((userId, origin) =>
    events.publish("auth.2fa_disabled", userId, { ...origin, at: isoNow(d.clock) }),
  );
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
