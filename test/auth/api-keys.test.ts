import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { Hono } from "hono";
import { generateApiKey } from "../../src/auth/api-keys.ts";
import { createApiKey, createTestContext, createUser, json, login, type TestContext } from "../helpers/context.ts";

let ctx: TestContext;
let token: string;
beforeEach(async () => {
  ctx = await createTestContext();
  token = (await login(ctx)).token;
});
afterEach(() => ctx.close());

const create = (body: unknown, t = token) => ctx.request("POST", "/api/v1/api-keys", { token: t, body });

describe("POST /api-keys", () => {
  test("201 with id, name, key, prefix, scopes, createdAt; the key has the spec's format", async () => {
    const res = await create({ name: "bot", scopes: ["signals", "agents"] });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(Object.keys(body).sort()).toEqual(["createdAt", "id", "key", "name", "prefix", "scopes"]);
    expect(body.key).toMatch(/^svc_[A-Za-z0-9]{32}$/);
    expect(body.prefix).toBe(body.key.slice(0, 8));
    expect(body.scopes).toEqual(["signals", "agents"]);
    expect(body.name).toBe("bot");
  });

  test("only the SHA-256 of the key is stored, never the raw key", async () => {
    const { key } = await json(await create({ name: "bot", scopes: ["signals"] }));
    const rows = ctx.database.sqlite.query<Record<string, unknown>, []>("SELECT * FROM api_keys").all();
    expect(rows.length).toBe(1);
    expect(rows[0]!.key_hash).toBe(createHash("sha256").update(key).digest("hex"));
    ctx.database.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    const bytes = await Bun.file(ctx.database.path).text();
    expect(bytes.includes(key)).toBe(false);
    expect(JSON.stringify(rows).includes(key)).toBe(false);
    expect(ctx.logs.join("\n").includes(key)).toBe(false);
  });

  test("409 for a duplicate name of the same user; another user may reuse it", async () => {
    expect((await create({ name: "bot", scopes: ["signals"] })).status).toBe(201);
    const dup = await create({ name: "bot", scopes: ["agents"] });
    expect(dup.status).toBe(409);
    expect(await json(dup)).toEqual({ success: false, error: "API key name already exists", code: "CONFLICT" });
    const other = await createUser(ctx);
    expect((await create({ name: "bot", scopes: ["signals"] }, other.token)).status).toBe(201);
  });

  test.each([
    [{ scopes: ["signals"] }, "Name is required"],
    [{ name: "", scopes: ["signals"] }, "Name is required"],
    [{ name: "x".repeat(256), scopes: ["signals"] }, "Name must be at most 255 characters"],
    [{ name: "bot" }, "Scopes must be an array of scope values"],
    [{ name: "bot", scopes: [] }, "At least one scope is required"],
    [
      { name: "bot", scopes: ["admin"] },
      "Invalid scope; allowed values: full_access, signals, agents, positions, balances, transactions, history",
    ],
  ])("400 %j", async (body, message) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe(message);
  });

  test("keys are random", () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const k of keys) expect(k).toMatch(/^svc_[A-Za-z0-9]{32}$/);
  });
});

describe("GET /api-keys and /api-keys/:id, DELETE", () => {
  test("list shows only the caller's keys, with lastUsedAt; get one omits it", async () => {
    const a = await createApiKey(ctx, token, ["signals"], "a");
    const other = await createUser(ctx);
    await createApiKey(ctx, other.token, ["signals"], "theirs");
    const res = await ctx.request("GET", "/api/v1/api-keys", { token });
    expect(res.status).toBe(200);
    const list = await json(res);
    expect(list.length).toBe(1);
    expect(Object.keys(list[0]).sort()).toEqual(["createdAt", "id", "lastUsedAt", "name", "prefix", "scopes"]);
    expect(list[0].lastUsedAt).toBeNull();
    expect(list[0].id).toBe(a.id);

    const one = await ctx.request("GET", `/api/v1/api-keys/${a.id}`, { token });
    expect(one.status).toBe(200);
    expect(Object.keys(await json(one)).sort()).toEqual(["createdAt", "id", "name", "prefix", "scopes"]);
  });

  test("400 for a malformed id, 404 for unknown and another user's key", async () => {
    const bad = await ctx.request("GET", "/api/v1/api-keys/not-a-uuid", { token });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error).toBe("Invalid API key ID format");
    const missing = await ctx.request("GET", `/api/v1/api-keys/${crypto.randomUUID()}`, { token });
    expect(missing.status).toBe(404);
    expect(await json(missing)).toEqual({ success: false, error: "API key not found", code: "NOT_FOUND" });
    const other = await createUser(ctx);
    const theirs = await createApiKey(ctx, other.token, ["signals"]);
    expect((await ctx.request("GET", `/api/v1/api-keys/${theirs.id}`, { token })).status).toBe(404);
    expect((await ctx.request("DELETE", `/api/v1/api-keys/${theirs.id}`, { token })).status).toBe(404);
    expect((await ctx.request("DELETE", "/api/v1/api-keys/nope", { token })).status).toBe(400);
  });
});

describe("API-key middleware", () => {
  // A tiny router using the production middleware, so the key checks are tested on their own.
  function probe(c: TestContext) {
    const app = new Hono();
    app.onError((err, h) => h.json({ error: err.message, status: (err as any).status }, (err as any).status ?? 500));
    app.get("/either", c.services.auth.requireJwtOrApiKey("agents") as any, (h) =>
      h.json({ userId: (h as any).get("auth").userId, kind: (h as any).get("auth").kind }),
    );
    app.post("/key-only", c.services.auth.requireApiKey("signals") as any, (h) => h.json({ ok: true }));
    return app;
  }

  test("X-API-Key and Bearer svc_ both work; scope enforced; full_access grants; deleted key refused", async () => {
    const app = probe(ctx);
    const agentsKey = await createApiKey(ctx, token, ["agents"]);
    const fullKey = await createApiKey(ctx, token, ["full_access"]);
    const signalsKey = await createApiKey(ctx, token, ["signals"]);

    let res = await app.request("/either", { headers: { "x-api-key": agentsKey.key } });
    expect(await res.json()).toMatchObject({ kind: "apiKey" });
    res = await app.request("/either", { headers: { authorization: `Bearer ${fullKey.key}` } });
    expect(res.status).toBe(200);
    res = await app.request("/either", { headers: { authorization: `Bearer ${token}` } });
    expect(await res.json()).toMatchObject({ kind: "jwt" });
    res = await app.request("/either", { headers: { "x-api-key": signalsKey.key } });
    expect(await res.json()).toEqual({ error: "API key missing required scope: agents", status: 403 });

    res = await app.request("/key-only", { method: "POST" });
    expect(await res.json()).toEqual({ error: "API key required", status: 401 });
    res = await app.request("/key-only", { method: "POST", headers: { authorization: `Bearer ${token}` } });
    expect(await res.json()).toEqual({ error: "API key required", status: 401 });
    res = await app.request("/key-only", { method: "POST", headers: { "x-api-key": signalsKey.key } });
    expect(res.status).toBe(200);

    await ctx.request("DELETE", `/api/v1/api-keys/${signalsKey.id}`, { token });
    res = await app.request("/key-only", { method: "POST", headers: { "x-api-key": signalsKey.key } });
    expect(await res.json()).toEqual({ error: "Invalid API key", status: 401 });
  });

  test("a key of a deactivated user is refused; lastUsedAt is stamped", async () => {
    const app = probe(ctx);
    const other = await createUser(ctx);
    const key = await createApiKey(ctx, other.token, ["agents"]);
    expect((await app.request("/either", { headers: { "x-api-key": key.key } })).status).toBe(200);
    const list = await json(await ctx.request("GET", "/api/v1/api-keys", { token: other.token }));
    expect(list[0].lastUsedAt).toBe(new Date(ctx.clock.now()).toISOString());
    ctx.database.sqlite.query("UPDATE users SET is_active = 0 WHERE id = ?").run(other.user.id);
    expect(await (await app.request("/either", { headers: { "x-api-key": key.key } })).json()).toEqual({
      error: "Invalid API key",
      status: 401,
    });
  });
});
