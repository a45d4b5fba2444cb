import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { hotp } from "../../src/auth/totp.ts";
import { childEnv, run, SOURCE_CLI } from "../cli/process-helpers.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, createTestContext, json, login, type TestContext } from "../helpers/context.ts";
import { totpCode as code, fromBase32 } from "../helpers/totp.ts";

// The second factor (PRODUCT.md §2): RFC 6238 TOTP, SHA-1, 6 digits, 30 s steps, one step of
// drift. The codes are computed here by an implementation of the test's own, checked against the
// RFC's appendix B vectors, never by the service's code (test/helpers/totp.ts).

const RFC_SECRET = Buffer.from("12345678901234567890", "ascii");
/** RFC 6238 appendix B, SHA-1 column: (T in seconds, 8-digit TOTP). */
const RFC_VECTORS: Array<[number, string]> = [
  [59, "94287082"],
  [1111111109, "07081804"],
  [1111111111, "14050471"],
  [1234567890, "89005924"],
  [2000000000, "69279037"],
  [20000000000, "65353130"],
];

describe("RFC 6238 appendix B (SHA-1)", () => {
  test.each(RFC_VECTORS)("T=%d gives %s, by the test's TOTP and by the service's HOTP core", (t, expected) => {
    expect(code(RFC_SECRET, t * 1000, 8)).toBe(expected);
    expect(hotp(RFC_SECRET, Math.floor(t / 30), 8)).toBe(expected);
  });
});

let ctx: TestContext;
let token: string;
beforeEach(async () => {
  ctx = await createTestContext();
  token = (await login(ctx)).token;
});
afterEach(() => ctx.close());

const LOGIN = "/api/v1/auth/login";
const loginWith = (extra: Record<string, unknown> = {}) =>
  ctx.request("POST", LOGIN, { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD, ...extra } });

/** Sets up and enables the second factor; answers the secret's bytes and the recovery codes. */
async function enable(): Promise<{ key: Buffer; secret: string; recoveryCodes: string[] }> {
  const setup = await ctx.request("POST", "/api/v1/auth/2fa/setup", { token });
  expect(setup.status).toBe(200);
  const { secret, otpauthUrl } = await json(setup);
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  expect(otpauthUrl).toBe(
    `otpauth://totp/Trading%20Agent:${encodeURIComponent(ADMIN_EMAIL)}?secret=${secret}&issuer=Trading%20Agent&algorithm=SHA1&digits=6&period=30`,
  );
  const key = fromBase32(secret);
  const res = await ctx.request("POST", "/api/v1/auth/2fa/enable", {
    token,
    body: { code: code(key, ctx.clock.now()) },
  });
  expect(res.status).toBe(200);
  const body = await json(res);
  expect(body.recoveryCodes).toHaveLength(10);
  expect(new Set(body.recoveryCodes).size).toBe(10);
  return { key, secret, recoveryCodes: body.recoveryCodes };
}

describe("setup and enable", () => {
  test("setup changes nothing until enable confirms a code; a wrong code is refused", async () => {
    const setup = await json(await ctx.request("POST", "/api/v1/auth/2fa/setup", { token }));
    expect((await loginWith()).status).toBe(200);
    const key = fromBase32(setup.secret);
    const wrong = await ctx.request("POST", "/api/v1/auth/2fa/enable", {
      token,
      body: { code: code(key, ctx.clock.now() + 5 * 60_000) },
    });
    expect(wrong.status).toBe(400);
    expect(await json(wrong)).toMatchObject({ error: "Invalid two-factor code", code: "VALIDATION_ERROR" });
    expect((await loginWith()).status).toBe(200);
  });

  test("enable without setup is 400; setup or enable once on is 409; a missing code is 400", async () => {
    const early = await ctx.request("POST", "/api/v1/auth/2fa/enable", { token, body: { code: "123456" } });
    expect(early.status).toBe(400);
    await enable();
    expect((await ctx.request("POST", "/api/v1/auth/2fa/setup", { token })).status).toBe(409);
    const missing = await ctx.request("POST", "/api/v1/auth/2fa/disable", { token, body: {} });
    expect(missing.status).toBe(400);
    expect((await json(missing)).error).toBe("code is required");
  });

  test("GET /auth/me says whether the second factor is on: not after setup, yes after enable, not after disable", async () => {
    const me = async () => json(await ctx.request("GET", "/api/v1/auth/me", { token }));
    expect(await me()).toMatchObject({ email: ADMIN_EMAIL, twoFactorEnabled: false });
    await ctx.request("POST", "/api/v1/auth/2fa/setup", { token });
    expect((await me()).twoFactorEnabled).toBe(false);
    const { key } = await enable();
    expect((await me()).twoFactorEnabled).toBe(true);
    ctx.clock.advance(30_000);
    const off = await ctx.request("POST", "/api/v1/auth/2fa/disable", {
      token,
      body: { code: code(key, ctx.clock.now()) },
    });
    expect(off.status).toBe(200);
    expect((await me()).twoFactorEnabled).toBe(false);
  });

  test("the secret is sealed at rest: the database file holds neither it nor a recovery code", async () => {
    const { secret, recoveryCodes } = await enable();
    const db = new Database(ctx.config.DATABASE_PATH, { readonly: true });
    try {
      const row = db.query("SELECT totp_secret FROM users WHERE email = ?").get(ADMIN_EMAIL) as { totp_secret: string };
      expect(row.totp_secret).toMatch(/^v1\./);
      const dump = JSON.stringify([
        db.query("SELECT * FROM users").all(),
        db.query("SELECT * FROM recovery_codes").all(),
      ]);
      expect(dump).not.toContain(secret);
      for (const c of recoveryCodes) expect(dump).not.toContain(c);
    } finally {
      db.close();
    }
  });
});

describe("login with the second factor on", () => {
  test("without a code 401 'Two-factor code required'; wrong 401 'Invalid two-factor code'; right 200", async () => {
    const { key } = await enable();
    ctx.clock.advance(30_000);
    const missing = await loginWith();
    expect(missing.status).toBe(401);
    expect(await json(missing)).toMatchObject({ error: "Two-factor code required", code: "AUTHENTICATION_ERROR" });
    const wrong = await loginWith({ code: code(key, ctx.clock.now() + 10 * 60_000) });
    expect(wrong.status).toBe(401);
    expect((await json(wrong)).error).toBe("Invalid two-factor code");
    expect((await loginWith({ code: code(key, ctx.clock.now()) })).status).toBe(200);
  });

  test("a code is accepted once; the next step's code then works; one step of drift either way", async () => {
    const { key } = await enable();
    ctx.clock.advance(30_000);
    const now = code(key, ctx.clock.now());
    expect((await loginWith({ code: now })).status).toBe(200);
    const reuse = await loginWith({ code: now });
    expect(reuse.status).toBe(401);
    expect((await json(reuse)).error).toBe("Invalid two-factor code");
    // The phone's clock runs 30 s ahead: its code is the next step's.
    expect((await loginWith({ code: code(key, ctx.clock.now() + 30_000) })).status).toBe(200);
    // Now the step before that one is spent too: an older code after a newer one is refused.
    ctx.clock.advance(90_000);
    expect((await loginWith({ code: code(key, ctx.clock.now() - 30_000) })).status).toBe(200);
    // Two steps away is outside the drift.
    expect((await loginWith({ code: code(key, ctx.clock.now() + 60_000) })).status).toBe(401);
  });

  test("a code typed as the app shows it, with a space between the groups, logs in as the Security page takes it", async () => {
    const { key } = await enable();
    ctx.clock.advance(30_000);
    const digits = code(key, ctx.clock.now());
    expect((await loginWith({ code: `${digits.slice(0, 3)} ${digits.slice(3)}` })).status).toBe(200);
  });

  test("a recovery code works once, with or without its dash and in any case", async () => {
    const { recoveryCodes } = await enable();
    const [first, second] = recoveryCodes as [string, string];
    expect((await loginWith({ code: first })).status).toBe(200);
    const again = await loginWith({ code: first });
    expect(again.status).toBe(401);
    expect((await json(again)).error).toBe("Invalid two-factor code");
    expect((await loginWith({ code: second.replace("-", "").toUpperCase() })).status).toBe(200);
  });

  test("missing and wrong codes count toward the lockout: the fifth locks (423) even with a right code after", async () => {
    const { key } = await enable();
    ctx.clock.advance(30_000);
    for (const extra of [{}, { code: "000000" }, {}, { code: "not-a-code" }]) {
      expect((await loginWith(extra)).status).toBe(401);
    }
    const fifth = await loginWith({ code: "111111" });
    expect(fifth.status).toBe(423);
    expect((await loginWith({ code: code(key, ctx.clock.now()) })).status).toBe(423);
  });

  test("disable needs a current code; after it the password alone logs in", async () => {
    const { key } = await enable();
    ctx.clock.advance(30_000);
    const wrong = await ctx.request("POST", "/api/v1/auth/2fa/disable", { token, body: { code: "123456" } });
    expect(wrong.status).toBe(400);
    expect((await json(wrong)).error).toBe("Invalid two-factor code");
    const ok = await ctx.request("POST", "/api/v1/auth/2fa/disable", {
      token,
      body: { code: code(key, ctx.clock.now()) },
    });
    expect(ok.status).toBe(200);
    expect((await loginWith()).status).toBe(200);
    const again = await ctx.request("POST", "/api/v1/auth/2fa/disable", { token, body: { code: "123456" } });
    expect(again.status).toBe(409);
  });
});

describe("trading-agent reset-2fa EMAIL", () => {
  test("removes the second factor while the service runs; a second run says it was off; unknown user exits 1", async () => {
    await enable();
    expect((await loginWith()).status).toBe(401);
    const env = childEnv({ DATABASE_PATH: ctx.config.DATABASE_PATH });
    const r = await run([...SOURCE_CLI, "reset-2fa", ADMIN_EMAIL.toUpperCase()], { cwd: ctx.dir, env });
    expect(r).toEqual({ code: 0, stdout: `two-factor login turned off for ${ADMIN_EMAIL}\n`, stderr: "" });
    expect((await loginWith()).status).toBe(200);
    const again = await run([...SOURCE_CLI, "reset-2fa", ADMIN_EMAIL], { cwd: ctx.dir, env });
    expect(again).toEqual({ code: 0, stdout: `${ADMIN_EMAIL} had no two-factor login\n`, stderr: "" });
    const unknown = await run([...SOURCE_CLI, "reset-2fa", "nobody@example.com"], { cwd: ctx.dir, env });
    expect(unknown).toEqual({ code: 1, stdout: "", stderr: "error: no user with email nobody@example.com\n" });
    const usage = await run([...SOURCE_CLI, "reset-2fa"], { cwd: ctx.dir, env });
    expect(usage.code).toBe(2);
  });
});
