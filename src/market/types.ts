// The interfaces the trading engine and the routes use to meet the market (PRODUCT.md §5). Each
// is implemented by one adapter per protocol in this folder, and by a "not configured" stand-in
// when the source's URL is empty. Amounts are atomic-unit strings and prices decimal strings:
// no float ever carries money (STYLE.md "Money"). Failures are ExternalServiceError (502, naming
// the data source); calling a source that is switched off throws ServiceNotConfiguredError (503).

/** The data-source names of SPEC "Data-source status" / PRODUCT.md §5. */
export type DataSourceName =
  | "priceNetwork"
  | "solPriceFeed"
  | "swapAggregator"
  | "marketData"
  | "liquidityChecks"
  | "signalGeneration"
  /** SOLANA_RPC_URL (live trading, screening, copy trading); issue 34. */
  | "solanaRpc"
  /** SOLANA_CONFIRM_RPC_URL, when set: the second node an expiry proof needs too. */
  | "solanaConfirmRpc"
  /** JITO_BLOCK_ENGINE_URL, when set. */
  | "jitoBlockEngine";

/**
 * SPEC "Data-source status": `configured` booleans only, never a URL or a key; we add
 * `reachable` (null when never tried or not configured).
 */
export type DataSourceStatus = Record<DataSourceName, { configured: boolean; reachable: boolean | null }>;

// ---------------------------------------------------------------------------------------------
// SOL/USD

/** SPEC "SOL price". */
export interface SolPrice {
  /** USD per SOL, exactly 8 decimal places. */
  price: string;
  /** ISO 8601 time the service received the value. */
  lastUpdated: string;
  /** More than 60 s without an update, or the price connection down (SPEC "Limits"). */
  isStale: boolean;
  /** Where the value came from: "priceNetwork" (stream or latest), "solPriceFeed", or "demo" (DEMO_MARKET). */
  source: "priceNetwork" | "solPriceFeed" | "demo";
}

export interface SolPriceSource {
  /** False when neither priceNetwork (URL + key) nor solPriceFeed is configured. */
  readonly configured: boolean;
  /** The latest value, no I/O; null before the first update. */
  current(): SolPrice | null;
  /** Since when the price has been stale or not to be had (ISO 8601); null while fresh or never asked. */
  unavailableSince(): string | null;
  /**
   * The latest value, or (before the first update) one fetched now. Throws
   * ServiceNotConfiguredError when no source is configured, ExternalServiceError when all fail.
   */
  fetchCurrent(): Promise<SolPrice>;
  /** Asks the sources once now, even with a value in hand (a stale one); throws as fetchCurrent. */
  refresh?(): Promise<SolPrice>;
  /** Starts the stream (or polling). Never called by createServices: serve() runs it. */
  start(): void;
  stop(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Token prices and decimals

export interface TokenPrice {
  mint: string;
  /** USD per whole token, decimal string; always > 0 (an unpriced mint is absent, never "0"). */
  usd: string;
  /** The mint's decimals as the price API reports them; null when it did not say. */
  decimals: number | null;
  priceChange24h: number | null;
  liquidityUsd: number | null;
  /** When the service received it (epoch ms, service clock); absent: just now. A cached price is older. */
  observedAtMs?: number;
}

export interface TokenPriceProvider {
  readonly configured: boolean;
  /**
   * Prices mints in batches (at most 50 per request) through a short cache. A mint the provider
   * cannot price is ABSENT from the map: treat it as unknown, never as zero.
   */
  getPrices(mints: readonly string[]): Promise<Map<string, TokenPrice>>;
}

/**
 * Decimals of a mint (needed to turn a quote's atomic amounts into token amounts). The
 * swap-aggregator adapter answers from Jupiter Price v3's `decimals` field (cached for good: a
 * mint's decimals never change). A mint it does not know is absent; live trading can fall back
 * to the RPC's `getTokenSupply` (value.decimals) for those. SOL is always 9.
 */
export interface TokenDecimalsProvider {
  getDecimals(mints: readonly string[]): Promise<Map<string, number>>;
  /** Why a mint is absent, when the provider knows better than "unknown" (the demo market). */
  whyUnknown?(mint: string): string;
}

// ---------------------------------------------------------------------------------------------
// Quotes and swap transactions

export interface QuoteRequest {
  inputMint: string;
  outputMint: string;
  /** Atomic units of the input mint (lamports for SOL), a whole-number string. */
  amount: string;
  slippageBps: number;
  /** Default ExactIn. */
  swapMode?: "ExactIn" | "ExactOut";
}

export interface Quote {
  inputMint: string;
  outputMint: string;
  /** Atomic units, whole-number strings. */
  inAmount: string;
  outAmount: string;
  /** Worst acceptable output after slippage (ExactIn), atomic units. */
  otherAmountThreshold: string;
  swapMode: string;
  slippageBps: number;
  /** Price impact as a fraction (0.0123 = 1.23 %), decimal string. */
  priceImpactPct: string;
  /** DEX labels of the route, in route order, without duplicates. */
  routeLabels: string[];
  contextSlot: number | null;
  /**
   * Swap API v2 /order only: the router that won (iris, jupiterz, dflow, okx), Jupiter's fee in
   * basis points (already deducted from outAmount: https://dev.jup.ag/docs/swap/fees) and the
   * priority fee (lamports) the order's own transaction pays, when the answer names them.
   */
  order?: { router: string | null; feeBps: number; prioritizationFeeLamports: number | null };
  /** The provider's quote object exactly as received: swapTransaction() sends it back unchanged. */
  readonly raw: Readonly<Record<string, unknown>>;
}

/** Priority fee of a live swap: lamports, or "auto" (the aggregator picks, capped). */
export type PriorityFee = number | "auto";

export interface SwapTransaction {
  /** Base64 serialized (versioned) transaction, unsigned; the wallet's key signs it. */
  swapTransaction: string;
  prioritizationFeeLamports: number | null;
  computeUnitLimit: number | null;
  /** The aggregator's own simulation error, when it reports one (null otherwise). */
  simulationError: unknown;
}

export interface QuoteProvider {
  readonly configured: boolean;
  quote(req: QuoteRequest): Promise<Quote>;
  swapTransaction(quote: Quote, userPublicKey: string, priorityFee: PriorityFee): Promise<SwapTransaction>;
}

// ---------------------------------------------------------------------------------------------
// Market data

/** The most liquid Solana pair of a token (DexScreener); every field may be unknown. */
export interface TokenMarketData {
  mint: string;
  symbol: string | null;
  name: string | null;
  /** Decimal strings as the provider gives them. */
  priceUsd: string | null;
  priceNative: string | null;
  /** marketCap, or fdv when the provider has no market cap. */
  marketCapUsd: number | null;
  fdvUsd: number | null;
  liquidityUsd: number | null;
  volume24hUsd: number | null;
  pairAddress: string | null;
  dexId: string | null;
  /** Symbol of the pair's other side (SOL, USDC...). */
  quoteSymbol: string | null;
}

export interface MarketDataProvider {
  readonly configured: boolean;
  /**
   * Market data in batches (at most 30 addresses per request) through a short cache. A mint with
   * no Solana pair is absent from the map.
   */
  getTokens(mints: readonly string[]): Promise<Map<string, TokenMarketData>>;
}

// ---------------------------------------------------------------------------------------------
// Whale trades

export interface WhaleTrade {
  txHash: string;
  /** ISO 8601 block time. */
  blockTime: string;
  tokenAddress: string;
  side: string;
  volumeUsd: number | null;
  owner: string | null;
  /** DEX / program the trade went through. */
  source: string | null;
  /** Whole tokens of `tokenAddress` bought, when reported. */
  tokenAmount: number | null;
  /** USD per token at the trade, when reported. */
  priceUsd: number | null;
}

export interface WhaleTradeQuery {
  /** Minimum trade size in USD (default 10 000). */
  minVolumeUsd?: number;
  /** 1..500, default 50. */
  limit?: number;
}

export interface WhaleTradesProvider {
  readonly configured: boolean;
  /**
   * Throws ServiceNotConfiguredError (503 SERVICE_NOT_CONFIGURED, naming WHALE_DATA_API_KEY)
   * when signalGeneration is not configured; the public whale routes call this first.
   */
  assertConfigured(): void;
  /** Latest buys of at least `minVolumeUsd` of one token, newest first. */
  getTrades(tokenAddress: string, query?: WhaleTradeQuery): Promise<WhaleTrade[]>;
}

// ---------------------------------------------------------------------------------------------

/** `Services.market`. */
export interface Market {
  solPrice: SolPriceSource;
  tokenPrices: TokenPriceProvider;
  decimals: TokenDecimalsProvider;
  quotes: QuoteProvider;
  marketData: MarketDataProvider;
  whales: WhaleTradesProvider;
  status(): DataSourceStatus;
  /** Stops the SOL price stream and polling. */
  stop(): Promise<void>;
}
