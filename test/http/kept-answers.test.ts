import { describe, expect, test } from "bun:test";
import { ACCESS_TTL_S } from "../../src/auth/tokens.ts";
import { contextsClosedAfterEach, createApiKey, json, login, type TestContext } from "../helpers/context.ts";
import { parseExposition, sampleValue } from "../metrics/exposition.ts";

// A kept GET answer (src/http/middleware/response-cache.ts) is the route's answer — body, status,
// headers, metrics — and is never given to a credential the route would refuse.

const context = contextsClosedAfterEach();

const headersOf = (res: Response) =>
  Object.fromEntries([...res.headers].filter(([name]) => name !== "x-request-id").sort());

async function withAgents(ctx: TestContext) {
  const { token } = await login(ctx);
  for (const name of ["one", "two"]) await ctx.request("POST", "/api/v1/agents", { token, body: { name } });
  return token;
}

describe("a kept answer", () => {
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
    const [h, p, sig] = token.split(".") as [string, string, string];
    const forged = `${h}.${p}.${sig.slice(0, -2)}${sig.endsWith("AA") ? "BB" : "AA"}`;
    expect((await ctx.request("GET", "/api/v1/agents", { token: forged })).status).toBe(401);
    const claims = await ctx.services.signer.verify(token, "access");
    ctx.services.blacklist.revoke(claims.jti, claims.exp);
    const revoked = await ctx.request("GET", "/api/v1/agents", { token });
    expect(revoked.status).toBe(401);
    expect((await json(revoked)).error).toBe("Token has been revoked");
  });

  test("an API key's every use is counted, kept answer or not", async () => {
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

  test("a request with an Origin gets the CORS headers on a kept answer too", async () => {
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
