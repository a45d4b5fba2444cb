import { changeStamp } from "../db/change-stamp.ts";
import { AddressRanges } from "../ip-ranges.ts";
import type { Services } from "../services.ts";
import type { AppDeps, HttpLimiters } from "./app-env.ts";
import { createAuthMiddleware } from "./middleware/auth.ts";
import { ResponseCache } from "./middleware/response-cache.ts";
import { SlidingWindowLimiter } from "./rate-limit.ts";

const MINUTE_MS = 60_000;
const LOOPBACK = ["127.0.0.0/8", "::1"];

/**
 * The HTTP layer's own dependencies, built from the service container once per process (serve()
 * and the test helper) and shared by the main and the public app: the credential middleware and
 * the per-minute rate limiters, whose windows the /health "cache" check counts.
 */
export function createAppDeps(s: Services): AppDeps {
  const { config, clock } = s;
  const limiters: HttpLimiters = {
    login: new SlidingWindowLimiter(config.LOGIN_RATE_LIMIT_PER_MINUTE, MINUTE_MS, clock),
    signals: new SlidingWindowLimiter(config.SIGNAL_RATE_LIMIT_PER_MINUTE, MINUTE_MS, clock),
    dataSources: new SlidingWindowLimiter(config.DATA_SOURCES_RATE_LIMIT_PER_MINUTE, MINUTE_MS, clock),
    wallets: new SlidingWindowLimiter(config.WALLETS_RATE_LIMIT_PER_MINUTE, MINUTE_MS, clock),
    hooks: new SlidingWindowLimiter(config.SIGNAL_HOOK_RATE_LIMIT_PER_MINUTE, MINUTE_MS, clock),
    hookMisses: new SlidingWindowLimiter(config.SIGNAL_HOOK_MISSES_PER_MINUTE, MINUTE_MS, clock),
  };
  for (const [name, limiter] of Object.entries(limiters)) {
    s.caches.add({ name: `rateLimit.${name}`, size: () => limiter.size });
  }
  const responseCache = new ResponseCache({ stamp: changeStamp(s.database.sqlite) });
  s.caches.add({ name: "responses", size: () => responseCache.size });
  // TRUST_PROXY=true: a proxy on this machine (the README's Caddy and nginx recipes).
  const trustedProxies = new AddressRanges([...config.TRUSTED_PROXIES, ...(config.TRUST_PROXY ? LOOPBACK : [])]);
  return { ...s, auth: createAuthMiddleware(s), limiters, responseCache, trustedProxies };
}
