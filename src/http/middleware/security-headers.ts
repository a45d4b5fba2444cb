import type { MiddlewareHandler } from "hono";
import { setResponseHeaders } from "./response-headers.ts";

// Not hono/secure-headers: its defaults add eight more headers meant for HTML sites (HSTS, COOP,
// CORP, Origin-Agent-Cluster, ...), so keeping the responses as they are would take an opt-out
// list longer than this middleware, and a new default in a Hono update would change our headers
// silently. It also has no Cache-Control default, which is ours below.

const FIXED = [
  ["X-Content-Type-Options", "nosniff"],
  ["Referrer-Policy", "no-referrer"],
  ["X-Frame-Options", "DENY"],
] as const;

/** Headers on every response (issue: security headers, no sniff, no referrer). */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  setResponseHeaders(c, [...FIXED, ["Cache-Control", c.res.headers.get("Cache-Control") ?? "no-store"]]);
};
