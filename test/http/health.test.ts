import { describe, expect, test } from "bun:test";
import { contextsClosedAfterEach, json } from "../helpers/context.ts";

// SPEC "Price, data-source, health endpoints" and the Health rows of the state table: every status
// form of /health, /health/ready and /health/live.

const context = contextsClosedAfterEach();

const T0 = "2026-01-01T00:00:00.000Z";

describe("GET /api/v1/health", () => {
  test("healthy: database, cache and queue each with status and latency; uptime in whole seconds", async () => {
    const ctx = await context();
    ctx.clock.advance(90_700);
    const res = await ctx.request("GET", "/api/v1/health");
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(Object.keys(body)).toEqual(["status", "timestamp", "uptime", "services"]);
    expect(body.status).toBe("healthy");
    expect(body.timestamp).toBe("2026-01-01T00:01:30.700Z");
    expect(body.uptime).toBe(90);
    expect(Object.keys(body.services)).toEqual(["database", "cache", "queue"]);
    for (const name of ["database", "cache", "queue"]) {
      expect(body.services[name].status, name).toBe("healthy");
      expect(typeof body.services[name].latency, name).toBe("number");
      expect(body.services[name].latency, name).toBeGreaterThanOrEqual(0);
    }
    expect(body.services.queue).toMatchObject({ depth: 0, worker: "idle" });
    expect(body.services.cache.entries).toBe(0);
  });

  test("the cache check counts the in-memory stores' entries (blacklist, rate-limit windows)", async () => {
    const ctx = await context();
    ctx.services.limiters.login.hit("a");
    ctx.services.limiters.wallets.hit("b");
    ctx.services.blacklist.revoke("some-jti", Math.floor(ctx.clock.now() / 1000) + 600);
    const body = await json(await ctx.request("GET", "/api/v1/health"));
    expect(body.services.cache).toMatchObject({ status: "healthy", entries: 3 });
  });

  test("price stream down → degraded, HTTP 200, the feed reported beside the core components", async () => {
    const ctx = await context();
    let feedUp = true;
    ctx.services.health.register("priceFeed", () =>
      feedUp ? { status: "healthy" } : { status: "unhealthy", message: "price connection down" },
    );

    let res = await ctx.request("GET", "/api/v1/health");
    let body = await json(res);
    expect(res.status).toBe(200);
    expect(body.status).toBe("healthy");
    expect(Object.keys(body.services)).toEqual(["database", "cache", "queue", "priceFeed"]);
    expect(body.services.priceFeed.status).toBe("healthy");
    expect(typeof body.services.priceFeed.latency).toBe("number");

    feedUp = false;
    res = await ctx.request("GET", "/api/v1/health");
    body = await json(res);
    expect(res.status).toBe(200);
    expect(body.status).toBe("degraded");
    expect(body.services.priceFeed).toEqual({ status: "unhealthy", message: "price connection down" });
    expect(body.services.database.status).toBe("healthy");
  });

  test("a check that throws is that component unhealthy; its error text stays in the log", async () => {
    const ctx = await context();
    ctx.services.health.register("priceFeed", async () => {
      throw new Error("connect ECONNREFUSED https://feed.example/?api-key=hunter2hunter2");
    });
    const res = await ctx.request("GET", "/api/v1/health");
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.status).toBe("degraded");
    expect(body.services.priceFeed).toEqual({ status: "unhealthy", message: "priceFeed check failed" });
    expect(JSON.stringify(body)).not.toContain("hunter2");
    const logged = ctx.logs.map((l) => JSON.parse(l)).find((l) => l.msg === "health check failed");
    expect(logged).toMatchObject({ level: "warn", check: "priceFeed" });
  });

  test("a degraded (not unhealthy) dependency also degrades the service", async () => {
    const ctx = await context();
    ctx.services.health.register("queue", () => ({ status: "degraded", depth: 500, message: "backlog" }));
    const res = await ctx.request("GET", "/api/v1/health");
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.status).toBe("degraded");
    expect(body.services.queue).toEqual({ status: "degraded", depth: 500, message: "backlog" });
  });

  test("unregistering a check removes it from the report", async () => {
    const ctx = await context();
    const unregister = ctx.services.health.register("priceFeed", () => ({ status: "unhealthy" }));
    expect((await json(await ctx.request("GET", "/api/v1/health"))).status).toBe("degraded");
    unregister();
    const body = await json(await ctx.request("GET", "/api/v1/health"));
    expect(body.status).toBe("healthy");
    expect(body.services.priceFeed).toBeUndefined();
  });

  test("database closed → 503 unhealthy, even when everything else is healthy", async () => {
    const ctx = await context();
    ctx.database.close();
    const res = await ctx.request("GET", "/api/v1/health");
    expect(res.status).toBe(503);
    const body = await json(res);
    expect(body.status).toBe("unhealthy");
    expect(body.timestamp).toBe(T0);
    expect(body.services.database).toEqual({ status: "unhealthy", message: "database check failed" });
    expect(body.services.cache.status).toBe("healthy");
    expect(body.services.queue.status).toBe("healthy");
  });

  test("database down and the price stream down → still unhealthy (the worse state wins)", async () => {
    const ctx = await context();
    ctx.services.health.register("priceFeed", () => ({ status: "unhealthy" }));
    ctx.database.close();
    const res = await ctx.request("GET", "/api/v1/health");
    expect(res.status).toBe(503);
    expect((await json(res)).status).toBe("unhealthy");
  });

  test("needs no credential", async () => {
    const ctx = await context();
    for (const path of ["/api/v1/health", "/api/v1/health/ready", "/api/v1/health/live"]) {
      const res = await ctx.request("GET", path, { headers: { authorization: "Bearer garbage" } });
      expect(res.status, path).toBe(200);
    }
  });
});

describe("GET /api/v1/health/ready", () => {
  test("ready", async () => {
    const ctx = await context();
    const res = await ctx.request("GET", "/api/v1/health/ready");
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ ready: true, timestamp: T0 });
  });

  test("cache unavailable → 200 ready and degraded, with a message", async () => {
    const ctx = await context();
    ctx.services.health.register("cache", () => {
      throw new Error("store gone");
    });
    const res = await ctx.request("GET", "/api/v1/health/ready");
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ ready: true, degraded: true, message: "Cache unavailable", timestamp: T0 });
    // /health agrees: a non-database dependency is down.
    expect((await json(await ctx.request("GET", "/api/v1/health"))).status).toBe("degraded");
  });

  test("a price stream outage does not make the service unready", async () => {
    const ctx = await context();
    ctx.services.health.register("priceFeed", () => ({ status: "unhealthy" }));
    expect(await json(await ctx.request("GET", "/api/v1/health/ready"))).toEqual({ ready: true, timestamp: T0 });
  });

  test("database closed → 503 not ready", async () => {
    const ctx = await context();
    ctx.database.close();
    const res = await ctx.request("GET", "/api/v1/health/ready");
    expect(res.status).toBe(503);
    expect(await json(res)).toEqual({ ready: false, message: "Database unavailable", timestamp: T0 });
  });
});

describe("GET /api/v1/health/live", () => {
  test("live, even with the database closed", async () => {
    const ctx = await context();
    ctx.clock.advance(1_000);
    ctx.database.close();
    const res = await ctx.request("GET", "/api/v1/health/live");
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ live: true, timestamp: "2026-01-01T00:00:01.000Z" });
  });
});
