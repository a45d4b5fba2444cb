import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TRADINGVIEW_ADDRESSES } from "../../src/ip-ranges.ts";
import { type ChildService, ROOT, startChildService } from "../helpers/child-service.ts";

// deploy/Caddyfile and deploy/caddy.env (issue 42 item 4): the recipe's proxy setting, run for real.
// The service is started as a process with the recipe's settings (its port aside), and the test
// speaks to it as Caddy does from 127.0.0.1: X-Forwarded-For carries the client's address, which a
// hook's allowedIps then judges. The service's own output is read for the hook's token.

const caddyfile = readFileSync(join(ROOT, "deploy/Caddyfile"), "utf8");
const recipeEnv = Object.fromEntries(
  readFileSync(join(ROOT, "deploy/caddy.env"), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.trim().startsWith("#"))
    .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
) as Record<string, string>;

const dir = mkdtempSync(join(tmpdir(), "trading-agent-caddy-"));
let service: ChildService;
let hook: { url: string; token: string };

beforeAll(async () => {
  const { PORT: _port, ...settings } = recipeEnv;
  service = await startChildService(
    {
      ...settings,
      DATABASE_PATH: join(dir, "trading.db"),
      ADMIN_EMAIL: "admin@example.com",
      ADMIN_PASSWORD: "Admin!Passw0rd",
      LOG_LEVEL: "debug",
      DEMO_MARKET: "true",
    },
    { keepLines: 5_000 },
  );
  const login = await fetch(`${service.url}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "admin@example.com", password: "Admin!Passw0rd" }),
  });
  const { accessToken } = (await login.json()) as { accessToken: string };
  const created = await fetch(`${service.url}/api/v1/signal-hooks`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({
      name: "tv",
      allowedIps: ["tradingview"],
      tokens: { FROGUSD: "DemoFrog11111111111111111111111111111111111" },
    }),
  });
  expect(created.status).toBe(201);
  hook = (await created.json()) as { url: string; token: string };
}, 60_000);
afterAll(async () => {
  await service?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** As Caddy forwards a client's request: from loopback, X-Forwarded-For set to the client. */
const throughCaddy = (client: string, message: Record<string, unknown>) =>
  fetch(`${service.url}${new URL(hook.url).pathname}`, {
    method: "POST",
    headers: { "content-type": "text/plain; charset=utf-8", "x-forwarded-for": client },
    body: JSON.stringify(message),
  });

describe("the Caddy recipe", () => {
  test("Caddy forwards to the address the service listens on, and sets no X-Forwarded-For of its own making", () => {
    expect(caddyfile).toContain(`reverse_proxy ${recipeEnv.HOST}:${recipeEnv.PORT}`);
    // A header_up of X-Forwarded-For or trusted_proxies would let a client's own header through.
    expect(caddyfile).not.toMatch(/^\s*[^#\s].*(header_up|trusted_proxies)/m);
    expect(recipeEnv.TRUSTED_PROXIES?.split(",")).toContain("127.0.0.1");
    expect(hook.url).toBe(`${recipeEnv.PUBLIC_BASE_URL}/api/v1/hooks/${hook.token}`);
  });

  test("TradingView's address, forwarded: 201; another client's: 403 naming the forwarded address", async () => {
    const ok = await throughCaddy(TRADINGVIEW_ADDRESSES[1], {
      symbol: "FROGUSD",
      signalType: "buy",
      signalStrength: "3",
    });
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as { source: string }).source).toBe("hook:tv");
    const refused = await throughCaddy("203.0.113.9", { symbol: "FROGUSD", signalType: "sell", signalStrength: "3" });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toBe(
      "Address 203.0.113.9 is not in this hook's allowedIps",
    );
  });

  test("the service's log shows the hook's path with the token cut, and never the token", async () => {
    await throughCaddy(TRADINGVIEW_ADDRESSES[0], { symbol: "NOPE", signalType: "buy", signalStrength: "3" });
    const log = service.output();
    expect(log).toContain('"path":"/api/v1/hooks/…"');
    expect(log).toContain('"msg":"signal hook delivery"');
    expect(log).not.toContain(hook.token.slice(4));
  });
});
