import type { MiddlewareHandler } from "hono";

/** Headers on every response (issue: security headers, no sniff, no referrer). */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
  c.header("X-Frame-Options", "DENY");
  c.header("Cache-Control", c.res.headers.get("Cache-Control") ?? "no-store");
};
