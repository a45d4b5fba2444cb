import { describe, expect, test } from "bun:test";
import { ACCESS_TTL_S } from "../../src/auth/tokens.ts";
import { createHotRead } from "../../src/http/hot-read.ts";
import { contextsClosedAfterEach, createApiKey, json, login, type TestContext } from "../helpers/context.ts";
import { parseExposition, sampleValue } from "../metrics/exposition.ts";

// src/http/hot-read.ts: a kept GET answer is served in front of Hono's chain. It must be the
// chain's answer — body, status, headers, metrics — and step aside whenever the chain would do
// something else (docs/decisions.md "Performance (issue 16)", fourth round).

const context = contextsClosedAfterEach();

const headersOf = (res: Response) =>
  Object.fromEntries([...res.headers].filter(([name]) => name !== "x-request-id").sort());

async function withAgents(ctx: TestContext) {
  const { token } = await login(ctx);
  for (const name of ["one", "two"]) await ctx.request("POST", "/api/v1/agents", { token, body: { name } });
  return token;
}

describe("a kept answer in front of the chain", () => {
  test("is the chain's answer: the same body and headers, its own request id", async () => {
    const ctx = await context();
    const token = await withAgents(ctx);
    const first = await ctx.request("GET", "/api/v1/agents", { token });
    const firstBody = await first.text();
    const hitsBefore = ctx.services.responseCache.hits;
    const again = await ctx.request("GET", "/api/v1/agents", { token });
    expect(ctx.services.responseCache.hits).toBe(hitsBefore + 1);
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(firstBody);
    expect(headersOf(again)).toEqual(headersOf(first));
    expect(headersOf(again)["x-content-type-options"]).toBe("nosniff");
    expect(again.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(again.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    const echoed = await ctx.request("GET", "/api/v1/agents", { token, headers: { "x-request-id": "proxy-1.a_B" } });
    expect(echoed.headers.get("x-request-id")).toBe("proxy-1.a_B");
    const replaced = await ctx.request("GET", "/api/v1/agents", { token, headers: { "x-request-id": "bad id!" } });
    expect(replaced.headers.get("x-request-id")).not.toBe("bad id!");
  });

  test("is counted in http_requests_total under the route", async () => {
    const ctx = await context();
    const token = await withAgents(ctx);
    for (let i = 0; i < 3; i++) expect((await ctx.request("GET", "/api/v1/agents", { token })).status).toBe(200);
    const families = parseExposition(await (await ctx.request("GET", "/metrics")).text());
    const labels = { method: "GET", status: "200", route: "/api/v1/agents" };
    expect(sampleValue(families, "http_requests_total", labels)).toBe(3);
    expect(sampleValue(families, "http_request_duration_seconds_count", labels)).toBe(3);
  });

  test("is not served once its token expired, though nothing was written", async () => {
    const ctx = await context();
    const token = await withAgents(ctx);
    expect((await ctx.request("GET", "/api/v1/agents", { token })).status).toBe(200);
    expect((await ctx.request("GET", "/api/v1/agents", { token })).status).toBe(200);
    ctx.clock.advance(ACCESS_TTL_S * 1000);
    const res = await ctx.request("GET", "/api/v1/agents", { token });
    expect(res.status).toBe(401);
    expect((await json(res)).error).toBe("Token expired");
  });

  test("is not served to a revoked token or to a token never verified", async () => {
    const ctx = await context();
    const token = await withAgents(ctx);
    expect((await ctx.request("GET", "/api/v1/agents", { token })).status).toBe(200);
    const claims = await ctx.services.signer.verify(token, "access");
    const auth = ctx.services.auth;
    expect(auth.rememberedJwtUser(`Bearer ${token}`)).toBe(claims.userId);
    ctx.services.blacklist.revoke(claims.jti, claims.exp);
    expect(auth.rememberedJwtUser(`Bearer ${token}`)).toBeUndefined();
    const [h, p, sig] = token.split(".") as [string, string, string];
    const forged = `${h}.${p}.${sig.slice(0, -2)}${sig.endsWith("AA") ? "BB" : "AA"}`;
    expect(auth.rememberedJwtUser(`Bearer ${forged}`)).toBeUndefined();
    expect((await ctx.request("GET", "/api/v1/agents", { token: forged })).status).toBe(401);
  });

  test("steps aside for an API key, whose every use is counted", async () => {
    const ctx = await context();
    const token = await withAgents(ctx);
    const key = await createApiKey(ctx, token, ["agents"]);
    for (let i = 0; i < 3; i++) {
      // The JWT's answer is kept; with X-Api-Key sent too the chain takes the key, and counts it.
      expect((await ctx.request("GET", "/api/v1/agents", { token })).status).toBe(200);
      expect((await ctx.request("GET", "/api/v1/agents", { token, apiKey: key.key })).status).toBe(200);
      expect((await ctx.request("GET", "/api/v1/agents", { apiKey: key.key })).status).toBe(200);
      const asBearer = await ctx.request("GET", "/api/v1/agents", { headers: { authorization: `Bearer ${key.key}` } });
      expect(asBearer.status).toBe(200);
    }
    const row = ctx.database.sqlite.query("SELECT request_count AS n FROM api_keys WHERE id = ?").get(key.id) as {
      n: number;
    };
    expect(row.n).toBe(9);
  });

  test("steps aside for a request with an Origin, which gets the chain's CORS headers", async () => {
    const origin = "https://app.example.com";
    const ctx = await context({ CORS_ORIGINS: origin });
    const token = await withAgents(ctx);
    for (let i = 0; i < 2; i++) {
      const res = await ctx.request("GET", "/api/v1/agents", { token, headers: { origin } });
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe(origin);
    }
  });
});

describe("the hot path alone", () => {
  test("answers a kept answer itself, and steps aside (undefined) otherwise", async () => {
    const ctx = await context();
    const token = await withAgents(ctx);
    const hot = createHotRead(ctx.services);
    const get = (headers: Record<string, string>, path = "/api/v1/agents") =>
      hot(new Request(`http://localhost${path}`, { headers }));
    expect(get({ authorization: `Bearer ${token}` })).toBeUndefined(); // nothing kept yet
    expect((await ctx.request("GET", "/api/v1/agents", { token })).status).toBe(200);
    expect(get({ authorization: `Bearer ${token}` })?.status).toBe(200);
    expect(get({ authorization: `Bearer ${token}` }, "/api/v1/agents?limit=1")).toBeUndefined();
    expect(get({ authorization: `Bearer ${token}`, origin: "https://a.example" })).toBeUndefined();
    expect(get({ authorization: `Bearer ${token}`, "x-api-key": "svc_x" })).toBeUndefined();
    expect(get({})).toBeUndefined();
    await ctx.request("POST", "/api/v1/agents", { token, body: { name: "three" } });
    expect(get({ authorization: `Bearer ${token}` })).toBeUndefined(); // the database changed
  });
});
