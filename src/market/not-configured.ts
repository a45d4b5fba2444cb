import { ServiceNotConfiguredError } from "../errors.ts";
import type {
  MarketDataProvider,
  QuoteProvider,
  TokenDecimalsProvider,
  TokenPriceProvider,
  WhaleTradesProvider,
} from "./types.ts";

// Stand-ins for sources whose URL is empty (PRODUCT.md §5: an empty value disables a source).
// They connect nowhere; a call answers 503 SERVICE_NOT_CONFIGURED naming the variable to set.
// The engine checks `configured` first where a missing source only means "skip" (filters).

const SWAP_AGGREGATOR_NOT_CONFIGURED = "Swap aggregator is not configured: set SWAP_AGGREGATOR_URL";
const MARKET_DATA_NOT_CONFIGURED = "Market data is not configured: set MARKET_DATA_URL";
export const WHALE_DATA_NOT_CONFIGURED = "Whale trade data is not configured: set WHALE_DATA_API_KEY";
export const WHALE_DATA_URL_NOT_CONFIGURED = "Whale trade data is not configured: set WHALE_DATA_URL";

const fail = (message: string) => () => Promise.reject(new ServiceNotConfiguredError(message));

export const unconfiguredTokenPrices: TokenPriceProvider & TokenDecimalsProvider = {
  configured: false,
  getPrices: fail(SWAP_AGGREGATOR_NOT_CONFIGURED),
  getDecimals: fail(SWAP_AGGREGATOR_NOT_CONFIGURED),
};

export const unconfiguredQuotes: QuoteProvider = {
  configured: false,
  quote: fail(SWAP_AGGREGATOR_NOT_CONFIGURED),
  swapTransaction: fail(SWAP_AGGREGATOR_NOT_CONFIGURED),
};

export const unconfiguredMarketData: MarketDataProvider = {
  configured: false,
  getTokens: fail(MARKET_DATA_NOT_CONFIGURED),
};

/** `message` names the missing variable: the key (usually) or the URL. */
export const unconfiguredWhales = (message: string = WHALE_DATA_NOT_CONFIGURED): WhaleTradesProvider => ({
  configured: false,
  assertConfigured() {
    throw new ServiceNotConfiguredError(message);
  },
  getTrades: fail(message),
});
