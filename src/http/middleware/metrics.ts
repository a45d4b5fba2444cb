import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { Metrics } from "../../metrics/metrics.ts";

/** Label for requests no route answered (unknown paths, wrong methods, CORS preflights). */
export const UNMATCHED_ROUTE = "unmatched";

/**
 * Counts and times every request (PRODUCT.md §6). The route label is the matched route PATTERN
 * (`/api/v1/agents/:id`), never the raw path, so ids cannot blow up the label cardinality.
 */
export function httpMetrics(metrics: Metrics): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const labels = { method: c.req.method, status: String(c.res.status), route: routeLabel(c) };
      metrics.httpRequests.inc(labels);
      metrics.httpRequestDuration.observe(labels, (performance.now() - started) / 1000);
    }
  };
}

/**
 * The pattern of the handler route the router matched. Middleware (`use`) entries are method
 * "ALL" and often carry wildcards (`/*`, `/:id/*`), and `c.req.routePath` after next() names
 * whichever entry ran last (a middleware when it threw, `/*` on a 404), so the last method-bound
 * entry is taken instead; with none, no route matched.
 */
export function routeLabel(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const r = routes[i]!;
    if (r.method !== "ALL") return r.path;
  }
  return UNMATCHED_ROUTE;
}
