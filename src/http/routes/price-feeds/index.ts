import { AppError, ExternalServiceError } from "../../../errors.ts";
import type { SolPriceSource } from "../../../market/types.ts";
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
  return router.openapi(solUsd, async (c) => c.json(await solPriceAnswer(s.market.solPrice), 200));
}

/**
 * The SOL price with `unavailableSince` (issue 34: the dashboard says since when it is missing);
 * also GET /v1/prices/sol. No price ever had: the 502 carries it in its details.
 */
export async function solPriceAnswer(feed: SolPriceSource) {
  try {
    const price = await feed.fetchCurrent();
    return { ...price, unavailableSince: feed.unavailableSince() };
  } catch (err) {
    const since = feed.unavailableSince();
    if (err instanceof ExternalServiceError && since) {
      throw new AppError(err.code, err.message, { ...(err.details as object), unavailableSince: since });
    }
    throw err;
  }
}
