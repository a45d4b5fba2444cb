import type { AppDeps } from "../../app-env.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses } from "../../schemas.ts";
import { SolPriceSchema } from "./schema.ts";

// GET /price-feeds/sol-usd (SPEC "Price, data-source, health endpoints"): the latest SOL/USD
// value with its staleness. Before the first update the sources are asked once: 502 when they
// fail, 503 when none is configured (docs/decisions.md "Market connections").

const solUsd = operation({
  method: "get",
  path: "/sol-usd",
  tags: ["price-feeds"],
  auth: auth.user,
  responses: {
    200: { description: "SOL/USD price", content: { "application/json": { schema: SolPriceSchema } } },
    ...errorResponses(401, 502, 503),
  },
});

export function priceFeedRoutes(s: AppDeps) {
  const router = createRouter(s);
  return router.openapi(solUsd, async (c) => c.json(await s.market.solPrice.fetchCurrent(), 200));
}
