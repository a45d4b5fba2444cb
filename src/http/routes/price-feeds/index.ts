import { createRoute } from "@hono/zod-openapi";
import type { AppDeps } from "../../app-env.ts";
import { createRouter } from "../../router.ts";
import { errorResponses, userSecurity } from "../../schemas.ts";
import { SolPriceSchema } from "./schema.ts";

// GET /price-feeds/sol-usd (SPEC "Price, data-source, health endpoints"): the latest SOL/USD
// value with its staleness. Before the first update the sources are asked once: 502 when they
// fail, 503 when none is configured (docs/decisions.md "Market connections").

const solUsd = createRoute({
  method: "get",
  path: "/sol-usd",
  tags: ["price-feeds"],
  security: userSecurity,
  responses: {
    200: { description: "SOL/USD price", content: { "application/json": { schema: SolPriceSchema } } },
    ...errorResponses(401, 502, 503),
  },
});

export function priceFeedRoutes(s: AppDeps) {
  const router = createRouter();
  router.use("*", s.auth.requireUser());
  return router.openapi(solUsd, async (c) => c.json(await s.market.solPrice.fetchCurrent(), 200));
}
