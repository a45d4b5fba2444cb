import type { Config } from "../config.ts";
import type { DataSourceStatus } from "./types.ts";

// SPEC "Data-source status" / PRODUCT.md §5: which sources are configured. An empty URL disables a
// source; priceNetwork and signalGeneration also need their key; liquidity checks need market data
// and LIQUIDITY_CHECKS not false. Only booleans leave this function.

export function dataSourceStatus(config: Config): DataSourceStatus {
  const marketData = config.MARKET_DATA_URL !== "";
  return {
    priceNetwork: { configured: config.PRICE_NETWORK_URL !== "" && config.PRICE_NETWORK_API_KEY !== undefined },
    solPriceFeed: { configured: config.SOL_PRICE_FEED_URL !== "" },
    swapAggregator: { configured: config.SWAP_AGGREGATOR_URL !== "" },
    marketData: { configured: marketData },
    liquidityChecks: { configured: marketData && config.LIQUIDITY_CHECKS },
    signalGeneration: { configured: config.WHALE_DATA_URL !== "" && config.WHALE_DATA_API_KEY !== undefined },
  };
}
