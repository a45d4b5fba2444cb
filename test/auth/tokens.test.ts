import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { decodeJwt, decodeProtectedHeader, SignJWT } from "jose";
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  createTestContext,
  createUser,
  json,
  login,
  type TestContext,
} from "../helpers/context.ts";

let ctx: TestContext;
beforeEach(async () => {
  ctx = await createTestContext();
});
afterEach(() => ctx.close());

const me = (token?: string, headers?: Record<string, string>) =>
  ctx.request("GET", "/api/v1/auth/me", { token, headers });
/** A well-formed refresh JWT signed with a secret the service does not have. */
const forgedRefresh = () =>
  new SignJWT({ type: "refresh", fam: "f" })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject("someone")
    .setJti(crypto.randomUUID())
    .setExpirationTime("1h")
    .sign(new TextEncoder().encode("x".repeat(64)));
const errorOf = async (res: Response) => ({ status: res.status, error: (await json(res)).error });

describe("GET /auth/me", () => {
  test("200 with id, email, createdAt (and twoFactorEnabled)", async () => {
    const { token, user } = await login(ctx);
    const res = await me(token);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      id: user.id,
      email: ADMIN_EMAIL,
      createdAt: (user as any).createdAt,
      twoFactorEnabled: false,
    });
  });

  test.each([
    ["no header", undefined, undefined, "Authorization header required"],
    ["not a Bearer header", undefined, { authorization: "Basic abc" }, "Invalid token"],
    ["garbage token", "abc.def.ghi", undefined, "Invalid token"],
  ])("401 %s", async (_name, token, headers, message) => {
    expect(await errorOf(await me(token, headers))).toEqual({ status: 401, error: message });
  });
});

describe("token claims and verification", () => {
  test("HS256 with sub, jti, typ, iat, exp; access 15 min, refresh 24 h, rememberMe 30 days", async () => {
    const { token, refreshToken } = await login(ctx);
    expect(decodeProtectedHeader(token).alg).toBe("HS256");
    const a = decodeJwt(token);
    expect(a.typ).toBe("access");
    expect(typeof a.jti).toBe("string");
    expect(a.exp! - a.iat!).toBe(15 * 60);
    const r = decodeJwt(refreshToken);
    expect(r.typ).toBe("refresh");
    expect(r.exp! - r.iat!).toBe(24 * 3600);
    const res = await ctx.request("POST", "/api/v1/auth/login", {
      body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD, rememberMe: true },
    });
    const rr = decodeJwt((await json(res)).refreshToken);
    expect(rr.exp! - rr.iat!).toBe(30 * 24 * 3600);
  });

  test("expired access token → Token expired", async () => {
    const { token } = await login(ctx);
    ctx.clock.advance(15 * 60_000 + 1000);
    expect(await errorOf(await me(token))).toEqual({ status: 401, error: "Token expired" });
  });

  test("refresh token used as access token → Invalid token type, and the reverse", async () => {
    const { token, refreshToken } = await login(ctx);
    expect(await errorOf(await me(refreshToken))).toEqual({ status: 401, error: "Invalid token type" });
    const res = await ctx.request("POST", "/api/v1/auth/refresh", { body: { refreshToken: token } });
    expect(await errorOf(res)).toEqual({ status: 401, error: "Invalid token type" });
  });

  test("alg none is refused", async () => {
    const { token } = await login(ctx);
    const claims = decodeJwt(token);
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const unsigned = `${b64({ alg: "none", typ: "JWT" })}.${b64(claims)}.`;
    expect(await errorOf(await me(unsigned))).toEqual({ status: 401, error: "Invalid token" });
  });

  test("a token signed with another key, or another HMAC alg, is refused", async () => {
    const { token } = await login(ctx);
    const claims = decodeJwt(token);
    const wrongKey = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256" })
      .sign(new TextEncoder().encode("x".repeat(32)));
    expect(await errorOf(await me(wrongKey))).toEqual({ status: 401, error: "Invalid token" });
    const secret = (ctx.services.signer as any).secret as Uint8Array;
    const hs512 = await new SignJWT(claims).setProtectedHeader({ alg: "HS512" }).sign(secret);
    expect(await errorOf(await me(hs512))).toEqual({ status: 401, error: "Invalid token" });
  });

  test("a token of a deleted user is refused", async () => {
    const other = await createUser(ctx);
    ctx.database.sqlite.query("DELETE FROM users WHERE id = ?").run(other.user.id);
    expect(await errorOf(await me(other.token))).toEqual({ status: 401, error: "Invalid token" });
  });
});

describe("POST /auth/logout", () => {
  test("logout revokes the access token; reuse → Token has been revoked, also after a restart", async () => {
    const { token } = await login(ctx);
    const out = await ctx.request("POST", "/api/v1/auth/logout", { token });
    expect(out.status).toBe(200);
    expect(await json(out)).toEqual({ success: true, message: "Logged out successfully" });
    expect(await errorOf(await me(token))).toEqual({ status: 401, error: "Token has been revoked" });

    const restarted = await ctx.restart();
    ctx = restarted;
    expect(await errorOf(await restarted.request("GET", "/api/v1/auth/me", { token }))).toEqual({
      status: 401,
      error: "Token has been revoked",
    });
    // A fresh login still works after the restart (the JWT secret was kept in the data dir).
    const again = await login(restarted);
    expect((await restarted.request("GET", "/api/v1/auth/me", { token: again.token })).status).toBe(200);
  });

  test("logout with refreshToken revokes the refresh token", async () => {
    const { token, refreshToken } = await login(ctx);
    expect((await ctx.request("POST", "/api/v1/auth/logout", { token, body: { refreshToken } })).status).toBe(200);
    const res = await ctx.request("POST", "/api/v1/auth/refresh", { body: { refreshToken } });
    expect(await errorOf(res)).toEqual({ status: 401, error: "Token has been revoked" });
  });

  // Issue 13: a refresh token that is not the user's valid one no longer turns the logout into a
  // 401 after the access token was already revoked; the answer says what happened.
  test.each([
    ["malformed", async () => "not-a-jwt"],
    ["signed with another secret", async () => forgedRefresh()],
    ["another user's", async () => (await createUser(ctx)).refreshToken],
    ["an access token", async () => (await login(ctx)).token],
  ])("logout with a refresh token that is %s: 200, access token revoked, refresh token untouched", async (_n, make) => {
    const presented = await make();
    const { token } = await login(ctx);
    const out = await ctx.request("POST", "/api/v1/auth/logout", { token, body: { refreshToken: presented } });
    expect(out.status).toBe(200);
    expect(await json(out)).toEqual({ success: true, message: "Logged out; the refresh token was not recognised" });
    expect(await errorOf(await me(token))).toEqual({ status: 401, error: "Token has been revoked" });
    if (_n === "another user's") {
      // The other user's session is not touched: their refresh token still works.
      const res = await ctx.request("POST", "/api/v1/auth/refresh", { body: { refreshToken: presented } });
      expect(res.status).toBe(200);
    }
  });

  test("logout needs a JWT", async () => {
    expect(await errorOf(await ctx.request("POST", "/api/v1/auth/logout", {}))).toEqual({
      status: 401,
      error: "Authorization header required",
    });
  });

  test("the blacklist forgets tokens once they have expired anyway", async () => {
    const { token } = await login(ctx);
    await ctx.request("POST", "/api/v1/auth/logout", { token });
    expect(ctx.services.blacklist.size).toBe(1);
    ctx.clock.advance(16 * 60_000);
    ctx.services.blacklist.sweep();
    expect(ctx.services.blacklist.size).toBe(0);
    const n = ctx.database.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM revoked_access_tokens").get();
    expect(n?.n).toBe(0);
    expect(await errorOf(await me(token))).toEqual({ status: 401, error: "Token expired" });
  });
});

describe("POST /auth/refresh", () => {
  test("exchanges a refresh token for a new pair; the old one is then refused and its family revoked", async () => {
    const { refreshToken } = await login(ctx);
    ctx.clock.advance(1000);
    const res = await ctx.request("POST", "/api/v1/auth/refresh", { body: { refreshToken } });
    expect(res.status).toBe(200);
    const pair = await json(res);
    expect(Object.keys(pair).sort()).toEqual(["accessToken", "refreshToken"]);
    expect((await me(pair.accessToken)).status).toBe(200);

    // Reuse of the rotated token: theft detection revokes the newer token too.
    const reuse = await ctx.request("POST", "/api/v1/auth/refresh", { body: { refreshToken } });
    expect(await errorOf(reuse)).toEqual({ status: 401, error: "Token has been revoked" });
    const next = await ctx.request("POST", "/api/v1/auth/refresh", { body: { refreshToken: pair.refreshToken } });
    expect(await errorOf(next)).toEqual({ status: 401, error: "Token has been revoked" });
  });

  test("refresh tokens are stored hashed and survive a restart", async () => {
    const { refreshToken } = await login(ctx);
    const rows = ctx.database.sqlite.query<{ token_hash: string }, []>("SELECT token_hash FROM refresh_tokens").all();
    expect(rows.length).toBe(1);
    expect(rows[0]!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows.some((r) => r.token_hash.includes(refreshToken))).toBe(false);
    ctx = await ctx.restart();
    expect((await ctx.request("POST", "/api/v1/auth/refresh", { body: { refreshToken } })).status).toBe(200);
  });

  test("an expired refresh token → Token expired; missing → 400", async () => {
    const { refreshToken } = await login(ctx);
    ctx.clock.advance(24 * 3600_000 + 1000);
    expect(await errorOf(await ctx.request("POST", "/api/v1/auth/refresh", { body: { refreshToken } }))).toEqual({
      status: 401,
      error: "Token expired",
    });
    const missing = await ctx.request("POST", "/api/v1/auth/refresh", { body: {} });
    expect(await errorOf(missing)).toEqual({ status: 400, error: "Refresh token is required" });
  });

  test("garbage refresh token → Invalid token", async () => {
    expect(
      await errorOf(await ctx.request("POST", "/api/v1/auth/refresh", { body: { refreshToken: "x.y.z" } })),
    ).toEqual({
      status: 401,
      error: "Invalid token",
    });
  });
});
