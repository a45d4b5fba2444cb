import { z } from "@hono/zod-openapi";

// SPEC "Data-source status": six keys, each {configured: boolean}, plus `reachable` (our
// addition: null until the source was tried, or when it is not configured); nothing else ever leaves.
const Configured = z.object({
  configured: z.boolean(),
  reachable: z.boolean().nullable().openapi({ description: "Did the source answer its last call; null: never tried" }),
});

export const DataSourceStatusSchema = z
  .object({
    priceNetwork: Configured,
    solPriceFeed: Configured,
    swapAggregator: Configured,
    marketData: Configured,
    liquidityChecks: Configured,
    signalGeneration: Configured,
  })
  .openapi("DataSourceStatus", {
    example: {
      priceNetwork: { configured: false, reachable: null },
      solPriceFeed: { configured: true, reachable: true },
      swapAggregator: { configured: true, reachable: true },
      marketData: { configured: true, reachable: true },
      liquidityChecks: { configured: true, reachable: true },
      signalGeneration: { configured: false, reachable: null },
    },
  });
