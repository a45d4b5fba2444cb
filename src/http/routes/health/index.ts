import { createRoute, z } from "@hono/zod-openapi";
import type { Services } from "../../../services.ts";
import { createRouter } from "../../router.ts";

const live = createRoute({
  method: "get",
  path: "/live",
  tags: ["health"],
  responses: {
    200: {
      description: "The process is up",
      content: { "application/json": { schema: z.object({ live: z.literal(true), timestamp: z.string() }) } },
    },
  },
});

export function healthRoutes(s: Services) {
  return createRouter().openapi(live, (c) => c.json({ live: true as const, timestamp: new Date(s.clock.now()).toISOString() }, 200));
}
