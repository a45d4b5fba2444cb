import type { Context } from "hono";

interface BunServerLike {
  requestIP(req: Request): { address: string } | null;
}

/**
 * The caller's address for per-address limits. X-Forwarded-For is believed only with
 * TRUST_PROXY=true (behind a reverse proxy); otherwise a script could pick its own address.
 */
export function clientAddress(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const xff = c.req.header("x-forwarded-for");
    if (xff) return xff.split(",")[0]!.trim();
  }
  const env = c.env as { server?: BunServerLike } | undefined;
  try {
    return env?.server?.requestIP(c.req.raw)?.address ?? "local";
  } catch {
    return "local";
  }
}

/** The address and user agent of a request, as the audit log records them. */
export function originOf(c: Context, trustProxy: boolean): { ip: string; userAgent: string | null } {
  const agent = c.req.header("user-agent");
  return { ip: clientAddress(c, trustProxy), userAgent: agent ? agent.slice(0, 256) : null };
}
