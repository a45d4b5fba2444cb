import type { Context } from "hono";
import type { AddressRanges } from "../ip-ranges.ts";

interface BunServerLike {
  requestIP(req: Request): { address: string } | null;
}

/** The socket peer's address; null for a request with no socket (app.request() in process). */
function peerAddress(c: Context): string | null {
  const env = c.env as { server?: BunServerLike } | undefined;
  try {
    return env?.server?.requestIP(c.req.raw)?.address ?? null;
  } catch {
    return null;
  }
}

/**
 * Whether the request came through one of the configured reverse proxies (TRUSTED_PROXIES, or
 * loopback with TRUST_PROXY=true): only then are its X-Forwarded-* headers believed. A request
 * without a socket (in process) counts as loopback.
 */
export function fromTrustedProxy(c: Context, proxies: AddressRanges): boolean {
  return proxies.has(peerAddress(c) ?? "127.0.0.1");
}

/**
 * The caller's address for per-address limits and allow-lists (docs/decisions/signal-hooks.md
 * "Trusted proxy"). X-Forwarded-For is read only when the peer is a trusted proxy, and from the
 * right: the last address no trusted proxy added is the client's, so a client that sends its own
 * X-Forwarded-For through a proxy that appends to it still cannot choose its address.
 */
export function clientAddress(c: Context, proxies: AddressRanges): string {
  const peer = peerAddress(c);
  if (fromTrustedProxy(c, proxies)) {
    const hops = (c.req.header("x-forwarded-for") ?? "")
      .split(",")
      .map((h) => h.trim())
      .filter(Boolean);
    for (let i = hops.length - 1; i >= 0; i--) if (!proxies.has(hops[i] as string) || i === 0) return hops[i] as string;
  }
  return peer ?? "local";
}

/** The address and user agent of a request, as the audit log records them. */
export function originOf(c: Context, proxies: AddressRanges): { ip: string; userAgent: string | null } {
  const agent = c.req.header("user-agent");
  return { ip: clientAddress(c, proxies), userAgent: agent ? agent.slice(0, 256) : null };
}
