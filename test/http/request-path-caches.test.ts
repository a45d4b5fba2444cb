import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { ACCESS_TTL_S } from "../../src/auth/tokens.ts";
import { createTestContext, createUser, json, login, type TestContext } from "../helpers/context.ts";

// docs/decisions.md "Performance": verified JWT claims are remembered until the token
// expires (blacklist checked every time), a user's active flag for one second, and GET /agents'
// answer while the database is unchanged. None of them may change what a caller sees.

let ctx: TestContext;
beforeEach(async () => {
  ctx = await createTestContext();
});
afterEach(() => ctx.close());

const errorOf = async (res: Response) => ({ status: res.status, error: (await json(res)).error });

describe("remembered token claims", () => {
  test("a token accepted before still expires on time", async () => {
    const { token } = await login(ctx);
    expect((await ctx.request("GET", "/api/v1/auth/me", { token })).status).toBe(200);
    ctx.clock.advance(ACCESS_TTL_S * 1000 - 1000);
    expect((await ctx.request("GET", "/api/v1/auth/me", { token })).status).toBe(200);
    ctx.clock.advance(1000);
    expect(await errorOf(await ctx.request("GET", "/api/v1/auth/me", { token }))).toEqual({
      status: 401,
      error: "Token expired",
    });
  });

  test("logout revokes a token whose claims were remembered", async () => {
    const { token } = await login(ctx);
    expect((await ctx.request("GET", "/api/v1/agents", { token })).status).toBe(200);
    expect((await ctx.request("POST", "/api/v1/auth/logout", { token, body: {} })).status).toBe(200);
    expect(await errorOf(await ctx.request("GET", "/api/v1/agents", { token }))).toEqual({
      status: 401,
      error: "Token has been revoked",
    });
  });

  test("a tampered copy of a remembered token is still refused", async () => {
    const { token } = await login(ctx);
    expect((await ctx.request("GET", "/api/v1/auth/me", { token })).status).toBe(200);
    const [h, p, sig] = token.split(".") as [string, string, string];
    const forged = `${h}.${p}.${sig.slice(0, -2)}${sig.endsWith("AA") ? "BB" : "AA"}`;
    expect((await ctx.request("GET", "/api/v1/auth/me", { token: forged })).status).toBe(401);
  });
});

describe("remembered user status", () => {
  test("a user deactivated in the database is refused within a second", async () => {
    const u = await createUser(ctx);
    expect((await ctx.request("GET", "/api/v1/agents", { token: u.token })).status).toBe(200);
    ctx.database.sqlite.query("UPDATE users SET is_active = 0 WHERE id = ?").run(u.user.id);
    ctx.clock.advance(1001);
    expect(await errorOf(await ctx.request("GET", "/api/v1/agents", { token: u.token }))).toEqual({
      status: 401,
      error: "Invalid token",
    });
  });
});

describe("GET /agents answered while the database is unchanged", () => {
  const names = async (token: string) =>
    ((await json(await ctx.request("GET", "/api/v1/agents", { token }))) as Array<{ name: string }>).map((a) => a.name);

  test("a write through the API shows on the next read", async () => {
    const { token } = await login(ctx);
    expect(await names(token)).toEqual([]);
    expect(await names(token)).toEqual([]);
    await ctx.request("POST", "/api/v1/agents", { token, body: { name: "first" } });
    expect(await names(token)).toEqual(["first"]);
    const id = ((await json(await ctx.request("GET", "/api/v1/agents", { token }))) as Array<{ id: string }>)[0]!.id;
    await ctx.request("PUT", `/api/v1/agents/${id}`, { token, body: { name: "renamed" } });
    expect(await names(token)).toEqual(["renamed"]);
  });

  test("a write by another connection (another process) shows on the next read", async () => {
    const { token } = await login(ctx);
    await ctx.request("POST", "/api/v1/agents", { token, body: { name: "before" } });
    expect(await names(token)).toEqual(["before"]);
    const other = new Database(ctx.config.DATABASE_PATH);
    other.exec("PRAGMA busy_timeout = 5000");
    other.query("UPDATE agents SET name = 'outside'").run();
    other.close();
    expect(await names(token)).toEqual(["outside"]);
  });

  test("each caller gets their own list, and a query string is its own answer", async () => {
    const a = await createUser(ctx);
    const b = await createUser(ctx);
    await ctx.request("POST", "/api/v1/agents", { token: a.token, body: { name: "a1" } });
    await ctx.request("POST", "/api/v1/agents", { token: a.token, body: { name: "a2" } });
    expect(await names(a.token)).toEqual(["a2", "a1"]);
    expect(await names(b.token)).toEqual([]);
    const one = await json(await ctx.request("GET", "/api/v1/agents?limit=1", { token: a.token }));
    expect(one.map((x: { name: string }) => x.name)).toEqual(["a2"]);
    const res = await ctx.request("GET", "/api/v1/agents", { token: a.token });
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });
});
