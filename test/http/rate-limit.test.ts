import { afterEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { rateLimit, SlidingWindowLimiter } from "../../src/http/rate-limit.ts";
import { createTestContext, json, type TestContext } from "../helpers/context.ts";

// SPEC "Limits" and "Errors" (429): the sliding-window limiter, its headers and 429 body through
// the app's one error handler, the window sliding on an injected clock, and memory staying bounded.

const MINUTE = 60_000;
const TOO_MANY = { success: false, error: "Too many requests. Please try again later.", code: "RATE_LIMITED" };

describe("SlidingWindowLimiter", () => {
  test("the 120th hit in a window is allowed, the 121st refused until the window moves on", () => {
    const clock = new ManualClock();
    const limiter = new SlidingWindowLimiter(120, MINUTE, clock);
    for (let i = 1; i <= 120; i++) {
      const d = limiter.hit("k");
      expect(d).toEqual({ allowed: true, limit: 120, remaining: 120 - i, resetSeconds: 60 });
    }
    expect(limiter.hit("k")).toEqual({ allowed: false, limit: 120, remaining: 0, resetSeconds: 60 });
    clock.advance(MINUTE - 1);
    expect(limiter.hit("k")).toEqual({ allowed: false, limit: 120, remaining: 0, resetSeconds: 1 });
    clock.advance(1);
    expect(limiter.hit("k").allowed).toBe(true);
  });

  test("the window slides: hits leave it one by one as they age, not all at a fixed boundary", () => {
    const clock = new ManualClock();
    const limiter = new SlidingWindowLimiter(120, MINUTE, clock);
    for (let i = 0; i < 60; i++) limiter.hit("k"); // t = 0
    clock.advance(30_000);
    for (let i = 0; i < 60; i++) expect(limiter.hit("k").allowed).toBe(true); // t = 30 s
    // Full: the oldest hit (t = 0) leaves in 30 s.
    expect(limiter.hit("k")).toEqual({ allowed: false, limit: 120, remaining: 0, resetSeconds: 30 });
    clock.advance(30_000); // t = 60 s: the first 60 have left, the second 60 are still counted
    for (let i = 0; i < 60; i++) expect(limiter.hit("k").allowed, `hit ${i}`).toBe(true);
    expect(limiter.hit("k")).toEqual({ allowed: false, limit: 120, remaining: 0, resetSeconds: 30 });
  });

  test("refused hits are not counted (a client hammering while limited is not locked out longer)", () => {
    const clock = new ManualClock();
    const limiter = new SlidingWindowLimiter(5, MINUTE, clock);
    for (let i = 0; i < 5; i++) limiter.hit("k");
    clock.advance(59_000);
    for (let i = 0; i < 1000; i++) expect(limiter.hit("k").allowed).toBe(false);
    clock.advance(1_000);
    expect(limiter.hit("k")).toMatchObject({ allowed: true, remaining: 4 });
  });

  test("keys are independent", () => {
    const limiter = new SlidingWindowLimiter(2, MINUTE, new ManualClock());
    limiter.hit("a");
    limiter.hit("a");
    expect(limiter.hit("a").allowed).toBe(false);
    expect(limiter.hit("b")).toMatchObject({ allowed: true, remaining: 1 });
  });

  test("memory is bounded: windows that have emptied are swept, so the key count shrinks", () => {
    const clock = new ManualClock();
    const limiter = new SlidingWindowLimiter(10, MINUTE, clock);
    for (let i = 0; i < 1000; i++) limiter.hit(`client-${i}`);
    expect(limiter.size).toBe(1000);
    clock.advance(30_000);
    limiter.hit("late");
    expect(limiter.size).toBe(1001); // nothing expired yet
    clock.advance(30_001);
    // The next hit after a full window sweeps on its own: only "late" (30 s old) and the new key stay.
    limiter.hit("new");
    expect(limiter.size).toBe(2);
    clock.advance(MINUTE);
    limiter.sweep();
    expect(limiter.size).toBe(0);
  });
});

describe("through the app", () => {
  const contexts: TestContext[] = [];
  afterEach(async () => {
    for (const ctx of contexts.splice(0)) await ctx.close();
  });

  /** A context whose app has one extra route limited by the 120/min signals limiter. */
  async function limitedApp() {
    const ctx = await createTestContext();
    contexts.push(ctx);
    ctx.app.post(
      "/test/limited",
      rateLimit(ctx.services.limiters.signals, (c) => `test:${c.req.header("x-client") ?? "anon"}`),
      (c) => c.json({ ok: true }, 201),
    );
    const send = (client = "a") => ctx.request("POST", "/test/limited", { headers: { "x-client": client } });
    return { ctx, send };
  }

  test("120 pass with RateLimit headers; the 121st is 429 with the spec body, retryAfter and Retry-After", async () => {
    const { ctx, send } = await limitedApp();
    for (let i = 1; i <= 120; i++) {
      const res = await send();
      expect(res.status, `request ${i}`).toBe(201);
      expect(res.headers.get("ratelimit-limit")).toBe("120");
      expect(res.headers.get("ratelimit-remaining")).toBe(String(120 - i));
      expect(res.headers.get("ratelimit-reset")).toBe("60");
    }
    ctx.clock.advance(15_000);
    const limited = await send();
    expect(limited.status).toBe(429);
    expect(await json(limited)).toEqual({ ...TOO_MANY, retryAfter: 45 });
    expect(limited.headers.get("retry-after")).toBe("45");
    expect(limited.headers.get("ratelimit-limit")).toBe("120");
    expect(limited.headers.get("ratelimit-remaining")).toBe("0");
    expect(limited.headers.get("ratelimit-reset")).toBe("45");
    expect(limited.headers.get("content-type")).toStartWith("application/json");
    // A 429 is still an ordinary response: request id and security headers.
    expect(limited.headers.get("x-request-id")).toBeTruthy();
    expect(limited.headers.get("x-content-type-options")).toBe("nosniff");
    expect(limited.headers.get("referrer-policy")).toBe("no-referrer");

    expect((await send("b")).status).toBe(201); // another key is unaffected
    ctx.clock.advance(45_000);
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers.get("ratelimit-remaining")).toBe("119");
  });

  test("login per address (20/min): without TRUST_PROXY every caller shares the socket address and X-Forwarded-For is ignored", async () => {
    const ctx = await createTestContext();
    contexts.push(ctx);
    const attempt = (xff?: string) =>
      ctx.request("POST", "/api/v1/auth/login", { body: {}, headers: xff ? { "x-forwarded-for": xff } : {} });
    for (let i = 1; i <= 20; i++) {
      const res = await attempt(`198.51.100.${i}`); // spoofed addresses do not buy more attempts
      expect(res.status, `attempt ${i}`).toBe(400);
      expect((await json(res)).error).toBe("Email and password are required");
      expect(res.headers.get("ratelimit-remaining")).toBe(String(20 - i));
    }
    const limited = await attempt("203.0.113.99");
    expect(limited.status).toBe(429);
    expect(await json(limited)).toEqual({ ...TOO_MANY, retryAfter: 60 });
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(limited.headers.get("ratelimit-limit")).toBe("20");
    // Registration shares the same per-address budget.
    expect((await ctx.request("POST", "/api/v1/auth/register", { body: {} })).status).toBe(429);
    ctx.clock.advance(MINUTE);
    expect((await attempt()).status).toBe(400);
  });

  test("login per address behind trusted proxies: the last X-Forwarded-For entry no trusted proxy added is the address", async () => {
    const ctx = await createTestContext({ env: { TRUST_PROXY: "true", TRUSTED_PROXIES: "10.0.0.0/8" } });
    contexts.push(ctx);
    const attempt = (xff: string) =>
      ctx.request("POST", "/api/v1/auth/login", { body: {}, headers: { "x-forwarded-for": xff } });
    // A chain of trusted proxies in front of the client: the client is the address before them.
    for (let i = 0; i < 20; i++) expect((await attempt(`203.0.113.5, 10.0.0.${i}`)).status).toBe(400);
    expect((await attempt("203.0.113.5")).status).toBe(429);
    // What a client writes before its own address (a proxy that appends) does not pick its address.
    expect((await attempt("203.0.113.6, 203.0.113.5")).status).toBe(429);
    expect((await attempt("203.0.113.5, 203.0.113.6")).status).toBe(400);
  });
});
