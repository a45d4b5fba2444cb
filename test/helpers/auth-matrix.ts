import { expect } from "bun:test";
import type { Scope } from "../../src/auth/scopes.ts";
import { createApiKey, json, type TestContext } from "./context.ts";

// The shared auth matrix (issue: Foundation): for one route, assert that no credential and a bad
// credential give 401, a key without the route's scope gives 403 (where keys apply), a key on
// /auth/* or /api-keys/* is refused, a full_access key works everywhere else, and another user's
// resource answers 404.

export interface AuthMatrixRoute {
  method: string;
  /** The path for the caller's own resource (or a collection path). */
  path: string;
  body?: unknown;
  /** The key scope that grants this route; omit for JWT-only routes. */
  scope?: Scope;
  /** true for routes that take only an API key (POST /trading-signals). */
  apiKeyOnly?: boolean;
  /** A path naming another user's resource; the caller must get 404 there. */
  foreignPath?: string;
  /** Token of the caller who owns `path` (for the foreign check and key creation). */
  token: string;
}

const jwtOnly = (path: string) => /^\/api\/v1\/(auth|api-keys)(\/|$)/.test(path);

export async function assertAuthMatrix(ctx: TestContext, r: AuthMatrixRoute): Promise<void> {
  const label = `${r.method} ${r.path}`;
  const send = (path: string, o: { token?: string; apiKey?: string; headers?: Record<string, string> }) =>
    ctx.request(r.method, path, { body: r.body, ...o });

  // 1. No credential.
  const none = await send(r.path, {});
  expect(none.status, `${label} without credential`).toBe(401);
  expect((await json(none)).error, label).toBe(r.apiKeyOnly ? "API key required" : "Authorization header required");

  // 2. Bad credentials.
  if (!r.apiKeyOnly) {
    const badJwt = await send(r.path, { token: "not.a.jwt" });
    expect(badJwt.status, `${label} with garbage JWT`).toBe(401);
    expect((await json(badJwt)).error, label).toBe("Invalid token");
  }
  if (r.scope || r.apiKeyOnly) {
    const badKey = await send(r.path, { apiKey: `svc_${"x".repeat(32)}` });
    expect(badKey.status, `${label} with unknown key`).toBe(401);
    expect((await json(badKey)).error, label).toBe("Invalid API key");
  }

  // 3. Scope.
  if (r.scope) {
    const other: Scope = r.scope === "history" ? "balances" : "history";
    const wrong = await createApiKey(ctx, r.token, [other]);
    const res = await send(r.path, { apiKey: wrong.key });
    expect(res.status, `${label} with a key lacking ${r.scope}`).toBe(403);
    expect((await json(res)).error, label).toBe(`API key missing required scope: ${r.scope}`);
    const right = await createApiKey(ctx, r.token, [r.scope]);
    const ok = await send(r.path, { apiKey: right.key });
    expect(ok.status, `${label} with a ${r.scope} key`).not.toBeOneOf([401, 403]);
  } else if (!r.apiKeyOnly && jwtOnly(r.path)) {
    // /auth/* and /api-keys/* never accept a key, even full_access (PRODUCT.md §2).
    const full = await createApiKey(ctx, r.token, ["full_access"]);
    const res = await send(r.path, { headers: { authorization: `Bearer ${full.key}` } });
    expect(res.status, `${label} with an API key on a JWT-only route`).toBe(401);
  } else if (!r.apiKeyOnly) {
    // Elsewhere a full_access key grants what a JWT grants (PRODUCT.md §2); narrower keys do not.
    const narrow = await createApiKey(ctx, r.token, ["history"]);
    const refused = await send(r.path, { apiKey: narrow.key });
    expect(refused.status, `${label} with a key lacking full_access`).toBe(403);
    expect((await json(refused)).error, label).toBe("API key missing required scope: full_access");
    const full = await createApiKey(ctx, r.token, ["full_access"]);
    const ok = await send(r.path, { headers: { authorization: `Bearer ${full.key}` } });
    expect(ok.status, `${label} with a full_access key`).not.toBeOneOf([401, 403]);
  }

  // 4. Another user's resource.
  if (r.foreignPath) {
    const res = r.apiKeyOnly
      ? await send(r.foreignPath, { apiKey: (await createApiKey(ctx, r.token, ["full_access"])).key })
      : await send(r.foreignPath, { token: r.token });
    expect(res.status, `${label}: another user's resource`).toBe(404);
  }
}
