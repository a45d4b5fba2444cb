import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createApiKey, createTestContext, createUser, json, login, type TestContext } from "../helpers/context.ts";

let ctx: TestContext;
let token: string;
let key: string;
const MINT = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
// Real mint addresses (tokenAddress must be a base58 32-byte Solana address): USDC, WIF, JUP.
const MINT_A = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const MINT_B = "EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm";
const OTHER = "JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN";
const base = {
  tokenAddress: MINT,
  symbol: "BONK",
  signalType: "buy",
  signalStrength: 4,
  activationReason: "breakout",
  source: "bot",
};

beforeEach(async () => {
  ctx = await createTestContext();
  token = (await login(ctx)).token;
  key = (await createApiKey(ctx, token, ["signals"])).key;
});
afterEach(() => ctx.close());

const post = (body: unknown, headers?: Record<string, string>, apiKey = key) =>
  ctx.request("POST", "/api/v1/trading-signals", { apiKey, body, headers });

describe("POST /trading-signals", () => {
  test("201 with the signal, every field", async () => {
    const res = await post(base);
    expect(res.status).toBe(201);
    const s = await json(res);
    expect(Object.keys(s).sort()).toEqual([
      "activationReason",
      "createdAt",
      "id",
      "signalStrength",
      "signalType",
      "source",
      "symbol",
      "tokenAddress",
      "updatedAt",
    ]);
    expect(s).toMatchObject(base);
    expect(Number.isInteger(s.id)).toBe(true);
    expect(s.createdAt).toBe(new Date(ctx.clock.now()).toISOString());
  });

  test("optional fields may be left out", async () => {
    const res = await post({ tokenAddress: MINT, signalType: "buy", signalStrength: 1 });
    expect(res.status).toBe(201);
    expect(await json(res)).toMatchObject({ symbol: null, activationReason: null, source: null });
  });

  test("the 201's signal is the stored row, as GET reads it back", async () => {
    for (const body of [base, { tokenAddress: ` ${MINT}`, signalType: " sell ", signalStrength: 2, symbol: null }]) {
      const created = await json(await post(body));
      const { processing: _, ...stored } = await json(
        await ctx.request("GET", `/api/v1/trading-signals/${created.id}`, { token }),
      );
      expect(created).toEqual(stored);
    }
  });

  test.each([
    [{ ...base, signalStrength: 0 }, "Signal strength must be between 1 and 5"],
    [{ ...base, signalStrength: 6 }, "Signal strength must be between 1 and 5"],
    [{ ...base, signalStrength: 2.5 }, "Signal strength must be between 1 and 5"],
    [{ ...base, signalStrength: "4" }, "Signal strength must be between 1 and 5"],
    [{ ...base, signalStrength: undefined }, "Signal strength is required"],
    [{ ...base, tokenAddress: undefined }, "Token address is required"],
    [{ ...base, tokenAddress: "x".repeat(256) }, "Token address must be at most 255 characters"],
    [{ ...base, tokenAddress: "BONK" }, "Token address must be a base58 Solana address (32 bytes)"],
    [
      { ...base, tokenAddress: "0x6982508145454Ce325dDbE47a25d4ec3d2311933" },
      "Token address must be a base58 Solana address (32 bytes)",
    ],
    [{ ...base, tokenAddress: `${MINT}0` }, "Token address must be a base58 Solana address (32 bytes)"],
    [{ ...base, tokenAddress: "1".repeat(44) }, "Token address must be a base58 Solana address (32 bytes)"],
    [{ ...base, symbol: "x".repeat(51) }, "Symbol must be at most 50 characters"],
    [{ ...base, signalType: undefined }, "Signal type is required"],
    [{ ...base, signalType: "x".repeat(51) }, "Signal type must be at most 50 characters"],
    [{ ...base, source: "x".repeat(101) }, "Source must be at most 100 characters"],
  ])("400 %#", async (body, message) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    const b = await json(res);
    expect(b.error).toBe(message);
    expect(b.code).toBe("VALIDATION_ERROR");
  });

  test("limits at the boundary pass: 50, 50, 100 characters; strength 1 and 5", async () => {
    for (const body of [
      {
        ...base,
        symbol: "y".repeat(50),
        signalType: "z".repeat(50),
        source: "s".repeat(100),
      },
      { ...base, signalStrength: 1 },
      { ...base, signalStrength: 5 },
    ])
      expect((await post(body)).status).toBe(201);
  });

  test("a JWT is not accepted: 401 API key required", async () => {
    const res = await ctx.request("POST", "/api/v1/trading-signals", { token, body: base });
    expect(res.status).toBe(401);
    expect((await json(res)).error).toBe("API key required");
  });

  test("the 120th request of a key in a minute passes, the 121st is 429; other keys are unaffected", async () => {
    for (let i = 1; i <= 120; i++) {
      const res = await post(base);
      expect(res.status).toBe(201);
      if (i === 120) expect(res.headers.get("ratelimit-remaining")).toBe("0");
    }
    const limited = await post(base);
    expect(limited.status).toBe(429);
    const body = await json(limited);
    expect(body).toEqual({
      success: false,
      error: "Too many requests. Please try again later.",
      code: "RATE_LIMITED",
      retryAfter: 60,
    });
    expect(limited.headers.get("retry-after")).toBe("60");
    const other = (await createApiKey(ctx, token, ["signals"])).key;
    expect((await post(base, undefined, other)).status).toBe(201);
    ctx.clock.advance(60_000);
    expect((await post(base)).status).toBe(201);
  });
});

describe("Idempotency-Key", () => {
  test("a retry with the same key and body returns the original signal and triggers nothing", async () => {
    const first = await json(await post(base, { "idempotency-key": "abc" }));
    let accepted = 0;
    ctx.services.signalIntake.onAccepted(() => accepted++);
    const again = await post(base, { "idempotency-key": "abc" });
    expect(again.status).toBe(201);
    expect(await json(again)).toEqual(first);
    expect(accepted).toBe(0);
    const n = ctx.database.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM trading_signals").get()!.n;
    expect(n).toBe(1);
  });

  test("the same key with a different body is 409", async () => {
    await post(base, { "idempotency-key": "abc" });
    const res = await post({ ...base, signalStrength: 5 }, { "idempotency-key": "abc" });
    expect(res.status).toBe(409);
    expect((await json(res)).code).toBe("CONFLICT");
  });

  test("keys are per API key and last 24 hours", async () => {
    const a = await json(await post(base, { "idempotency-key": "k" }));
    const other = (await createApiKey(ctx, token, ["signals"])).key;
    const b = await json(await post(base, { "idempotency-key": "k" }, other));
    expect(b.id).not.toBe(a.id);
    ctx.clock.advance(24 * 3600_000 + 1);
    const c = await json(await post(base, { "idempotency-key": "k" }));
    expect(c.id).not.toBe(a.id);
  });

  test("20 concurrent identical posts with one key → one signal", async () => {
    let accepted = 0;
    ctx.services.signalIntake.onAccepted(() => accepted++);
    const responses = await Promise.all(Array.from({ length: 20 }, () => post(base, { "idempotency-key": "burst" })));
    const ids = new Set<number>();
    for (const r of responses) {
      expect(r.status).toBe(201);
      ids.add((await json(r)).id);
    }
    expect(ids.size).toBe(1);
    expect(accepted).toBe(1);
  });
});

describe("GET, PUT, DELETE", () => {
  async function seed() {
    const made = [];
    for (const [i, body] of [
      { ...base, tokenAddress: MINT_A, signalType: "buy" },
      { ...base, tokenAddress: MINT_B, signalType: "sell" },
      { ...base, tokenAddress: MINT_A, signalType: "sell" },
    ].entries()) {
      if (i > 0) ctx.clock.advance(60_000);
      made.push(await json(await post(body)));
    }
    return made;
  }

  test("list newest first, only the caller's signals; every filter excludes non-matching rows", async () => {
    const [s1, s2, s3] = await seed();
    const other = await createUser(ctx);
    const otherKey = (await createApiKey(ctx, other.token, ["signals"])).key;
    await post({ ...base, tokenAddress: MINT_A }, undefined, otherKey);

    const get = async (q: string) =>
      (await json(await ctx.request("GET", `/api/v1/trading-signals${q}`, { token }))).map((s: any) => s.id);
    expect(await get("")).toEqual([s3.id, s2.id, s1.id]);
    expect(await get(`?tokenAddress=${MINT_A}`)).toEqual([s3.id, s1.id]);
    expect(await get("?signalType=sell")).toEqual([s3.id, s2.id]);
    expect(await get(`?startDate=${s2.createdAt}`)).toEqual([s3.id, s2.id]);
    expect(await get(`?endDate=${s2.createdAt}`)).toEqual([s2.id, s1.id]);
    expect(await get(`?startDate=${s2.createdAt}&endDate=${s2.createdAt}`)).toEqual([s2.id]);
    expect(await get("?limit=1&offset=1")).toEqual([s2.id]);
    // A signals-scoped key reads too.
    const viaKey = await ctx.request("GET", "/api/v1/trading-signals", { apiKey: key });
    expect(viaKey.status).toBe(200);
  });

  test("limit bounds: default 100, max 1000, invalid values 400", async () => {
    for (const q of ["limit=0", "limit=1001", "limit=abc", "offset=-1", "startDate=yesterday"]) {
      const res = await ctx.request("GET", `/api/v1/trading-signals?${q}`, { token });
      expect(res.status).toBe(400);
    }
    expect((await ctx.request("GET", "/api/v1/trading-signals?limit=1000", { token })).status).toBe(200);
    const me = await json(await ctx.request("GET", "/api/v1/auth/me", { token }));
    for (let i = 0; i < 101; i++) ctx.services.signals.create(me.id, "k", base);
    expect((await json(await ctx.request("GET", "/api/v1/trading-signals", { token }))).length).toBe(100);
  });

  test("GET one, PUT, DELETE; 400 for a non-integer id; 404 for another user's", async () => {
    const [s1] = await seed();
    const one = await ctx.request("GET", `/api/v1/trading-signals/${s1.id}`, { token });
    // The detail adds processing (issue 13; test/signals/signal-decisions.test.ts): no agents here.
    const { processing, ...detail } = await json(one);
    expect(detail).toEqual(s1);
    expect(processing.evaluations).toEqual([]);
    ctx.clock.advance(1000);
    const put = await ctx.request("PUT", `/api/v1/trading-signals/${s1.id}`, {
      token,
      body: { symbol: "NEW", activationReason: "edited" },
    });
    expect(put.status).toBe(200);
    const updated = await json(put);
    expect(updated).toMatchObject({ symbol: "NEW", activationReason: "edited", tokenAddress: MINT_A });
    expect(updated.updatedAt).not.toBe(s1.updatedAt);
    expect((await ctx.request("PUT", `/api/v1/trading-signals/${s1.id}`, { token, body: {} })).status).toBe(400);
    expect(
      (await ctx.request("PUT", `/api/v1/trading-signals/${s1.id}`, { token, body: { signalStrength: 9 } })).status,
    ).toBe(400);

    const bad = await ctx.request("GET", "/api/v1/trading-signals/abc", { token });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error).toBe("Invalid signal ID format");

    const other = await createUser(ctx);
    expect((await ctx.request("GET", `/api/v1/trading-signals/${s1.id}`, { token: other.token })).status).toBe(404);
    expect(
      (await ctx.request("PUT", `/api/v1/trading-signals/${s1.id}`, { token: other.token, body: { symbol: "x" } }))
        .status,
    ).toBe(404);
    expect((await ctx.request("DELETE", `/api/v1/trading-signals/${s1.id}`, { token: other.token })).status).toBe(404);

    const del = await ctx.request("DELETE", `/api/v1/trading-signals/${s1.id}`, { token });
    expect(await json(del)).toEqual({ success: true });
    const gone = await ctx.request("GET", `/api/v1/trading-signals/${s1.id}`, { token });
    expect(gone.status).toBe(404);
    expect((await json(gone)).error).toBe("Signal not found");
  });

  test("DELETE /all removes only the caller's signals and is never read as an id", async () => {
    await seed();
    const other = await createUser(ctx);
    const otherKey = (await createApiKey(ctx, other.token, ["signals"])).key;
    await post(base, undefined, otherKey);
    const res = await ctx.request("DELETE", "/api/v1/trading-signals/all", { token });
    expect(await json(res)).toEqual({ success: true, deleted: 3 });
    expect((await json(await ctx.request("GET", "/api/v1/trading-signals", { token: other.token }))).length).toBe(1);
  });

  test("CSV export: the columns, quoting, formula protection, filters, only the caller's rows", async () => {
    await post({ ...base, symbol: '=HYPERLINK("x")', activationReason: 'said "hi", then\nleft', source: "@bot" });
    await post({ ...base, tokenAddress: OTHER, symbol: "-minus" });
    const res = await ctx.request("GET", `/api/v1/trading-signals/export?tokenAddress=${MINT}`, { token });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/csv");
    const text = await res.text();
    const lines = text.split("\r\n");
    expect(lines[0]).toBe("id,createdAt,tokenAddress,symbol,signalType,signalStrength,activationReason,source");
    expect(text).toContain(`"'=HYPERLINK(""x"")"`);
    expect(text).toContain(`"said ""hi"", then\nleft"`);
    expect(text).toContain(",'@bot");
    expect(text.includes(OTHER)).toBe(false);
    expect(lines.filter(Boolean).length).toBe(2);
    const all = await (await ctx.request("GET", "/api/v1/trading-signals/export", { token })).text();
    expect(all).toContain("'-minus");
  });
});
