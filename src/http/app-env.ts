import type { Scope } from "../auth/scopes.ts";
import type { AddressRanges } from "../ip-ranges.ts";
import type { Services } from "../services.ts";
import type { AuthMiddleware } from "./middleware/auth.ts";
import type { ResponseCache } from "./middleware/response-cache.ts";
import type { SlidingWindowLimiter } from "./rate-limit.ts";

/** Who is calling: set by the auth middleware, read by handlers through `c.get("auth")`. */
interface AuthContext {
  userId: string;
  kind: "jwt" | "apiKey";
  /** JWT only: the access token's id and expiry (epoch s), needed by logout. */
  jti?: string;
  exp?: number;
  /** API key only. */
  apiKeyId?: string;
  scopes?: readonly Scope[];
}

export interface AppEnv {
  Variables: {
    requestId: string;
    auth: AuthContext;
  };
}

/** The rate limiters of the HTTP layer: one sliding window per limited route group. */
export interface HttpLimiters {
  login: SlidingWindowLimiter;
  signals: SlidingWindowLimiter;
  dataSources: SlidingWindowLimiter;
  wallets: SlidingWindowLimiter;
  /** Deliveries per signal hook (src/http/routes/signal-hooks/deliver.ts). */
  hooks: SlidingWindowLimiter;
  /** Wrong hook tokens and refused addresses per client address. */
  hookMisses: SlidingWindowLimiter;
}

/**
 * What the route modules and createApp are given: the service container plus the pieces that only
 * HTTP needs (credential middleware, rate limiters), built from it by createAppDeps
 * (src/http/deps.ts). The container is imported as a type only and never imports http/ itself.
 */
export type AppDeps = Services & {
  auth: AuthMiddleware;
  limiters: HttpLimiters;
  /** Hot GET answers kept while the database is unchanged (src/http/middleware/response-cache.ts). */
  responseCache: ResponseCache;
  /** The reverse proxies whose forwarded headers are believed (TRUSTED_PROXIES, TRUST_PROXY). */
  trustedProxies: AddressRanges;
};
