import { z } from "@hono/zod-openapi";

// Response bodies of SPEC "Price, data-source, health endpoints".

const ComponentSchema = z
  .object({
    status: z.enum(["healthy", "degraded", "unhealthy"]),
    latency: z.number().optional().openapi({ description: "Milliseconds; present when healthy" }),
    message: z.string().optional().openapi({ description: "Why the component is not healthy" }),
  })
  .catchall(z.unknown())
  .openapi("HealthComponent");

export const HealthSchema = z
  .object({
    status: z.enum(["healthy", "degraded", "unhealthy"]),
    timestamp: z.string(),
    uptime: z.number().int().openapi({ description: "Whole seconds since the service started" }),
    services: z
      .object({ database: ComponentSchema, cache: ComponentSchema, queue: ComponentSchema })
      .catchall(ComponentSchema)
      .openapi({
        description:
          "database, cache and queue always; further dependencies (priceFeed, solanaRpc with live trading on) as registered",
      }),
  })
  .openapi("Health", {
    example: {
      status: "healthy",
      timestamp: "2026-01-01T00:00:00.000Z",
      uptime: 3600,
      services: {
        database: { status: "healthy", latency: 0.05 },
        cache: { status: "healthy", latency: 0.01, entries: 3 },
        queue: { status: "healthy", latency: 0.01, depth: 0, worker: "idle" },
        priceFeed: { status: "healthy", latency: 0.01 },
      },
    },
  });

export const ReadySchema = z
  .object({
    ready: z.boolean(),
    degraded: z.literal(true).optional(),
    message: z.string().optional(),
    timestamp: z.string(),
  })
  .openapi("Readiness");

export const LiveSchema = z.object({ live: z.literal(true), timestamp: z.string() }).openapi("Liveness");
