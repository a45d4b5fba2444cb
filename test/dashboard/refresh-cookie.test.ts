import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEFAULT_TRADING_CONFIG } from "../../src/agents/trading-config.ts";
import { createPublicApp } from "../../src/app.ts";
import { bundleDashboard } from "../../src/dashboard/bundle-ui.ts";
import { DASHBOARD_CSP } from "../../src/dashboard/serve.ts";
import { CONFIG_FIELDS, leafPaths, messagesByField } from "../../src/dashboard/ui/config-fields.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, createTestContext, json, type TestContext } from "../helpers/context.ts";

// The dashboard's server side without a browser: the refresh-token cookie on login, refresh and
// logout (issue 14 "Security"), the page's headers, the JavaScript budget, and the strategy
// editor's field table against the service's own defaults. The browser flow is browser.test.ts.

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx.close();
});

const COOKIE_MODE = { "X-Refresh-Cookie": "1" };
const cookieOf = (res: Response) => res.headers.get("set-cookie") ?? "";
/** The session hint's Set-Cookie, as sent. */
const res0 = (setCookie: string) => /trading_agent_session=[^,]*/.exec(setCookie)?.[0] ?? "";
const cookieValue = (setCookie: string) => /trading_agent_refresh=([^;]*)/.exec(setCookie)?.[1] ?? "";

async function dashboardLogin(rememberMe: boolean) {
  const res = await ctx.request("POST", "/api/v1/auth/login", {
    body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD, rememberMe },
    headers: COOKIE_MODE,
  });
  expect(res.status).toBe(200);
  return { body: await json(res), setCookie: cookieOf(res) };
}

describe("refresh-token cookie", () => {
  test("a dashboard login puts the refresh token in an HttpOnly, SameSite=Strict cookie, not in the body", async () => {
    const { body, setCookie } = await dashboardLogin(false);
    expect(body.accessToken).toBeString();
    expect(body.user.email).toBe(ADMIN_EMAIL);
    expect(body.refreshToken).toBeUndefined();
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Strict");
    expect(setCookie).toContain("Path=/api/v1/auth");
    expect(setCookie).not.toContain("Expires"); // a session cookie without "remember me"
    expect(setCookie).not.toContain("Secure"); // plain http here; https gets Secure
    expect(cookieValue(setCookie).split(".")).toHaveLength(3);
  });

  test("beside it, a readable session hint ('1', no secret) tells the page a session may be resumed; logout clears both", async () => {
    const { body, setCookie } = await dashboardLogin(false);
    const hint = res0(setCookie);
    expect(hint).toBe("trading_agent_session=1; Path=/; SameSite=Strict");
    const out = await ctx.request("POST", "/api/v1/auth/logout", {
      body: {},
      token: body.accessToken,
      headers: { cookie: `trading_agent_refresh=${cookieValue(setCookie)}`, ...COOKIE_MODE },
    });
    expect(cookieOf(out)).toMatch(/trading_agent_session=;.*Max-Age=0/);
    // The page asks for a refresh only when the hint is there (src/dashboard/ui/api.ts).
    const ui = await Bun.file(new URL("../../src/dashboard/ui/api.ts", import.meta.url)).text();
    expect(ui).toContain('if (!document.cookie.split("; ").includes("trading_agent_session=1")) return;');
  });

  test("remember me makes the cookie outlive the browser session (30 days)", async () => {
    const { setCookie } = await dashboardLogin(true);
    const expires = Date.parse(/Expires=([^;]+)/.exec(setCookie)?.[1] ?? "");
    const days = (expires - ctx.clock.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
  });

  test("a login without the header keeps the spec's body form and sets no cookie", async () => {
    const res = await ctx.request("POST", "/api/v1/auth/login", {
      body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
    });
    expect((await json(res)).refreshToken).toBeString();
    expect(cookieOf(res)).toBe("");
  });

  test("refresh takes the cookie only with the opt-in header, rotates it, and refuses the old one", async () => {
    const { setCookie } = await dashboardLogin(false);
    const cookie = `trading_agent_refresh=${cookieValue(setCookie)}`;
    // Without X-Refresh-Cookie the cookie is not read: a cross-site form cannot use it.
    const plain = await ctx.request("POST", "/api/v1/auth/refresh", { body: {}, headers: { cookie } });
    expect(plain.status).toBe(400);
    expect((await json(plain)).error).toBe("Refresh token is required");

    const res = await ctx.request("POST", "/api/v1/auth/refresh", { body: {}, headers: { cookie, ...COOKIE_MODE } });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.accessToken).toBeString();
    expect(body.refreshToken).toBeUndefined();
    const next = cookieValue(cookieOf(res));
    expect(next).not.toBe(cookieValue(setCookie));
    const me = await ctx.request("GET", "/api/v1/auth/me", { token: body.accessToken });
    expect(me.status).toBe(200);

    const again = await ctx.request("POST", "/api/v1/auth/refresh", { body: {}, headers: { cookie, ...COOKIE_MODE } });
    expect(again.status).toBe(401);
  });

  test("the cookie alone authorises nothing but a refresh", async () => {
    const { setCookie } = await dashboardLogin(false);
    const cookie = `trading_agent_refresh=${cookieValue(setCookie)}`;
    const list = await ctx.request("GET", "/api/v1/agents", { headers: { cookie, ...COOKIE_MODE } });
    expect(list.status).toBe(401);
    const create = await ctx.request("POST", "/api/v1/agents", {
      body: { name: "x" },
      headers: { cookie, ...COOKIE_MODE },
    });
    expect(create.status).toBe(401);
    const logout = await ctx.request("POST", "/api/v1/auth/logout", { body: {}, headers: { cookie, ...COOKIE_MODE } });
    expect(logout.status).toBe(401);
  });

  test("logout revokes the cookie's refresh token and clears the cookie", async () => {
    const { body, setCookie } = await dashboardLogin(false);
    const cookie = `trading_agent_refresh=${cookieValue(setCookie)}`;
    const res = await ctx.request("POST", "/api/v1/auth/logout", {
      body: {},
      token: body.accessToken,
      headers: { cookie, ...COOKIE_MODE },
    });
    expect(res.status).toBe(200);
    expect(cookieOf(res)).toMatch(/trading_agent_refresh=;.*Max-Age=0/);
    const refresh = await ctx.request("POST", "/api/v1/auth/refresh", {
      body: {},
      headers: { cookie, ...COOKIE_MODE },
    });
    expect(refresh.status).toBe(401);
  });
});

describe("logout with a cookie that is not a valid refresh token", () => {
  test("200: the access token is revoked, the cookie cleared, and the answer says the token was not recognised", async () => {
    const { body } = await dashboardLogin(false);
    const res = await ctx.request("POST", "/api/v1/auth/logout", {
      body: {},
      token: body.accessToken,
      headers: { cookie: "trading_agent_refresh=garbage", ...COOKIE_MODE },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, message: "Logged out; the refresh token was not recognised" });
    expect(cookieOf(res)).toMatch(/trading_agent_refresh=;.*Max-Age=0/);
    const me = await ctx.request("GET", "/api/v1/auth/me", { token: body.accessToken });
    expect(me.status).toBe(401);
  });
});

describe("the page", () => {
  test("GET / answers the page with the CSP on the main app; the public app does not serve it", async () => {
    const res = await ctx.request("GET", "/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("content-security-policy")).toBe(DASHBOARD_CSP);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    const publicApp = createPublicApp(ctx.services);
    expect((await publicApp.request("/")).status).toBe(404);
  });

  test("first load stays under 150 KB of compressed JavaScript and names no other host", async () => {
    const bundle = await bundleDashboard();
    const js = bundle.files.filter((f) => f.path.endsWith(".js"));
    expect(js).toHaveLength(1);
    const gzipped = Bun.gzipSync(new TextEncoder().encode(js[0]!.body)).length;
    expect(gzipped).toBeLessThan(150 * 1024);
    expect(bundle.html).not.toMatch(/(src|href)="https?:/);
    expect(bundle.files.find((f) => f.path.endsWith(".css"))?.body).not.toMatch(/url\(\s*["']?https?:/);
  });
});

describe("strategy editor fields", () => {
  test("describe every configuration field with the service's default", () => {
    const paths = leafPaths(DEFAULT_TRADING_CONFIG);
    expect(CONFIG_FIELDS.map((f) => f.path).toSorted()).toEqual(paths.toSorted());
    for (const f of CONFIG_FIELDS) {
      const value = f.path
        .split(".")
        .reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], DEFAULT_TRADING_CONFIG);
      expect({ path: f.path, default: f.default }).toEqual({ path: f.path, default: value });
    }
  });

  test("the API's validation messages land on the field they name", () => {
    const paths = CONFIG_FIELDS.map((f) => f.path);
    const byField = messagesByField(
      [
        "stopLoss.percentage must be between 1 and 100",
        "slippage.defaultBps must not exceed slippage.maxBps",
        "filters.foo is not a configuration field",
      ],
      paths,
    );
    expect(byField.get("stopLoss.percentage")).toEqual(["stopLoss.percentage must be between 1 and 100"]);
    expect(byField.get("slippage.defaultBps")).toEqual(["slippage.defaultBps must not exceed slippage.maxBps"]);
    expect(byField.get("")).toEqual(["filters.foo is not a configuration field"]);
  });

  test("a real 400 from the API maps onto its field", async () => {
    const token = (
      await json(
        await ctx.request("POST", "/api/v1/auth/login", { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } }),
      )
    ).accessToken as string;
    const agent = await json(await ctx.request("POST", "/api/v1/agents", { token, body: { name: "cfg" } }));
    const res = await ctx.request("PUT", `/api/v1/agents/${agent.id}/config`, {
      token,
      body: { config: { stopLoss: { percentage: 150 }, dca: { maxOrders: 0.5 } } },
    });
    expect(res.status).toBe(400);
    const body = await json(res);
    const byField = messagesByField(
      body.details,
      CONFIG_FIELDS.map((f) => f.path),
    );
    expect([...byField.keys()].toSorted()).toEqual(["dca.maxOrders", "stopLoss.percentage"]);
  });
});
