import type { Context } from "hono";
import { matchedRoutes } from "hono/route";

/** Label for requests no route answered (unknown paths, wrong methods, CORS preflights). */
const UNMATCHED_ROUTE = "unmatched";

/**
 * The route label of the HTTP metrics (PRODUCT.md §6; counted in ./edge.ts): the pattern of the
 * handler route the router matched (`/api/v1/agents/:id`), never the raw path, so ids cannot blow
 * up the label cardinality. Middleware (`use`) entries are method "ALL" and often carry wildcards
 * (`/*`, `/:id/*`), and `c.req.routePath` after next() names whichever entry ran last (a
 * middleware when it threw, `/*` on a 404), so the last method-bound entry is taken instead; with
 * none, no route matched.
 */
export function routeLabel(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const r = routes[i]!;
    if (r.method !== "ALL") return r.path;
  }
  return UNMATCHED_ROUTE;
}
