import { isoNow } from "../../../clock.ts";
import type { AppDeps } from "../../app-env.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { jsonContent } from "../../schemas.ts";
import { HealthSchema, LiveSchema, ReadySchema } from "./schema.ts";

// SPEC "Price, data-source, health endpoints" and the Health rows of its state table: a
// non-database dependency unhealthy → degraded (200); the database unhealthy → unhealthy (503).

const health = operation({
  method: "get",
  path: "/",
  auth: auth.none,
  tags: ["health"],
  summary: "Health of the service and its dependencies",
  responses: {
    200: {
      description: "Healthy, or degraded (a dependency other than the database is unhealthy)",
      ...jsonContent(HealthSchema),
    },
    503: { description: "Unhealthy: the database is unavailable", ...jsonContent(HealthSchema) },
  },
});

const ready = operation({
  method: "get",
  path: "/ready",
  auth: auth.none,
  tags: ["health"],
  summary: "Readiness: can the service answer requests",
  responses: {
    200: { description: "Ready; `degraded: true` when the cache is unavailable", ...jsonContent(ReadySchema) },
    503: {
      description:
        "Not ready: the database is unavailable, or signals left unfinished by the last run are not queued yet",
      ...jsonContent(ReadySchema),
    },
  },
});

const live = operation({
  method: "get",
  path: "/live",
  auth: auth.none,
  tags: ["health"],
  summary: "Liveness: the process is up",
  responses: { 200: { description: "The process is up", ...jsonContent(LiveSchema) } },
});

export function healthRoutes(s: AppDeps) {
  return createRouter(s)
    .openapi(health, async (c) => {
      const report = await s.health.report();
      const body = {
        status: report.status,
        timestamp: isoNow(s.clock),
        uptime: Math.max(0, Math.floor((s.clock.now() - s.startedAt) / 1000)),
        services: report.services as typeof report.services &
          Record<"database" | "cache" | "queue", (typeof report.services)[string]>,
      };
      return c.json(body, report.status === "unhealthy" ? 503 : 200);
    })
    .openapi(ready, async (c) => {
      const [database, cache] = await Promise.all([s.health.check("database"), s.health.check("cache")]);
      const timestamp = isoNow(s.clock);
      if (database?.status !== "healthy")
        return c.json({ ready: false, message: "Database unavailable", timestamp }, 503);
      if (!s.signalIntake.recovered)
        return c.json({ ready: false, message: "Recovering unfinished signals", timestamp }, 503);
      if (cache && cache.status !== "healthy")
        return c.json({ ready: true, degraded: true as const, message: "Cache unavailable", timestamp }, 200);
      return c.json({ ready: true, timestamp }, 200);
    })
    .openapi(live, (c) => c.json({ live: true as const, timestamp: isoNow(s.clock) }, 200));
}
