import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/logger.ts";
import { type ServerHandle, serve } from "../../src/server.ts";
import { createApiKeyOver, freePort, loginOver } from "../cli/process-helpers.ts";
import { offlineEnv } from "../helpers/context.ts";

// PRODUCT.md §1: with PUBLIC_PORT the public API is served alone on its own listener (real
// sockets on 127.0.0.1); the main listener serves both APIs.

let dir: string;
let handle: ServerHandle;
let key: string;

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
  key = await createApiKeyOver(handle.url, await loginOver(handle.url), "public", ["agents"]);
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
