import { afterEach, beforeEach, describe, expect, test } from "bun:test";
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

const post = (body: unknown, headers?: Record<string, string>) =>
  ctx.request("POST", "/api/v1/auth/login", { body, headers });

describe("POST /auth/login", () => {
  test("200 with tokens and the user", async () => {
    const res = await post({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(Object.keys(body).sort()).toEqual(["accessToken", "refreshToken", "user"]);
    expect(Object.keys(body.user).sort()).toEqual(["createdAt", "email", "id"]);
    expect(body.user.email).toBe(ADMIN_EMAIL);
    expect(body.user.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(body.user.createdAt).toISOString()).toBe(body.user.createdAt);
  });

  test("email is case-insensitive", async () => {
    const res = await post({ email: ADMIN_EMAIL.toUpperCase(), password: ADMIN_PASSWORD });
    expect(res.status).toBe(200);
  });

  test.each([
    [{ password: ADMIN_PASSWORD }],
    [{ email: ADMIN_EMAIL }],
    [{}],
    [{ email: "", password: "" }],
    [{ email: 5, password: ADMIN_PASSWORD }],
  ])("400 when a field is missing or wrong: %j", async (body) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    const b = await json(res);
    expect(b.success).toBe(false);
    expect(b.error).toBe("Email and password are required");
    expect(b.code).toBe("VALIDATION_ERROR");
  });

  test("401 for a wrong password and for an unknown email, same text", async () => {
    for (const body of [
      { email: ADMIN_EMAIL, password: "wrong" },
      { email: "nobody@example.com", password: ADMIN_PASSWORD },
    ]) {
      const res = await post(body);
      expect(res.status).toBe(401);
      expect(await json(res)).toEqual({
        success: false,
        error: "Invalid email or password",
        code: "AUTHENTICATION_ERROR",
      });
    }
  });

  test("malformed JSON gives the spec's 400 shape", async () => {
    const res = await ctx.request("POST", "/api/v1/auth/login", {
      rawBody: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      success: false,
      error: "Malformed JSON in request body",
      code: "VALIDATION_ERROR",
    });
  });
});

describe("lockout", () => {
  const fail = () => post({ email: ADMIN_EMAIL, password: "wrong-password" });

  test("5 consecutive failures lock for 15 minutes; the lock expires; the counter resets", async () => {
    for (let i = 1; i <= 4; i++) expect((await fail()).status).toBe(401);
    const locked = await fail();
    expect(locked.status).toBe(423);
    const body = await json(locked);
    expect(body.error).toBe("Account is locked due to too many failed login attempts");
    expect(body.lockedUntil).toBe(new Date(ctx.clock.now() + 15 * 60_000).toISOString());

    // Even the right password is refused while locked.
    ctx.clock.advance(14 * 60_000 + 59_000);
    const still = await post({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    expect(still.status).toBe(423);
    expect((await json(still)).lockedUntil).toBe(body.lockedUntil);

    // After 15 minutes the lock is gone and the counter starts from zero.
    ctx.clock.advance(1_000);
    for (let i = 1; i <= 4; i++) expect((await fail()).status).toBe(401);
    expect((await post({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).status).toBe(200);
  });

  test("a successful login resets the failure counter", async () => {
    for (let i = 0; i < 4; i++) expect((await fail()).status).toBe(401);
    expect((await post({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await fail()).status).toBe(401);
    expect((await post({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).status).toBe(200);
  });

  test("while locked no password is hashed", async () => {
    for (let i = 0; i < 5; i++) await fail();
    let verifies = 0;
    const original = ctx.services.passwords.verify;
    ctx.services.passwords.verify = async (p, h) => {
      verifies++;
      return original(p, h);
    };
    expect((await post({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).status).toBe(423);
    expect(verifies).toBe(0);
  });

  test("lockout is per account", async () => {
    const other = await createUser(ctx);
    for (let i = 0; i < 5; i++) await fail();
    expect((await post({ email: other.email, password: other.password })).status).toBe(200);
  });
});

describe("per-address login limit", () => {
  test("the 21st attempt in a minute from one address is 429, another address is unaffected", async () => {
    const c = await createTestContext({ env: { TRUST_PROXY: "true" } });
    try {
      const from = (ip: string) =>
        c.request("POST", "/api/v1/auth/login", {
          body: { email: "x@example.com", password: "y" },
          headers: { "x-forwarded-for": ip },
        });
      for (let i = 0; i < 20; i++) expect((await from("203.0.113.5")).status).toBe(401);
      const limited = await from("203.0.113.5");
      expect(limited.status).toBe(429);
      const body = await json(limited);
      expect(body.error).toBe("Too many requests. Please try again later.");
      expect(body.retryAfter).toBe(60);
      expect(limited.headers.get("retry-after")).toBe("60");
      expect((await from("198.51.100.7")).status).toBe(401);
      c.clock.advance(60_001);
      expect((await from("203.0.113.5")).status).toBe(401);
    } finally {
      await c.close();
    }
  });

  test("the limiter runs before any hashing", async () => {
    const c = await createTestContext({ env: { LOGIN_RATE_LIMIT_PER_MINUTE: "1" } });
    try {
      expect(
        (await c.request("POST", "/api/v1/auth/login", { body: { email: ADMIN_EMAIL, password: "bad" } })).status,
      ).toBe(401);
      let verifies = 0;
      c.services.passwords.verify = async () => {
        verifies++;
        return true;
      };
      expect(
        (await c.request("POST", "/api/v1/auth/login", { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } }))
          .status,
      ).toBe(429);
      expect(verifies).toBe(0);
    } finally {
      await c.close();
    }
  });
});

describe("POST /auth/register", () => {
  test("403 when registration is disabled", async () => {
    const res = await ctx.request("POST", "/api/v1/auth/register", {
      body: { email: "new@example.com", password: "Str0ng!pass" },
    });
    expect(res.status).toBe(403);
    expect(await json(res)).toEqual({ success: false, error: "Registration is disabled", code: "AUTHORIZATION_ERROR" });
  });

  test("201 with the login body, 400 weak password, 409 duplicate", async () => {
    const c = await createTestContext({ env: { ALLOW_REGISTRATION: "true" } });
    try {
      const weak = await c.request("POST", "/api/v1/auth/register", {
        body: { email: "new@example.com", password: "weakpass" },
      });
      expect(weak.status).toBe(400);
      expect((await json(weak)).error).toBe(
        "Password must be at least 8 characters and contain at least one uppercase letter, one lowercase letter, one number and one special character",
      );
      const ok = await c.request("POST", "/api/v1/auth/register", {
        body: { email: "new@example.com", password: "Str0ng!pass" },
      });
      expect(ok.status).toBe(201);
      const body = await json(ok);
      expect(body.user.email).toBe("new@example.com");
      const me = await c.request("GET", "/api/v1/auth/me", { token: body.accessToken });
      expect(me.status).toBe(200);
      const dup = await c.request("POST", "/api/v1/auth/register", {
        body: { email: "NEW@example.com", password: "Str0ng!pass" },
      });
      expect(dup.status).toBe(409);
      expect((await json(dup)).error).toBe("Email already registered");
      const bad = await c.request("POST", "/api/v1/auth/register", {
        body: { email: "not-an-email", password: "Str0ng!pass" },
      });
      expect(bad.status).toBe(400);
    } finally {
      await c.close();
    }
  });
});

test("the password hash is argon2id and the password itself is nowhere in the database", async () => {
  await login(ctx);
  const row = ctx.database.sqlite.query<{ password_hash: string }, []>("SELECT password_hash FROM users").get();
  expect(row?.password_hash.startsWith("$argon2id$")).toBe(true);
  ctx.database.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const file = await Bun.file(ctx.database.path).text();
  expect(file.includes(ADMIN_PASSWORD)).toBe(false);
  expect(ctx.logs.join("\n").includes(ADMIN_PASSWORD)).toBe(false);
});
