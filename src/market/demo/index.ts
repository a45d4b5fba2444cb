import type { Config } from "../../config.ts";
import type { MarketDeps, MarketOptions, MarketServices } from "../index.ts";
import { SolPriceService } from "../sol-price.ts";
import type { DataSourceStatus } from "../types.ts";
import { DemoMarketData, DemoMarketState, DemoQuotes, DemoTokenPrices } from "./providers.ts";
import { STEP_MS } from "./random-walk.ts";
import { DEMO_TOKENS } from "./tokens.ts";
import { DemoWhales } from "./whales.ts";

// DEMO_MARKET=true (PRODUCT.md §7): every market interface served in-process by a
// synthetic market, so simulation trading, the position monitor and the public API work with no
// internet and no keys. No outside source is called: no HttpClient is built at all. Live trading
// cannot start with it (src/config.ts refuses LIVE_TRADING_ENABLED and WALLET_N), and a live swap
// asked of it answers 503.

import { Reachability, ReachabilityProber } from "../reachability.ts";

/**
 * SPEC "Data-source status" in demo mode (docs/decisions.md "Operator experience"): a source is
 * `configured` when the demo serves its role, so the flags still tell a client which features work.
 * priceNetwork (the Pyth stream) is not simulated: SOL/USD comes through the solPriceFeed role and
 * reports `source: "demo"`. The demo itself is announced in the start-up log and README.
 */
function demoDataSourceStatus(config: Pick<Config, "LIQUIDITY_CHECKS">): DataSourceStatus {
  // In-process sources always answer: reachable whenever they serve their role.
  const role = (configured: boolean) => ({ configured, reachable: configured ? true : null });
  return {
    priceNetwork: role(false),
    solPriceFeed: role(true),
    swapAggregator: role(true),
    marketData: role(true),
    liquidityChecks: role(config.LIQUIDITY_CHECKS),
    signalGeneration: role(true),
    // No chain on the demo market: live trading refuses to start with it.
    solanaRpc: role(false),
    solanaConfirmRpc: role(false),
    jitoBlockEngine: role(false),
  };
}

export function createDemoMarket(config: Config, deps: MarketDeps, opts: MarketOptions = {}): MarketServices {
  const logger = deps.logger.child({ component: "market" });
  const state = new DemoMarketState(deps.clock);
  const prices = new DemoTokenPrices(state);
  logger.warn(
    "DEMO_MARKET=true: a synthetic market serves prices, quotes, market data and whale trades; no outside source is called and nothing is real",
    {
      tokens: DEMO_TOKENS.map((t) => ({ symbol: t.symbol, address: t.address })),
    },
  );
  const solPrice = new SolPriceService(
    { hermes: null, jupiter: prices, feedSource: "demo", clock: deps.clock, logger, events: deps.events ?? null },
    // The walk moves every STEP_MS; poll it at that pace.
    { pollIntervalMs: STEP_MS, ...opts.solPrice },
  );
  const reachability = new Reachability(deps.clock);
  return {
    solPrice,
    reachability,
    prober: new ReachabilityProber(reachability, {}, deps.clock),
    tokenPrices: prices,
    decimals: prices,
    quotes: new DemoQuotes(state),
    marketData: new DemoMarketData(state),
    whales: new DemoWhales(state),
    status: () => demoDataSourceStatus(config),
    stopReads: () => {},
    stop: () => solPrice.stop(),
  };
}
