import { z } from "@hono/zod-openapi";
import type { AppDeps } from "../../app-env.ts";
import { auth, createRouter, operation } from "../../operation.ts";

// GET /metrics (SPEC "Price, data-source, health endpoints"; PRODUCT.md §6): the Prometheus text
// exposition, no credential. Declared with createRoute so the OpenAPI document lists it.

const metrics = operation({
  method: "get",
  path: "/metrics",
  auth: auth.none,
  tags: ["health"],
  summary: "Prometheus metrics",
  responses: {
    200: {
      description: "Prometheus text exposition (version 0.0.4)",
      content: { "text/plain": { schema: z.string() } },
    },
  },
});

export function metricsRoutes(s: AppDeps) {
  return createRouter(s).openapi(metrics, async (c) => {
    const text = await s.metrics.exposition();
    return c.text(text, 200, { "Content-Type": s.metrics.contentType });
  });
}
