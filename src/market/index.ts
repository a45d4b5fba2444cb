import { type Clock, systemClock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { EventBus } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import { SOL_MINT } from "../money.ts";
import { BirdeyeWhaleClient } from "./birdeye.ts";
import { createDemoMarket } from "./demo/index.ts";
import { DexScreenerClient } from "./dexscreener.ts";
import { HermesClient } from "./hermes.ts";
import { type FetchLike, HttpClient, type RetryPolicy } from "./http-client.ts";
import { JupiterPriceClient } from "./jupiter-price.ts";
import { JupiterSwapClient } from "./jupiter-swap.ts";
import { JupiterSwapV2Client, type SwapApi } from "./jupiter-swap-v2.ts";
import {
  unconfiguredMarketData,
  unconfiguredQuotes,
  unconfiguredTokenPrices,
  unconfiguredWhales,
  WHALE_DATA_NOT_CONFIGURED,
  WHALE_DATA_URL_NOT_CONFIGURED,
} from "./not-configured.ts";
import { LanedRateLimiter, type Pacer, type RateLimit, RateLimiter } from "./rate-limiter.ts";
import { type Probes, Reachability, ReachabilityProber } from "./reachability.ts";
import { sharedLaneQuotes } from "./simulation-quotes.ts";
import { type SolPriceOptions, SolPriceService } from "./sol-price.ts";
import { dataSourceStatus } from "./status.ts";
import type { Market, Quote, QuoteProvider } from "./types.ts";

// Builds Services.market from configuration (PRODUCT.md §5): one adapter per configured source,
// a "not configured" stand-in for each disabled one. Nothing connects here: the SOL price stream
// starts only when start() is called (serve() does, through the lifecycle; tests call it).

/** Providers with their own client-side limit. "jupiter" paces price, quote and swap together. */
type LimitedProvider = "jupiter" | "priceNetwork" | "marketData" | "whaleData";

/** Under each provider's published limit (PRODUCT.md §5; docs/decisions.md "Market connections"). */
export const DEFAULT_LIMITS = {
  /** Keyless Jupiter: about one request every 2 s. */
  jupiterKeyless: { intervalMs: 2_000 },
  /** Jupiter with an API key (free tier: 60 requests per minute). */
  jupiterKeyed: { intervalMs: 1_000 },
  /** Hermes: 30 requests per 10 s per address; we use at most 25. */
  priceNetwork: { intervalMs: 400 },
  /** DexScreener tokens v1: 300 requests per minute; we use at most 240. */
  marketData: { intervalMs: 250 },
  /** Birdeye standard tier: 1 request per second. */
  whaleData: { intervalMs: 1_000 },
} as const satisfies Record<string, RateLimit>;

/** Jupiter's pacing: SWAP_AGGREGATOR_REQUESTS_PER_MINUTE when set, else the published limit of the tier. */
export function swapAggregatorLimit(
  config: Pick<Config, "SWAP_AGGREGATOR_API_KEY" | "SWAP_AGGREGATOR_REQUESTS_PER_MINUTE">,
): RateLimit {
  const perMinute = config.SWAP_AGGREGATOR_REQUESTS_PER_MINUTE;
  if (perMinute !== undefined) return { intervalMs: 60_000 / perMinute };
  return config.SWAP_AGGREGATOR_API_KEY ? DEFAULT_LIMITS.jupiterKeyed : DEFAULT_LIMITS.jupiterKeyless;
}

export interface MarketOptions {
  /** Sleeps of the retry back-off and the rate limiters (tests: a virtual timer). */
  timer?: Clock;
  fetch?: FetchLike;
  /** Override a provider's pacing (tests and the benchmark raise them; UNLIMITED disables). */
  limits?: Partial<Record<LimitedProvider, RateLimit>>;
  retry?: Partial<RetryPolicy>;
  /** Per-attempt timeout; default HTTP_TIMEOUT_MS. */
  timeoutMs?: number;
  solPrice?: Partial<SolPriceOptions>;
  tokenPriceCacheTtlMs?: number;
  marketDataCacheTtlMs?: number;
}

export interface MarketDeps {
  clock: Clock;
  logger: Logger;
  events?: EventBus | null;
  /** Told every swap-aggregator quote answered (price impacts for backtests). */
  onQuote?: (q: Quote) => void;
}

export interface MarketServices extends Market {
  solPrice: SolPriceService;
  /** Whether each source answers (observed on every call, probed once a minute when idle). */
  reachability: Reachability;
  prober: ReachabilityProber;
  /** Quotes and swaps of live trades: the aggregator budget's priority lane (absent: `quotes`). */
  liveQuotes?: QuoteProvider;
  /**
   * Shutdown's first step: ends every read of prices and market data, waiting or in flight (the
   * SOL price feed's own loop stops with stop()); quotes and swaps are left to finish.
   */
  stopReads(): void;
  /** SWAP_API: which Jupiter API live swaps (and simulation quotes) speak. */
  swapApi?: SwapApi;
  /** Swap API v2 over the live lane, when SWAP_API is build or order and the aggregator is configured. */
  liveSwapV2?: JupiterSwapV2Client | null;
}

/**
 * One cheap question per source, asked only when a source was not heard from for a minute.
 * Birdeye is left out: its calls cost the user's API credits; its use is the observation.
 */
function sourceProbes(
  swapHttp: HttpClient | null,
  solFeedHttp: HttpClient | null,
  hermes: HermesClient | null,
  marketData: MarketServices["marketData"],
): Probes {
  return {
    ...(swapHttp ? { swapAggregator: () => swapHttp.getJson("/price/v3", { ids: SOL_MINT }) } : {}),
    ...(solFeedHttp ? { solPriceFeed: () => solFeedHttp.getJson("/price/v3", { ids: SOL_MINT }) } : {}),
    ...(hermes ? { priceNetwork: () => hermes.latest() } : {}),
    ...(marketData.configured ? { marketData: () => marketData.getTokens([SOL_MINT]) } : {}),
  };
}

type ClientOf = (
  service: string,
  baseUrl: string,
  headers: Record<string, string>,
  rl: Pacer,
  read?: boolean,
) => HttpClient;

/**
 * Jupiter: the swap aggregator (quotes, swaps, token prices) and the SOL price feed share one
 * client-side limiter, and the key, when they point at the same host (the default). Live swaps and
 * their quotes have the budget's priority lane; everything else (simulation quotes, prices,
 * probes) shares the other one (LanedRateLimiter). Quotes and swaps (simulated or live) are
 * trades: not aborted on shutdown; token prices and the probe are reads, on a client of their own
 * over the same lane.
 */
function jupiterClients(
  config: Config,
  opts: MarketOptions,
  client: ClientOf,
  limiter: (limit: RateLimit) => RateLimiter,
): {
  swapHttp: HttpClient | null;
  priceHttp: HttpClient | null;
  liveSwapHttp: HttpClient | null;
  solFeedHttp: HttpClient | null;
} {
  const url = config.SWAP_AGGREGATOR_URL;
  const swapKey = config.SWAP_AGGREGATOR_API_KEY;
  const swapHeaders: Record<string, string> = swapKey ? { "x-api-key": swapKey } : {};
  const swapLanes = new LanedRateLimiter(limiter(opts.limits?.jupiter ?? swapAggregatorLimit(config)));
  const swapLimiter = swapLanes.lane("shared");
  const sameJupiter = config.SOL_PRICE_FEED_URL !== "" && config.SOL_PRICE_FEED_URL === url;
  const feedLimiter = sameJupiter ? swapLimiter : limiter(opts.limits?.jupiter ?? DEFAULT_LIMITS.jupiterKeyless);
  return {
    swapHttp: url ? client("swapAggregator", url, swapHeaders, swapLimiter, false) : null,
    priceHttp: url ? client("swapAggregator", url, swapHeaders, swapLimiter) : null,
    liveSwapHttp: url ? client("swapAggregator", url, swapHeaders, swapLanes.lane("priority"), false) : null,
    solFeedHttp: config.SOL_PRICE_FEED_URL
      ? client("solPriceFeed", config.SOL_PRICE_FEED_URL, sameJupiter ? swapHeaders : {}, feedLimiter)
      : null,
  };
}

export function createMarket(config: Config, deps: MarketDeps, opts: MarketOptions = {}): MarketServices {
  // DEMO_MARKET=true: the built-in synthetic market instead of every outside source (PRODUCT.md §7).
  if (config.DEMO_MARKET) return createDemoMarket(config, deps, opts);
  const timer = opts.timer ?? systemClock;
  const logger = deps.logger.child({ component: "market" });
  const limiter = (limit: RateLimit) => new RateLimiter(limit, timer);
  const reachability = new Reachability(deps.clock);
  // Aborted first thing on shutdown (stopReads): every read of prices and market data ends then.
  const reads = new AbortController();
  const client: ClientOf = (service, baseUrl, headers, rl, read = true) =>
    new HttpClient({
      service,
      baseUrl,
      headers,
      timeoutMs: opts.timeoutMs ?? config.HTTP_TIMEOUT_MS,
      limiter: rl,
      timer,
      retry: opts.retry,
      fetch: opts.fetch,
      logger,
      reachability,
      ...(read ? { abortOn: reads.signal } : {}),
    });

  const { swapHttp, priceHttp, liveSwapHttp, solFeedHttp } = jupiterClients(config, opts, client, limiter);

  const priceKey = config.PRICE_NETWORK_API_KEY;
  const hermes =
    config.PRICE_NETWORK_URL && priceKey
      ? new HermesClient(
          client(
            "priceNetwork",
            config.PRICE_NETWORK_URL,
            { authorization: `Bearer ${priceKey}` },
            limiter(opts.limits?.priceNetwork ?? DEFAULT_LIMITS.priceNetwork),
          ),
        )
      : null;

  const tokenPrices = priceHttp
    ? new JupiterPriceClient(priceHttp, deps.clock, {
        // Within one monitor tick: the monitor does not decide on a price older than two ticks.
        cacheTtlMs: opts.tokenPriceCacheTtlMs ?? Math.min(5_000, config.MONITOR_INTERVAL_SECONDS * 1000),
      })
    : null;
  const solFeed = solFeedHttp ? new JupiterPriceClient(solFeedHttp, deps.clock, { cacheTtlMs: 0 }) : null;

  const marketData = config.MARKET_DATA_URL
    ? new DexScreenerClient(
        client("marketData", config.MARKET_DATA_URL, {}, limiter(opts.limits?.marketData ?? DEFAULT_LIMITS.marketData)),
        deps.clock,
        { cacheTtlMs: opts.marketDataCacheTtlMs },
      )
    : unconfiguredMarketData;

  const whaleKey = config.WHALE_DATA_API_KEY;
  const whales =
    config.WHALE_DATA_URL && whaleKey
      ? new BirdeyeWhaleClient(
          client(
            "signalGeneration",
            config.WHALE_DATA_URL,
            { "X-API-KEY": whaleKey, "x-chain": "solana" },
            limiter(opts.limits?.whaleData ?? DEFAULT_LIMITS.whaleData),
          ),
        )
      : unconfiguredWhales(whaleKey ? WHALE_DATA_URL_NOT_CONFIGURED : WHALE_DATA_NOT_CONFIGURED);

  const solPrice = new SolPriceService(
    { hermes, jupiter: solFeed, clock: deps.clock, logger, events: deps.events ?? null },
    opts.solPrice,
  );

  const prober = new ReachabilityProber(
    reachability,
    sourceProbes(priceHttp, solFeedHttp, hermes, marketData),
    deps.clock,
  );
  return {
    solPrice,
    reachability,
    prober,
    tokenPrices: tokenPrices ?? unconfiguredTokenPrices,
    decimals: tokenPrices ?? unconfiguredTokenPrices,
    quotes: swapHttp ? sharedLaneQuotes(config, swapHttp, deps.onQuote) : unconfiguredQuotes,
    liveQuotes: liveSwapHttp ? new JupiterSwapClient(liveSwapHttp, deps.onQuote) : unconfiguredQuotes,
    swapApi: config.SWAP_API,
    liveSwapV2:
      liveSwapHttp && config.SWAP_API !== "v1" ? new JupiterSwapV2Client(liveSwapHttp, { api: config.SWAP_API }) : null,
    marketData,
    whales,
    status: () => dataSourceStatus(config, reachability),
    stopReads: () => {
      prober.stop();
      reads.abort();
    },
    stop: () => {
      prober.stop();
      return solPrice.stop();
    },
  };
}
