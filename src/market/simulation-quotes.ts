import type { Config } from "../config.ts";
import type { HttpClient } from "./http-client.ts";
import { JupiterSwapClient } from "./jupiter-swap.ts";
import { JupiterSwapV2Client } from "./jupiter-swap-v2.ts";
import type { Quote, QuoteProvider } from "./types.ts";

// Market.quotes: the quotes simulated trades, token screening and quote pricing read, from the API
// and router a live trade would use (so a simulated fill is the fill live would get):
// SWAP_API=build → /swap/v2/build for SWAP_QUOTE_TAKER (Metis, no Jupiter fee), order →
// /swap/v2/order without taker (every router; Jupiter's fee already out of outAmount), v1 →
// /swap/v1/quote. Live swaps take their quotes from MarketServices.liveQuotes / liveSwapV2 on the
// priority lane, never from here, so swapTransaction exists only on the v1 client.

export function sharedLaneQuotes(
  config: Pick<Config, "SWAP_API" | "SWAP_QUOTE_TAKER">,
  http: HttpClient,
  onQuote?: (q: Quote) => void,
): QuoteProvider {
  const api = config.SWAP_API;
  if (api === "v1") return new JupiterSwapClient(http, onQuote);
  const v2 = new JupiterSwapV2Client(http, { api, quoteTaker: config.SWAP_QUOTE_TAKER, onQuote });
  return {
    configured: true,
    quote: (req) => v2.quote(req),
    swapTransaction: () =>
      Promise.reject(new Error(`SWAP_API=${api}: live swaps go through the live lane's Swap API v2 client`)),
  };
}
