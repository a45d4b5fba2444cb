import { z } from "@hono/zod-openapi";

// SPEC "Data-source status": six keys, each {configured: boolean}, plus `reachable` (our
// addition: null until the source was tried, or when it is not configured); nothing else ever leaves.
// solanaRpc, solanaConfirmRpc and jitoBlockEngine are our addition too (issue 34: live trading visible).
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
    solanaRpc: Configured.openapi({
      description: "SOLANA_RPC_URL: the Solana node of live trading, token screening and copy trading (our addition)",
    }),
    solanaConfirmRpc: Configured.openapi({
      description:
        "SOLANA_CONFIRM_RPC_URL, when set: the second node an expired live swap is checked on (our addition)",
    }),
    jitoBlockEngine: Configured.openapi({ description: "JITO_BLOCK_ENGINE_URL, when set (our addition)" }),
  })
  .openapi("DataSourceStatus", {
    example: {
      priceNetwork: { configured: false, reachable: null },
      solPriceFeed: { configured: true, reachable: true },
      swapAggregator: { configured: true, reachable: true },
      marketData: { configured: true, reachable: true },
      liquidityChecks: { configured: true, reachable: true },
      signalGeneration: { configured: false, reachable: null },
      solanaRpc: { configured: true, reachable: true },
      solanaConfirmRpc: { configured: false, reachable: null },
      jitoBlockEngine: { configured: false, reachable: null },
    },
  });
