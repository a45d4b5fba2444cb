import type { Context } from "hono";
import type { AuditAction } from "../audit/audit-shape.ts";
import type { AppDeps, AppEnv } from "./app-env.ts";
import { originOf } from "./client-address.ts";

/**
 * Records an audit entry for the caller of a route: their user, whether a JWT or which API key
 * acted, the client address and user agent. Called by handlers after the change succeeded.
 */
export function audit(
  c: Context<AppEnv>,
  s: AppDeps,
  action: AuditAction,
  target: string | null,
  details: Record<string, unknown> = {},
): void {
  const who = c.get("auth");
  s.audit.record({
    userId: who.userId,
    action,
    actor: who.kind === "apiKey" ? `api_key:${who.apiKeyId}` : "user",
    ...originOf(c, s.trustedProxies),
    target,
    details,
  });
}
