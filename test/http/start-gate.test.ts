import { expect, test } from "bun:test";
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Server } from "bun";
import type { AppEnv } from "../../src/http/app-env.ts";
import { StartGate } from "../../src/http/start-gate.ts";
import { createTestContext } from "../helpers/context.ts";

// The listeners' fetch while serve() loads the domain after listening (src/http/start-gate.ts).

const clock = { now: () => Date.parse("2026-01-02T03:04:05.000Z") };
const server = {} as Server<undefined>;
const get = (path: string, headers: Record<string, string> = {}) => new Request(`http://127.0.0.1${path}`, { headers });

function app(tag: string): OpenAPIHono<AppEnv> {
  const a = new OpenAPIHono<AppEnv>();
  a.get("*", (c) => c.text(`${tag} ${c.req.path}`));
  return a;
}

test("before the apps exist, /health/live answers on the main listener with the route's body", async () => {
  const gate = new StartGate(clock);
  const res = await gate.fetch("main", get("/api/v1/health/live"), server);
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ live: true, timestamp: "2026-01-02T03:04:05.000Z" });
  expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
  expect(res.headers.get("Cache-Control")).toBe("no-store");
  expect(res.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
  // The same headers as the route's own answer once the app exists (one copy: middleware/edge.ts).
  const ctx = await createTestContext();
  try {
    const routed = await ctx.request("GET", "/api/v1/health/live");
    const names = (r: Response) => [...r.headers.keys()].filter((n) => n !== "content-length").sort();
    expect(names(res)).toEqual(names(routed));
    const echoed = await gate.fetch("main", get("/api/v1/health/live", { "x-request-id": "proxy-1" }), server);
    expect(echoed.headers.get("X-Request-Id")).toBe("proxy-1");
  } finally {
    await ctx.close();
  }
});

test("any other request waits for the apps and is answered by them", async () => {
  const gate = new StartGate(clock);
  let answered = false;
  const pending = Promise.resolve(gate.fetch("main", get("/api/v1/agents"), server)).then((r) => {
    answered = true;
    return r;
  });
  const onPublic = Promise.resolve(gate.fetch("public", get("/api/v1/health/live"), server));
  // The gate answers from its ready promise only, which nothing but open()/fail() settles: after
  // every queued microtask has run, the request is still pending (no timer to wait for).
  for (let i = 0; i < 10; i++) await Promise.resolve();
  expect(Bun.peek.status(pending)).toBe("pending");
  expect(answered).toBe(false);
  gate.open({ main: app("main"), public: app("public") });
  expect(await (await pending).text()).toBe("main /api/v1/agents");
  // The public listener has no early liveness answer: its app answers it.
  expect(await (await onPublic).text()).toBe("public /api/v1/health/live");
  // Once open, the apps answer directly, /health/live included.
  expect(await (await gate.fetch("main", get("/api/v1/health/live"), server)).text()).toBe("main /api/v1/health/live");
});

test("a start that fails answers the waiting requests 503", async () => {
  const gate = new StartGate(clock);
  const pending = Promise.resolve(gate.fetch("main", get("/api/v1/agents"), server));
  gate.fail();
  const res = await pending;
  expect(res.status).toBe(503);
  expect(((await res.json()) as { success: boolean }).success).toBe(false);
});
