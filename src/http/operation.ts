import { createRoute, OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit as honoBodyLimit } from "hono/body-limit";
import type { z } from "zod";
import type { Scope } from "../auth/scopes.ts";
import { PayloadTooLargeError } from "../errors.ts";
import type { AppDeps, AppEnv, HttpLimiters } from "./app-env.ts";
import { MAX_BODY_BYTES } from "./body-limits.ts";
import { rateLimit } from "./rate-limit.ts";
import { splitRequestValidation, validationErrorFrom } from "./request-validators.ts";
import { apiKeySecurity, bearerSecurity, errorResponses, jwtOrKeySecurity, userSecurity } from "./schemas.ts";

// One declaration per operation (docs/decisions.md "One request path"): method, path, who may call
// it, its rate limit and body limit, its request and response schemas. From it come the route's
// checks (the `middleware` of @hono/zod-openapi's route, built once when the route is registered),
// the OpenAPI operation (its `security` and the error statuses those checks can answer), the 405
// answers, and the generated security test (test/http/route-security.test.ts). A router made by
// createRouter refuses to register a route that did not come from `operation()`.

/** Who may call an operation (SPEC "Authentication", PRODUCT.md §2; src/http/middleware/auth.ts). */
export type AuthDeclaration =
  /** No credential (login, health, metrics, the dashboard's files). */
  | { kind: "none" }
  /** A JWT only: /auth/* and /api-keys/* never take a key. */
  | { kind: "jwt" }
  /** A JWT or a full_access key: what a JWT grants everywhere else. `queryToken`: GET /events. */
  | { kind: "user"; queryToken?: string }
  /** A JWT or a key holding `scope` (the read routes of the scope table). */
  | { kind: "scoped"; scope: Scope }
  /** An API key only; `scope: null` takes any key (the public API). See requireApiKey for `useCountedBy`. */
  | { kind: "apiKey"; scope: Scope | null; useCountedBy?: number };

export const auth = {
  none: { kind: "none" },
  jwt: { kind: "jwt" },
  user: { kind: "user" },
  scoped: (scope: Scope) => ({ kind: "scoped", scope }),
  apiKey: (scope: Scope | null, opts: { useCountedBy?: number } = {}) => ({ kind: "apiKey", scope, ...opts }),
} as const satisfies Record<string, AuthDeclaration | ((...a: never[]) => AuthDeclaration)>;

export interface RateLimitDeclaration {
  limiter: keyof HttpLimiters;
  /** The window's key; runs after the credential check, so `c.get("auth")` is set. */
  key: (c: Context<AppEnv>, s: AppDeps) => string;
}

export interface Declaration {
  auth: AuthDeclaration;
  rateLimit?: RateLimitDeclaration;
  /** Largest accepted body in bytes (every method but GET/HEAD); MAX_BODY_BYTES when omitted. */
  bodyLimit?: number;
  /** The 200 answer depends only on the caller, the URL and the database (middleware/response-cache.ts). */
  cached?: boolean;
  /** A route-specific check, run after the credential and the rate limit (e.g. a 503 guard). */
  guard?: (s: AppDeps) => MiddlewareHandler<AppEnv>;
  /**
   * The handler reads the body itself, whatever its media type (a signal hook's delivery: JSON sent
   * as text/plain): the body is documented, and no media-type gate or JSON validator is put before it.
   */
  ownBody?: boolean;
}

/** A registered operation with its full path, as the app and the generated tests see it. */
export interface DeclaredOperation extends Declaration {
  method: string;
  /** OpenAPI form: `/api/v1/agents/{id}`. */
  path: string;
  hasBody: boolean;
}

type DeclaredRoute = RouteConfig & Declaration;

const declarations = new WeakMap<object, Declaration>();

/**
 * createRoute with the operation's declaration: its `security` and the error answers of its
 * checks (401, 403, 413, 429) are derived here, so no route documents less than it answers.
 */
export function operation<
  P extends string,
  R extends Omit<RouteConfig, "path" | "security" | "middleware"> & { path: P },
>(decl: R & Declaration): Omit<R, keyof Declaration> & { path: P } {
  const { auth: who, rateLimit: limit, bodyLimit: maxBytes, cached, guard, ownBody, ...route } = decl as DeclaredRoute;
  const config = createRoute({
    ...route,
    security: securityOf(who),
    responses: { ...derivedResponses(route, who, limit !== undefined), ...route.responses },
  } as RouteConfig);
  declarations.set(config, { auth: who, rateLimit: limit, bodyLimit: maxBytes, cached, guard, ownBody });
  return config as unknown as Omit<R, keyof Declaration> & { path: P };
}

function securityOf(who: AuthDeclaration) {
  switch (who.kind) {
    case "none":
      return [];
    case "jwt":
      return bearerSecurity;
    case "user":
      return userSecurity;
    case "scoped":
      return jwtOrKeySecurity;
    case "apiKey":
      return apiKeySecurity;
  }
}

const takesBody = (method: string) => method !== "get" && method !== "head";

function derivedResponses(route: RouteConfig, who: AuthDeclaration, limited: boolean) {
  const statuses: number[] = [];
  if (route.request?.body || route.request?.query || route.request?.params || route.request?.headers)
    statuses.push(400);
  if (who.kind !== "none") statuses.push(401);
  if (who.kind === "user" || who.kind === "scoped" || (who.kind === "apiKey" && who.scope !== null)) statuses.push(403);
  if (takesBody(route.method)) statuses.push(413);
  if (limited) statuses.push(429);
  return errorResponses(...statuses);
}

const registered = new WeakMap<object, DeclaredOperation[]>();

/**
 * Every resource router is built here: validation failures all go through the one error mapping
 * (the validator's own 400 body is unusable: STYLE.md trap), and `openapi()` takes only routes
 * made by `operation()`, whose checks it puts in front of the validators.
 */
export function createRouter(s: AppDeps): OpenAPIHono<AppEnv> {
  const router = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationErrorFrom(result.error as z.ZodError);
    },
  });
  const list: DeclaredOperation[] = [];
  registered.set(router, list);
  const register = router.openapi;
  router.openapi = ((route: RouteConfig, handler: never, hook?: never) => {
    const decl = declarations.get(route);
    if (!decl) throw new Error(`${route.method.toUpperCase()} ${route.path}: declare the route with operation()`);
    list.push({ ...decl, method: route.method.toUpperCase(), path: route.path, hasBody: !!route.request?.body });
    const checks = checksOf(s, route.method, decl);
    if (hook) return register({ ...route, middleware: checks }, handler, hook);
    // Query, path and header checks are ours (./request-validators.ts); the document still gets the
    // whole declaration, registered here since the library is handed the route without them.
    const { rest, validator } = splitRequestValidation(route.request);
    if (!validator && !decl.ownBody) return register({ ...route, middleware: checks }, handler);
    router.openAPIRegistry.registerPath(route);
    const request = decl.ownBody ? { ...rest, body: undefined } : rest;
    const middleware = validator ? [...checks, validator] : checks;
    return register({ ...route, request, hide: true, middleware }, handler);
  }) as typeof router.openapi;
  return router;
}

/** The declaration's checks in their order: body limit, credential, rate limit, cache, the route's own. */
function checksOf(s: AppDeps, method: string, decl: Declaration): MiddlewareHandler<AppEnv>[] {
  const checks: MiddlewareHandler<AppEnv>[] = [];
  if (takesBody(method)) checks.push(bodyLimitOf(decl.bodyLimit ?? MAX_BODY_BYTES));
  const credential = credentialCheck(s, decl.auth);
  if (credential) checks.push(credential);
  const limit = decl.rateLimit;
  if (limit) checks.push(rateLimit<AppEnv>(s.limiters[limit.limiter], (c) => limit.key(c, s)));
  if (decl.cached) checks.push(s.responseCache.middleware());
  if (decl.guard) checks.push(decl.guard(s));
  return checks;
}

function credentialCheck(s: AppDeps, who: AuthDeclaration): MiddlewareHandler<AppEnv> | undefined {
  switch (who.kind) {
    case "none":
      return undefined;
    case "jwt":
      return s.auth.requireJwt();
    case "user":
      return s.auth.requireUser({ queryToken: who.queryToken });
    case "scoped":
      return s.auth.requireJwtOrApiKey(who.scope);
    case "apiKey":
      return s.auth.requireApiKey(who.scope, { useCountedBy: who.useCountedBy });
  }
}

/**
 * Hono's bodyLimit, with its declared-length case first: a request that states its length (and is
 * not chunked) is judged by the header alone. Hono's own version asks for `req.body` before that,
 * which in Bun builds a ReadableStream for every request, and reading the JSON through it afterwards
 * costs more than from the buffered body (docs/decisions/under-load.md). Chunked and unstated
 * bodies still go through Hono's counting reader.
 */
const bodyLimitOf = (maxSize: number): MiddlewareHandler<AppEnv> => {
  const counting = honoBodyLimit({
    maxSize,
    onError: () => {
      throw new PayloadTooLargeError(maxSize);
    },
  });
  return (c, next) => {
    const headers = c.req.raw.headers;
    const declared = headers.get("content-length");
    if (declared === null || headers.has("transfer-encoding")) return counting(c, next);
    if (Number.parseInt(declared, 10) > maxSize) throw new PayloadTooLargeError(maxSize);
    return next();
  };
};

/** Mounts `router` at `prefix` and records its operations under their full paths. */
export function mountDeclared(app: OpenAPIHono<AppEnv>, prefix: string, router: OpenAPIHono<AppEnv>): void {
  app.route(prefix, router);
  const own = registered.get(router) ?? [];
  let list = registered.get(app);
  if (!list) {
    list = [];
    registered.set(app, list);
  }
  for (const op of own) list.push({ ...op, path: joinPath(prefix, op.path) });
}

function joinPath(prefix: string, path: string): string {
  if (prefix === "/" || prefix === "") return path;
  return path === "/" ? prefix : `${prefix}${path}`;
}

/** The operations declared on `app` (mounted with mountDeclared), in registration order. */
export function declaredOperations(app: object): readonly DeclaredOperation[] {
  return registered.get(app) ?? [];
}

/**
 * The methods declared for a path, for the 405 answer to a known path with a method it does not
 * take; empty when no declared route matches the path.
 */
export function allowedMethods(ops: readonly DeclaredOperation[]): (path: string) => string[] {
  const patterns = ops.map((op) => ({
    method: op.method,
    re: new RegExp(`^${op.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}/?$`),
  }));
  return (path) => {
    const methods = new Set<string>();
    for (const p of patterns) if (p.re.test(path)) methods.add(p.method);
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods];
  };
}
