import type { AppDeps } from "./app-env.ts";
import { edgeHeaders, requestIdFor } from "./middleware/edge.ts";

// Hot reads answered in front of Hono's chain (docs/decisions.md "Performance (issue 16)", fourth
// round). A GET that the response cache (./middleware/response-cache.ts) can answer costs the
// chain's routing, Context, middleware hops and Response copies several times over what the answer
// itself costs. This path gives the same answer with the same checks, or steps aside:
//   - a JWT whose claims were verified before, not expired, not revoked, its user active (the
//     auth middleware's own caches: ./middleware/auth.ts `rememberedJwtUser`);
//   - a kept answer for that user and exact URL under the database's current change stamp;
//   - no Origin header (CORS answers belong to the chain) and no API key (its use is counted);
//   - the edge middleware's request id, security headers and request metrics.
// Anything else, a refusal included, goes through the chain, which answers as it always has.

/** The answer to `req` without the chain, or undefined: then the chain answers. */
export function createHotRead(s: AppDeps): (req: Request) => Response | undefined {
  return (req) => {
    if (req.method !== "GET") return undefined;
    const started = performance.now();
    const headers = req.headers;
    if (headers.has("origin") || headers.has("x-api-key")) return undefined;
    const userId = s.auth.rememberedJwtUser(headers.get("authorization"));
    if (userId === undefined) return undefined;
    const kept = s.responseCache.freshFor(userId, req.url);
    if (!kept) return undefined;
    const res = new Response(kept.body, {
      status: 200,
      headers: edgeHeaders(requestIdFor(headers.get("x-request-id")), kept.contentType),
    });
    s.metrics.http.record("GET", 200, kept.route, (performance.now() - started) / 1000);
    return res;
  };
}
