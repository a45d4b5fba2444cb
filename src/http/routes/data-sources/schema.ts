import { z } from "@hono/zod-openapi";

// SPEC "Data-source status": six keys, each {configured: boolean}; nothing else ever leaves.
const Configured = z.object({ configured: z.boolean() });

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
      priceNetwork: { configured: false },
      solPriceFeed: { configured: true },
      swapAggregator: { configured: true },
      marketData: { configured: true },
      liquidityChecks: { configured: true },
      signalGeneration: { configured: false },
    },
  });
