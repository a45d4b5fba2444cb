import type { Context, MiddlewareHandler } from "hono";
import { requestContext } from "../../logger.ts";
import type { HttpRequestStats } from "../../metrics/http-requests.ts";
import type { AppEnv } from "../app-env.ts";
import { routeLabel } from "./metrics.ts";

// The outermost middleware of both apps: request id, metrics and security headers in one hop.
// One layer, not three: each middleware is an async hop of Hono's chain and would write its
// headers on its own, a visible share of the cheapest routes (docs/decisions.md "Performance").
//
// Request id — not hono/request-id: its check of an incoming id is fixed to [\w=-] (it would
// replace ids with a dot, such as "req-abc.123_X" from a proxy, and echo ids with "="), and the
// log context would still need a middleware of ours around it.
//
// Security headers — not hono/secure-headers: its defaults add eight more headers meant for HTML
// sites (HSTS, COOP, CORP, Origin-Agent-Cluster, ...), so keeping the responses as they are would
// take an opt-out list longer than this, and a new default in a Hono update would change our
// headers silently. It also has no Cache-Control default, which is ours below.

const SAFE_ID = /^[A-Za-z0-9._-]{1,128}$/;

const FIXED = [
  ["X-Content-Type-Options", "nosniff"],
  ["Referrer-Policy", "no-referrer"],
  ["X-Frame-Options", "DENY"],
] as const;

/**
 * Accepts a sane incoming X-Request-Id (from a proxy) or makes one, runs the request in its log
 * context, then puts the id and the security headers (no sniff, no referrer, no framing,
 * `Cache-Control: no-store` unless the route set one) on the response and counts and times it
 * (PRODUCT.md §6).
 */
export function edge(http: HttpRequestStats): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const id = requestIdFor(c.req.header("x-request-id"));
    c.set("requestId", id);
    try {
      await requestContext.run({ requestId: id }, next);
      finishHeaders(c, id);
    } finally {
      http.record(c.req.method, c.res.status, routeLabel(c), (performance.now() - started) / 1000);
    }
  };
}

/** A sane incoming X-Request-Id (from a proxy), else a new one. */
export function requestIdFor(incoming: string | null | undefined): string {
  return incoming && SAFE_ID.test(incoming) ? incoming : crypto.randomUUID();
}

/** The headers `edge` puts on a response whose route set no Cache-Control, for a hand-made answer. */
export function edgeHeaders(id: string, contentType: string): Record<string, string> {
  const headers: Record<string, string> = { "Content-Type": contentType, "X-Request-Id": id };
  for (const [name, value] of FIXED) headers[name] = value;
  headers["Cache-Control"] = "no-store";
  return headers;
}

/**
 * Sets the headers on the finished response in place. Hono's `c.header()` after the handler
 * copies the whole Response for every call (it cannot know whether the headers are mutable).
 * Headers of a Response made by the app are mutable; one that is not (a proxied fetch() answer)
 * falls back to `c.header()`.
 */
function finishHeaders(c: Context, id: string): void {
  try {
    const h = c.res.headers;
    h.set("X-Request-Id", id);
    for (const [name, value] of FIXED) h.set(name, value);
    if (!h.has("Cache-Control")) h.set("Cache-Control", "no-store");
  } catch {
    c.header("X-Request-Id", id);
    for (const [name, value] of FIXED) c.header(name, value);
    c.header("Cache-Control", c.res.headers.get("Cache-Control") ?? "no-store");
  }
}
