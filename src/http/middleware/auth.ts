import type { Context, MiddlewareHandler } from "hono";
import type { AccountService } from "../../auth/accounts.ts";
import type { ApiKeyService } from "../../auth/api-keys.ts";
import type { AccessTokenBlacklist } from "../../auth/blacklist.ts";
import type { Scope } from "../../auth/scopes.ts";
import type { TokenSigner, VerifiedToken } from "../../auth/tokens.ts";
import type { Clock } from "../../clock.ts";
import { AuthenticationError } from "../../errors.ts";
import type { AppEnv } from "../app-env.ts";
import { UserStatusCache, VerifiedTokenCache } from "./credential-cache.ts";

// Credential checks, reusable by every route (SPEC "Authentication", PRODUCT.md §2):
//   requireJwt()                  JWT only: /auth/* and /api-keys/* (no key reaches them)
//   requireUser()                 a JWT or a full_access key: what a JWT grants elsewhere
//   requireApiKey(scope)          API key only (POST /trading-signals; public API with null)
//   requireJwtOrApiKey(scope)     either: the GET routes of the scope table

export interface AuthDeps {
  signer: TokenSigner;
  blacklist: AccessTokenBlacklist;
  apiKeys: ApiKeyService;
  accounts: AccountService;
  clock: Clock;
}

const BEARER = /^Bearer\s+(.+)$/i;

/** The token of an Authorization header: undefined without the header, "" when it is no bearer. */
function bearerOf(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const m = BEARER.exec(header.trim());
  return m ? (m[1] as string).trim() : "";
}

const bearer = (c: Context): string | undefined => bearerOf(c.req.header("authorization"));

const looksLikeApiKey = (v: string | undefined) => v?.startsWith("svc_");

/**
 * The API key a request presents: X-Api-Key when sent with a value (whatever it holds), else a
 * bearer token that looks like a key. An empty X-Api-Key is no key at all: clients and proxies
 * send the header empty when a variable is unset, and the request's JWT then decides.
 */
function presentedApiKey(xApiKey: string | null | undefined, authorization: string | null | undefined) {
  if (xApiKey) return xApiKey;
  const token = bearerOf(authorization);
  return looksLikeApiKey(token) ? token : undefined;
}

export function createAuthMiddleware(deps: AuthDeps) {
  // Signature checks and user lookups are remembered (./credential-cache.ts); the blacklist is
  // checked on every request.
  const tokens = new VerifiedTokenCache(deps.clock);
  const users = new UserStatusCache(deps.clock, (id) => deps.accounts.findUser(id)?.isActive === true);

  const accept = (c: Context<AppEnv>, claims: VerifiedToken) => {
    if (deps.blacklist.isRevoked(claims.jti)) throw new AuthenticationError("Token has been revoked");
    if (!users.isActive(claims.userId)) throw new AuthenticationError("Invalid token");
    c.set("auth", { userId: claims.userId, kind: "jwt", jti: claims.jti, exp: claims.exp });
  };

  /**
   * Synchronous when the token's claims are remembered (the common case: no promise to wait
   * for), a promise when its signature must be checked.
   */
  const verifyJwt = (c: Context<AppEnv>, token: string | undefined): void | Promise<void> => {
    if (token === undefined) throw new AuthenticationError("Authorization header required");
    if (token === "") throw new AuthenticationError("Invalid token");
    const cached = tokens.get(token);
    if (cached === "expired") throw new AuthenticationError("Token expired");
    if (cached) return accept(c, cached);
    return deps.signer.verify(token, "access").then((claims) => {
      tokens.set(token, claims);
      accept(c, claims);
    });
  };

  const verifyKey = (c: Context<AppEnv>, scope: Scope | null, countUse = true) => {
    const raw = presentedApiKey(c.req.header("x-api-key"), c.req.header("authorization"));
    const v = deps.apiKeys.verify(raw, scope, { countUse });
    c.set("auth", { userId: v.userId, kind: "apiKey", apiKeyId: v.apiKeyId, scopes: v.scopes });
  };

  /** The Authorization bearer token, else (when the route allows one) the `queryToken` parameter. */
  const jwtFrom = (c: Context<AppEnv>, queryToken: string | undefined): string | undefined => {
    const fromHeader = bearer(c);
    if (fromHeader !== undefined || !queryToken) return fromHeader;
    return new URL(c.req.url).searchParams.get(queryToken) ?? undefined;
  };

  /**
   * `queryToken` names a query parameter that may carry the access token when no Authorization
   * header is sent: only for GET /events, because a browser's EventSource cannot set headers
   * (docs/decisions.md "Public API and live events").
   */
  const requireJwt =
    (opts: { queryToken?: string } = {}): MiddlewareHandler<AppEnv> =>
    async (c, next) => {
      await verifyJwt(c, jwtFrom(c, opts.queryToken));
      await next();
    };

  /**
   * PRODUCT.md §2: a `full_access` key grants what a JWT grants except /auth/* and /api-keys/*,
   * so every other route that needs no narrower scope takes a JWT or a full_access key.
   */
  const requireUser =
    (opts: { queryToken?: string } = {}): MiddlewareHandler<AppEnv> =>
    async (c, next) => {
      if (c.req.header("x-api-key") || looksLikeApiKey(bearer(c))) verifyKey(c, "full_access");
      else await verifyJwt(c, jwtFrom(c, opts.queryToken));
      await next();
    };

  /**
   * `useCountedBy`: a status whose handler counts the key's use itself (the signal intake counts
   * it inside its group commit); any other answer is counted here, as verify() would have.
   */
  const requireApiKey =
    (scope: Scope | null, opts: { useCountedBy?: number } = {}): MiddlewareHandler<AppEnv> =>
    async (c, next) => {
      if (opts.useCountedBy === undefined) {
        verifyKey(c, scope);
        return next();
      }
      verifyKey(c, scope, false);
      try {
        await next();
      } finally {
        if (c.res.status !== opts.useCountedBy) deps.apiKeys.recordUse(c.get("auth").apiKeyId as string);
      }
    };

  const requireJwtOrApiKey =
    (scope: Scope): MiddlewareHandler<AppEnv> =>
    async (c, next) => {
      const token = bearer(c);
      if (c.req.header("x-api-key") || looksLikeApiKey(token)) verifyKey(c, scope);
      else {
        const checking = verifyJwt(c, token);
        if (checking) await checking;
      }
      await next();
    };

  /**
   * The common split of a resource router (PRODUCT.md §2): its GETs accept a JWT or an API key
   * with `scope`; every other method takes a JWT or a full_access key.
   */
  const readWithScopeWriteWithUser = (scope: Scope): MiddlewareHandler<AppEnv> => {
    const read = requireJwtOrApiKey(scope);
    const write = requireUser();
    return (c, next) => (c.req.method === "GET" ? read(c, next) : write(c, next));
  };

  return {
    requireJwt,
    requireUser,
    requireApiKey,
    requireJwtOrApiKey,
    readWithScopeWriteWithUser,
    /** Drops what is remembered about a user (for code that deactivates one or changes credentials). */
    forgetUser: (userId: string) => users.forget(userId),
  };
}

export type AuthMiddleware = ReturnType<typeof createAuthMiddleware>;
