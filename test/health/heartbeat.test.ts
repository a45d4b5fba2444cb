import { afterEach, expect, test } from "bun:test";
import { contextsClosedAfterEach } from "../helpers/context.ts";

// The push heartbeat (PRODUCT.md §7): a local HTTP server on 127.0.0.1 plays healthchecks.io. The
// beat is driven by hand (no timers); the monitor's tick and the clock are the test's.

const context = contextsClosedAfterEach();
const servers: Array<ReturnType<typeof Bun.serve>> = [];
afterEach(() => {
  while (servers.length) servers.pop()!.stop(true);
});

function monitorServer() {
  const hits: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      hits.push(`${req.method} ${new URL(req.url).pathname}`);
      return new Response("OK");
    },
  });
  servers.push(server);
  return { hits, base: `http://127.0.0.1:${server.port}/ping/0f1e2d3c` };
}

test("GET <url> while healthy; <url>/fail while the database is unwritable or the monitor stalls; back when it recovers", async () => {
  const m = monitorServer();
  const ctx = await context({ HEARTBEAT_URL: m.base, WEBHOOK_ALLOW_PRIVATE_URLS: "true" });
  const heartbeat = ctx.services.heartbeat!;
  await ctx.services.trading.monitor.tick();
  expect(await heartbeat.beat()).toEqual({ sent: "ok", status: 200, reason: null });
  expect(m.hits).toEqual(["GET /ping/0f1e2d3c"]);

  ctx.database.sqlite.exec("PRAGMA query_only = 1");
  expect(await heartbeat.beat()).toEqual({ sent: "fail", status: 200, reason: "database not writable" });
  expect(m.hits.at(-1)).toBe("GET /ping/0f1e2d3c/fail");
  ctx.database.sqlite.exec("PRAGMA query_only = 0");
  expect((await heartbeat.beat()).sent).toBe("ok");

  // Three monitor intervals (MONITOR_INTERVAL_SECONDS, 10) without a tick: degraded.
  ctx.clock.advance(31_000);
  expect(await heartbeat.beat()).toMatchObject({ sent: "fail", reason: "position monitor not ticking" });
  await ctx.services.trading.monitor.tick();
  expect((await heartbeat.beat()).sent).toBe("ok");
  expect(m.hits).toEqual([
    "GET /ping/0f1e2d3c",
    "GET /ping/0f1e2d3c/fail",
    "GET /ping/0f1e2d3c",
    "GET /ping/0f1e2d3c/fail",
    "GET /ping/0f1e2d3c",
  ]);
  // The URL is the monitor's credential: no log line holds it.
  expect(ctx.logs.join("\n")).not.toContain("0f1e2d3c");
});

test("HEARTBEAT_FAIL_URL replaces <url>/fail; the webhook URL rules refuse a private address unless allowed; unset: no heartbeat", async () => {
  const m = monitorServer();
  const ctx = await context({
    HEARTBEAT_URL: m.base,
    HEARTBEAT_FAIL_URL: `${m.base}?status=down`,
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
  });
  ctx.database.sqlite.exec("PRAGMA query_only = 1");
  expect((await ctx.services.heartbeat!.beat()).sent).toBe("fail");
  ctx.database.sqlite.exec("PRAGMA query_only = 0");
  expect(m.hits).toEqual(["GET /ping/0f1e2d3c"]);

  const refused = await context({ HEARTBEAT_URL: m.base });
  const r = await refused.services.heartbeat!.beat();
  expect(r).toMatchObject({ sent: null });
  expect(m.hits).toHaveLength(1);
  expect((await context()).services.heartbeat).toBeNull();
});
