import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/logger.ts";
import { type ServerHandle, serve } from "../../src/server.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, offlineEnv } from "../helpers/context.ts";

// PRODUCT.md §1: with PUBLIC_PORT the public API is served alone on its own listener (real
// sockets on 127.0.0.1); the main listener serves both APIs.

let dir: string;
let handle: ServerHandle;
let key: string;

function freePort(): number {
  const l = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const p = l.port;
  l.stop(true);
  return p;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "trading-agent-public-port-"));
  const config = loadConfig({
    ...offlineEnv,
    HOST: "127.0.0.1",
    PORT: "0",
    PUBLIC_PORT: String(freePort()),
    DATABASE_PATH: join(dir, "trading.db"),
  });
  handle = await serve(config, {
    services: { logger: createLogger({ level: "silent" }), passwordCost: { memoryCost: 1024, timeCost: 1 } },
  });
  const login = await fetch(`${handle.url}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }),
  });
  const { accessToken } = (await login.json()) as { accessToken: string };
  const created = await fetch(`${handle.url}/api/v1/api-keys`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({ name: "public", scopes: ["agents"] }),
  });
  key = ((await created.json()) as { key: string }).key;
});
afterAll(async () => {
  await handle.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("the public port answers /v1 with a key, and 404 for everything else", async () => {
  const pub = `http://127.0.0.1:${handle.publicPort}`;
  const auth = { authorization: `Bearer ${key}` };
  const agents = await fetch(`${pub}/v1/agents`, { headers: auth });
  expect(agents.status).toBe(200);
  expect(await agents.json()).toEqual([]);
  expect((await fetch(`${pub}/v1/agents`)).status).toBe(401);
  for (const path of ["/api/v1/agents", "/api/v1/health", "/api/v1/events", "/api/v1/openapi.json", "/metrics"]) {
    const res = await fetch(`${pub}${path}`, { headers: auth });
    expect(res.status, path).toBe(404);
    expect(await res.json()).toEqual({ success: false, error: `Route not found: GET ${path}`, code: "NOT_FOUND" });
  }
});

test("the main port serves both APIs", async () => {
  expect((await fetch(`${handle.url}/v1/agents`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
  expect((await fetch(`${handle.url}/api/v1/health/live`)).status).toBe(200);
});
