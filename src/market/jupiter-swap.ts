import { ValidationError } from "../errors.ts";
import { atomic, decimalText, int, isObject, obj, str } from "./fields.ts";
import { type HttpClient, unexpectedResponse } from "./http-client.ts";
import type { PriorityFee, Quote, QuoteProvider, QuoteRequest, SwapTransaction } from "./types.ts";

// Jupiter Swap API v1 (PRODUCT.md §5, swapAggregator):
//   GET  /swap/v1/quote?inputMint&outputMint&amount&slippageBps[&swapMode]
//        → {inputMint, inAmount, outputMint, outAmount, otherAmountThreshold, swapMode,
//           slippageBps, platformFee, priceImpactPct, routePlan[{swapInfo{label...}, percent}],
//           contextSlot, timeTaken}; amounts are atomic-unit strings, priceImpactPct a fraction.
//        A pair it cannot route answers 400 {error, errorCode: "COULD_NOT_FIND_ANY_ROUTE"}.
//   POST /swap/v1/swap {quoteResponse, userPublicKey, prioritizationFeeLamports, ...}
//        → {swapTransaction (base64), lastValidBlockHeight, prioritizationFeeLamports, ...}; only
//          swapTransaction is required (the rest is reported or not read at all).
// The quote object goes back to /swap exactly as it came (Quote.raw).

/** Cap on the aggregator-chosen priority fee of the setting "auto": 0.001 SOL. */
export const AUTO_PRIORITY_FEE_MAX_LAMPORTS = 1_000_000;

/**
 * A priority-fee setting (the live v1 lane sends LIVE_PRIORITY_FEE_MAX) in the form the Swap API
 * v1 documents for `prioritizationFeeLamports`: an object, `{priorityLevelWithMaxLamports: {priorityLevel, maxLamports}}` (or `{jitoTipLamports}`,
 * a Jito tip, which this service does not send). The bare number of the old v6 API is no longer
 * documented, and the API offers no exact lamport fee, so a fixed setting is the cap of a
 * "veryHigh" estimate (near the cap when the network is busy); `auto` is a "high" estimate under
 * 0.001 SOL. Either way a live swap pays at most priorityFeeLamports(setting), which the
 * inspection enforces and the simulation charges (src/trading/rules/fees.ts).
 */
function prioritizationFee(fee: PriorityFee): {
  priorityLevelWithMaxLamports: { maxLamports: number; priorityLevel: "high" | "veryHigh" };
} {
  return fee === "auto"
    ? { priorityLevelWithMaxLamports: { maxLamports: AUTO_PRIORITY_FEE_MAX_LAMPORTS, priorityLevel: "high" } }
    : { priorityLevelWithMaxLamports: { maxLamports: Math.max(0, Math.floor(fee)), priorityLevel: "veryHigh" } };
}

export class JupiterSwapClient implements QuoteProvider {
  readonly configured = true;

  constructor(
    private readonly http: HttpClient,
    /** Told every quote answered (the price impacts backtests apply; src/price-history/impact-recorder.ts). */
    private readonly onQuote?: (q: Quote) => void,
  ) {}

  async quote(req: QuoteRequest): Promise<Quote> {
    checkQuoteRequest(req);
    const body = await this.http.getJson("/swap/v1/quote", {
      inputMint: req.inputMint,
      outputMint: req.outputMint,
      amount: req.amount,
      slippageBps: req.slippageBps,
      swapMode: req.swapMode,
    });
    const quote = parseQuote(this.http.service, body);
    this.onQuote?.(quote);
    return quote;
  }

  async swapTransaction(quote: Quote, userPublicKey: string, priorityFee: PriorityFee): Promise<SwapTransaction> {
    const body = await this.http.postJson("/swap/v1/swap", {
      quoteResponse: quote.raw,
      userPublicKey,
      wrapAndUnwrapSol: true,
      dynamicComputeUnitLimit: true,
      prioritizationFeeLamports: prioritizationFee(priorityFee),
    });
    // A tolerant reader: only swapTransaction is required. Its lastValidBlockHeight is not read (our
    // own blockhash replaces Jupiter's: live/prepare-swap.ts); the fee and limit are reported only.
    const b = obj(body);
    const tx = str(b?.swapTransaction);
    if (!b || tx === null) throw unexpectedResponse(this.http.service, "swap answer without swapTransaction");
    return {
      swapTransaction: tx,
      prioritizationFeeLamports: int(b.prioritizationFeeLamports),
      computeUnitLimit: int(b.computeUnitLimit),
      simulationError: b.simulationError ?? null,
    };
  }
}

/** The checks a quote request passes before it is sent (v1 and v2 alike). */
export function checkQuoteRequest(req: QuoteRequest): void {
  if (!/^[1-9]\d*$/.test(req.amount))
    throw new ValidationError("Quote amount must be a positive whole number of atomic units");
  if (!Number.isInteger(req.slippageBps) || req.slippageBps < 0 || req.slippageBps > 10_000)
    throw new ValidationError("slippageBps must be a whole number from 0 to 10000");
}

/**
 * A Jupiter quote document (v1 /quote; the same quote fields sit in v2 /build and /order) as a
 * Quote; `raw` keeps the document exactly as received.
 */
export function parseQuote(service: string, body: unknown): Quote {
  const b = obj(body);
  if (!b) throw unexpectedResponse(service, "quote is not an object");
  const inAmount = atomic(b.inAmount);
  const outAmount = atomic(b.outAmount);
  const inputMint = str(b.inputMint);
  const outputMint = str(b.outputMint);
  if (!inAmount || !outAmount || !inputMint || !outputMint) {
    throw unexpectedResponse(service, "quote without inputMint, outputMint, inAmount and outAmount");
  }
  const labels: string[] = [];
  if (Array.isArray(b.routePlan)) {
    for (const step of b.routePlan) {
      const label = str(obj(obj(step)?.swapInfo)?.label);
      if (label && !labels.includes(label)) labels.push(label);
    }
  }
  return {
    inputMint,
    outputMint,
    inAmount,
    outAmount,
    otherAmountThreshold: atomic(b.otherAmountThreshold) ?? outAmount,
    swapMode: str(b.swapMode) ?? "ExactIn",
    slippageBps: int(b.slippageBps) ?? 0,
    priceImpactPct: decimalText(b.priceImpactPct) ?? "0",
    routeLabels: labels,
    contextSlot: int(b.contextSlot),
    raw: Object.freeze({ ...(isObject(body) ? body : {}) }),
  };
}
