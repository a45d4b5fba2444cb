import { describe, expect, test } from "bun:test";
import { MAX_BODY_BYTES } from "../../src/app.ts";
import { contextsClosedAfterEach, type TestContext } from "../helpers/context.ts";

// PRODUCT.md §6: CORS is off unless CORS_ORIGINS lists origins; security headers (no sniff, no
// referrer) on every response, errors included.

const context = contextsClosedAfterEach();

const APP = "https://app.example.com";
const OTHER = "https://dashboard.example.org";
const EVIL = "https://evil.example.net";

const preflight = (ctx: TestContext, origin: string, path = "/api/v1/auth/login") =>
  ctx.request("OPTIONS", path, {
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type, authorization",
    },
  });

describe("CORS", () => {
  test("off by default: no CORS header for any origin, and a preflight is a method the path does not take", async () => {
    const ctx = await context();
    const res = await ctx.request("GET", "/api/v1/health/live", { headers: { origin: APP } });
    expect(res.status).toBe(200);
    for (const [name] of res.headers) expect(name.startsWith("access-control-"), name).toBe(false);
    const pre = await preflight(ctx, APP);
    expect(pre.status).toBe(405);
    expect(pre.headers.get("allow")).toBe("POST");
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("a listed origin gets Access-Control-Allow-Origin (its own value, never *) and the exposed headers", async () => {
    const ctx = await context({ CORS_ORIGINS: `${APP}, ${OTHER}` });
    for (const origin of [APP, OTHER]) {
      const res = await ctx.request("GET", "/api/v1/health/live", { headers: { origin } });
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe(origin);
      expect(res.headers.get("vary")).toContain("Origin");
      const exposed = (res.headers.get("access-control-expose-headers") ?? "").toLowerCase();
      expect(exposed).toContain("x-request-id");
      expect(exposed).toContain("retry-after");
    }
  });

  test("an unlisted origin gets no Access-Control-Allow-Origin", async () => {
    const ctx = await context({ CORS_ORIGINS: APP });
    const res = await ctx.request("GET", "/api/v1/health/live", { headers: { origin: EVIL } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    const pre = await preflight(ctx, EVIL);
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("a preflight from a listed origin is answered 204 with methods, the requested headers and a max age", async () => {
    const ctx = await context({ CORS_ORIGINS: APP });
    const res = await preflight(ctx, APP);
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(APP);
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    const allowed = (res.headers.get("access-control-allow-headers") ?? "")
      .toLowerCase()
      .split(",")
      .map((h) => h.trim());
    expect(allowed).toEqual(["content-type", "authorization"]);
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(res.headers.get("access-control-max-age")).toBe("600");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    // Preflights of routes with path parameters work the same.
    const withParam = await preflight(ctx, APP, "/api/v1/api-keys/0b5e2a4c-7a1d-4d8e-9a51-2f6a3c1d9e10");
    expect(withParam.status).toBe(204);
    expect(withParam.headers.get("access-control-allow-origin")).toBe(APP);
  });

  test("error responses to a listed origin carry the CORS header, so the browser can read them", async () => {
    const ctx = await context({ CORS_ORIGINS: APP });
    for (const [method, path] of [
      ["GET", "/api/v1/auth/me"],
      ["GET", "/api/v1/nowhere"],
    ] as const) {
      const res = await ctx.request(method, path, { headers: { origin: APP } });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.headers.get("access-control-allow-origin"), path).toBe(APP);
    }
  });
});

describe("security headers on every response", () => {
  test.each([
    ["200 JSON", "GET", "/api/v1/health/live", {}, 200],
    ["200 metrics text", "GET", "/metrics", {}, 200],
    ["200 OpenAPI document", "GET", "/api/v1/openapi.json", {}, 200],
    [
      "400 malformed JSON",
      "POST",
      "/api/v1/auth/login",
      { rawBody: "{", headers: { "content-type": "application/json" } },
      400,
    ],
    ["401 no credential", "GET", "/api/v1/auth/me", {}, 401],
    ["404 unknown route", "GET", "/api/v1/nowhere", {}, 404],
    ["404 unknown path", "GET", "/api/v1/nothing-here", {}, 404],
    ["405 known path, another method", "PATCH", "/api/v1/health", {}, 405],
    [
      "413 oversize body",
      "POST",
      "/api/v1/auth/login",
      { rawBody: "x".repeat(MAX_BODY_BYTES + 1), headers: { "content-type": "application/json" } },
      413,
    ],
  ] as const)("%s", async (_label, method, path, opts, status) => {
    const ctx = await context();
    const res = await ctx.request(method, path, opts);
    expect(res.status).toBe(status);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
  });

  test("503 unhealthy and 500 responses too", async () => {
    const ctx = await context();
    ctx.app.get("/test/boom", () => {
      throw new Error("boom");
    });
    const boom = await ctx.request("GET", "/test/boom");
    expect(boom.status).toBe(500);
    ctx.database.close();
    const down = await ctx.request("GET", "/api/v1/health");
    expect(down.status).toBe(503);
    for (const res of [boom, down]) {
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    }
  });
});
