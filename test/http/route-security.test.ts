import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Scope } from "../../src/auth/scopes.ts";
import { SCOPES } from "../../src/auth/scopes.ts";
import { ACCESS_TTL_S } from "../../src/auth/tokens.ts";
import { type DeclaredOperation, declaredOperations } from "../../src/http/operation.ts";
import { createAgent, insertPosition, simulationWalletOf } from "../agents/fixtures.ts";
import { createApiKey, createTestContext, createUser, json, login, type TestContext } from "../helpers/context.ts";
import { answerOf, labelOf, openApiReader } from "../helpers/declared-routes.ts";

// The security test of every declared route (docs/decisions.md "One request path"), generated
// from the app's own declarations (src/http/operation.ts) rather than listed by hand, so a new
// route is covered the moment it is mounted: no credential, a bad credential, a revoked token,
// each scope that must be refused and the one that must pass, and another user's resource (404).
// Request bodies and path values are the OpenAPI document's examples; another user's resources
// are real rows of a second user.

type Json = Record<string, any>;
let ctx: TestContext;
let doc: Json;
let userA: string;
let userB: string;
let tokenB: string;
const keysA = new Map<Scope, string>();
let foreignKeyA: string;
/** Another user's (B's) resource per path parameter, by the collection it belongs to. */
const foreign: Record<string, string> = {};

/**
 * Path parameters that name no resource of a user (a token mint, a file of the dashboard), and
 * the Telegram chat, which only a linked bot creates: no wrong-user check for those.
 */
const NOT_OWNED = new Set(["address", "tokenAddress", "file", "chatId"]);

beforeAll(async () => {
  // Webhook URLs resolve to a public address without a network.
  ctx = await createTestContext({ services: { notifications: { resolver: async () => ["93.184.216.34"] } } });
  doc = await json(await ctx.request("GET", "/api/v1/openapi.json"));
  const a = await login(ctx);
  userA = a.user.id;
  for (const scope of SCOPES) keysA.set(scope, (await createApiKey(ctx, a.token, [scope])).key);
  foreignKeyA = keysA.get("full_access") as string;
  const b = await createUser(ctx);
  userB = b.user.id;
  tokenB = b.token;
  await seedForeign();
});
afterAll(() => ctx.close());

/** One resource of each kind for user B, through the API where it has a create route. */
async function seedForeign() {
  const agent = await createAgent(ctx, tokenB);
  const wallet = simulationWalletOf(ctx, agent.id);
  foreign.agentId = agent.id;
  foreign.walletAddress = wallet;
  foreign.positionId = insertPosition(ctx, { agentId: agent.id, walletAddress: wallet });
  const key = await createApiKey(ctx, tokenB, ["signals"]);
  foreign["api-keys"] = key.id;
  const create = async (path: string, opts: { apiKey?: string; body?: Json } = {}) => {
    const body = opts.body ?? { ...exampleBody("POST", path), agentId: agent.id };
    const res = await ctx.request("POST", path, { token: opts.apiKey ? undefined : tokenB, apiKey: opts.apiKey, body });
    if (res.status !== 201 && res.status !== 202) throw new Error(`seeding ${path}: ${res.status} ${await res.text()}`);
    return (await json(res)).id as string;
  };
  foreign["trading-signals"] = await create("/api/v1/trading-signals", {
    apiKey: key.key,
    body: exampleBody("POST", "/api/v1/trading-signals"),
  });
  foreign.signalId = foreign["trading-signals"];
  foreign["agent-balances"] = await create("/api/v1/agent-balances");
  foreign["agent-transactions"] = await create("/api/v1/agent-transactions");
  foreign["agent-historical-swaps"] = await create("/api/v1/agent-historical-swaps");
  foreign.webhooks = await create("/api/v1/webhooks", { body: exampleBody("POST", "/api/v1/webhooks") });
  foreign["wallet-watches"] = await create("/api/v1/wallet-watches", {
    body: exampleBody("POST", "/api/v1/wallet-watches"),
  });
  foreign["wallet-watch-groups"] = await create("/api/v1/wallet-watch-groups", {
    body: exampleBody("POST", "/api/v1/wallet-watch-groups"),
  });
  foreign["signal-hooks"] = await create("/api/v1/signal-hooks", {
    body: exampleBody("POST", "/api/v1/signal-hooks"),
  });
  foreign.backtests = await create("/api/v1/backtests", {
    body: exampleBody("POST", "/api/v1/backtests"),
  });
  foreign.agents = agent.id;
  foreign["agent-positions"] = foreign.positionId;
}

/** The path with each parameter's example value, or another user's resource when `foreignIds`. */
function urlOf(op: DeclaredOperation, foreignIds: boolean): string | undefined {
  if (!foreignIds) return reader().exampleUrl(op);
  // `{id}` names the collection it follows; other names say what they are.
  const collection = op.path.split("/{")[0]?.split("/").pop() as string;
  const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
  const values = Object.fromEntries(names.map((n) => [n, n === "id" ? foreign[collection] : foreign[n]]));
  return Object.values(values).includes(undefined) ? undefined : reader().exampleUrl(op, values);
}

const ownedParams = (op: DeclaredOperation) =>
  [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string).filter((n) => !NOT_OWNED.has(n));

async function send(
  op: DeclaredOperation,
  credential: { token?: string; apiKey?: string; bearerKey?: string; headers?: Record<string, string> } = {},
  foreignIds = false,
) {
  const url = urlOf(op, foreignIds) as string;
  const body = op.hasBody ? exampleBody(op.method, op.path) : undefined;
  const headers: Record<string, string> = { ...credential.headers };
  if (credential.bearerKey) headers.authorization = `Bearer ${credential.bearerKey}`;
  if (op.path === "/api/v1/trading-signals" && op.method === "POST") headers["idempotency-key"] = crypto.randomUUID();
  const res = await ctx.request(op.method, url, {
    token: credential.token,
    apiKey: credential.apiKey,
    headers,
    body: body === undefined && op.hasBody ? {} : body,
  });
  return answerOf(res);
}

/** A fresh access token of `userId` (minted, so no login limit applies) and its id. */
const tokenOf = async (userId: string) => ctx.services.signer.issue(userId, "access", ACCESS_TTL_S);

const protectedOps = () => declaredOperations(ctx.app).filter((op) => op.auth.kind !== "none");
const label = labelOf;
const reader = () => openApiReader(doc);
const exampleBody = (method: string, path: string) => reader().exampleBody(method, path);

describe("every declared route", () => {
  test("the app declares its routes, and every protected one is covered below", () => {
    expect(declaredOperations(ctx.app).length).toBeGreaterThanOrEqual(90);
    expect(protectedOps().length).toBeGreaterThanOrEqual(80);
  });

  test("only these routes take no credential (SPEC: login, register, refresh, health, metrics, the dashboard)", () => {
    const open = declaredOperations(ctx.app)
      .filter((op) => op.auth.kind === "none")
      .map(label)
      .sort();
    expect(open).toEqual([
      "GET /",
      "GET /api/v1/health",
      "GET /api/v1/health/live",
      "GET /api/v1/health/ready",
      "GET /api/v1/metrics",
      "GET /dashboard/{file}",
      "GET /metrics",
      "POST /api/v1/auth/login",
      "POST /api/v1/auth/refresh",
      "POST /api/v1/auth/register",
      // A signal hook's delivery: the URL carries the hook's own secret (test/signals/signal-hooks.test.ts).
      "POST /api/v1/hooks/{token}",
    ]);
  });

  test("no credential: 401 with the route's own message", async () => {
    const problems: string[] = [];
    for (const op of protectedOps()) {
      ctx.clock.advance(61_000); // a fresh rate-limit window for every route
      const r = await send(op);
      const expected = op.auth.kind === "apiKey" ? "API key required" : "Authorization header required";
      if (r.status !== 401 || r.error !== expected) problems.push(`${label(op)}: ${r.status} ${r.error}`);
    }
    expect(problems).toEqual([]);
  });

  test("a garbage JWT, an unknown key and a revoked token: 401", async () => {
    const problems: string[] = [];
    for (const op of protectedOps()) {
      ctx.clock.advance(61_000);
      const unknownKey = await send(op, { apiKey: `svc_${"x".repeat(32)}` });
      if (op.auth.kind !== "jwt" && (unknownKey.status !== 401 || unknownKey.error !== "Invalid API key"))
        problems.push(`${label(op)} unknown key: ${unknownKey.status} ${unknownKey.error}`);
      if (op.auth.kind === "apiKey") continue;
      const garbage = await send(op, { token: "not.a.jwt" });
      if (garbage.status !== 401 || garbage.error !== "Invalid token")
        problems.push(`${label(op)} garbage JWT: ${garbage.status} ${garbage.error}`);
      const revoked = await tokenOf(userA);
      ctx.services.blacklist.revoke(revoked.jti, revoked.exp);
      const r = await send(op, { token: revoked.token });
      if (r.status !== 401 || r.error !== "Token has been revoked")
        problems.push(`${label(op)} revoked token: ${r.status} ${r.error}`);
    }
    expect(problems).toEqual([]);
  });

  test("each scope: refused with 403 (or 401 where keys are never taken), the granting one passes", async () => {
    const problems: string[] = [];
    for (const op of protectedOps()) {
      for (const scope of SCOPES) {
        ctx.clock.advance(61_000);
        const key = keysA.get(scope) as string;
        const r = await send(op, { bearerKey: key });
        const who = op.auth;
        const grants =
          who.kind === "user"
            ? scope === "full_access"
            : who.kind === "scoped" || who.kind === "apiKey"
              ? who.scope === null || scope === who.scope || scope === "full_access"
              : false;
        const refusal = who.kind === "jwt" ? 401 : 403;
        if (grants && (r.status === 401 || r.status === 403))
          problems.push(`${label(op)} with a ${scope} key: ${r.status} ${r.error}`);
        if (!grants && r.status !== refusal)
          problems.push(`${label(op)} with a ${scope} key: ${r.status}, not refused`);
      }
      if (op.auth.kind === "apiKey") {
        const jwt = await send(op, { token: (await tokenOf(userA)).token });
        if (jwt.status !== 401) problems.push(`${label(op)} with a JWT only: ${jwt.status}`);
      } else {
        const jwt = await send(op, { token: (await tokenOf(userA)).token });
        if (jwt.status === 401 || jwt.status === 403) problems.push(`${label(op)} with a JWT: ${jwt.status}`);
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);

  test("an empty X-API-Key beside a JWT is no key: the JWT decides; alone it is no credential", async () => {
    const problems: string[] = [];
    for (const op of protectedOps()) {
      ctx.clock.advance(61_000);
      const empty = { "x-api-key": "" };
      const alone = await send(op, { headers: empty });
      const expected = op.auth.kind === "apiKey" ? "API key required" : "Authorization header required";
      if (alone.status !== 401 || alone.error !== expected) problems.push(`${label(op)} alone: ${alone.status}`);
      if (op.auth.kind === "apiKey") continue;
      const r = await send(op, { token: (await tokenOf(userA)).token, headers: empty });
      if (r.status === 401 || r.status === 403) problems.push(`${label(op)} with a JWT: ${r.status} ${r.error}`);
    }
    expect(problems).toEqual([]);
  }, 120_000);

  test("another user's resource: 404", async () => {
    const problems: string[] = [];
    let checked = 0;
    for (const op of protectedOps()) {
      if (ownedParams(op).length === 0) continue;
      ctx.clock.advance(61_000);
      if (urlOf(op, true) === undefined) {
        problems.push(`${label(op)}: no resource of another user for its path (add one to seedForeign)`);
        continue;
      }
      const credential = op.auth.kind === "apiKey" ? { apiKey: foreignKeyA } : { token: (await tokenOf(userA)).token };
      const r = await send(op, credential, true);
      checked++;
      if (r.status !== 404) problems.push(`${label(op)}: ${r.status} ${r.error}`);
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(40);
    // B's resources are all still there: nothing above reached them.
    const res = await ctx.request("GET", `/api/v1/agents/${foreign.agentId}`, {
      token: (await tokenOf(userB)).token,
    });
    expect(res.status).toBe(200);
    expect(userB).not.toBe(userA);
  }, 120_000);
});

describe("a route cannot be registered without its declaration", () => {
  test("every route Hono serves under /api and /v1 is a declared operation", () => {
    const declared = new Set(declaredOperations(ctx.app).map((op) => `${op.method} ${op.path}`));
    const served = ctx.app.routes
      .filter((r) => r.method !== "ALL" && /^\/(api|v1)\//.test(r.path))
      .map((r) => `${r.method} ${r.path.replace(/:([^/]+)/g, "{$1}").replace(/(.)\/$/, "$1")}`);
    const undeclared = [...new Set(served)].filter(
      (k) => !declared.has(k) && !/^GET \/api\/v1\/(openapi\.json|docs)/.test(k),
    );
    expect(undeclared).toEqual([]);
  });

  test("createRouter refuses a route made without operation()", async () => {
    const { createRoute } = await import("@hono/zod-openapi");
    const { createRouter } = await import("../../src/http/operation.ts");
    const router = createRouter(ctx.services);
    const bare = createRoute({ method: "get", path: "/x", responses: { 200: { description: "ok" } } });
    expect(() => router.openapi(bare, (c) => c.json({}, 200) as never)).toThrow(
      "GET /x: declare the route with operation()",
    );
  });
});
