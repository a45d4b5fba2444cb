import type { Config } from "../config.ts";
import type { Reachability } from "./reachability.ts";
import type { DataSourceName, DataSourceStatus } from "./types.ts";

// SPEC "Data-source status" / PRODUCT.md §5: which sources are configured. An empty URL disables a
// source; priceNetwork and signalGeneration also need their key; liquidity checks need market data
// and LIQUIDITY_CHECKS not false. `reachable` says whether a configured source answers (null until
// tried; liquidity checks follow market data). Only booleans (and null) leave this function.

export function dataSourceStatus(config: Config, reachability?: Reachability): DataSourceStatus {
  const marketData = config.MARKET_DATA_URL !== "";
  const entry = (configured: boolean, name: DataSourceName) => ({
    configured,
    reachable: configured ? (reachability?.reachable(name) ?? null) : null,
  });
  return {
    priceNetwork: entry(config.PRICE_NETWORK_URL !== "" && config.PRICE_NETWORK_API_KEY !== undefined, "priceNetwork"),
    solPriceFeed: entry(config.SOL_PRICE_FEED_URL !== "", "solPriceFeed"),
    swapAggregator: entry(config.SWAP_AGGREGATOR_URL !== "", "swapAggregator"),
    marketData: entry(marketData, "marketData"),
    liquidityChecks: entry(marketData && config.LIQUIDITY_CHECKS, "marketData"),
    signalGeneration: entry(
      config.WHALE_DATA_URL !== "" && config.WHALE_DATA_API_KEY !== undefined,
      "signalGeneration",
    ),
    // Not in SPEC's list: the chain, so a live operator sees at once whether the node answers.
    solanaRpc: entry(config.SOLANA_RPC_URL !== "", "solanaRpc"),
    solanaConfirmRpc: entry(config.SOLANA_CONFIRM_RPC_URL !== "", "solanaConfirmRpc"),
    jitoBlockEngine: entry(config.JITO_BLOCK_ENGINE_URL !== "", "jitoBlockEngine"),
  };
}
