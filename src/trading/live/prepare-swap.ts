import type { VersionedTransaction } from "@solana/web3.js";
import { TradingError } from "../../errors.ts";
import { web3 } from "../../lazy/modules.ts";
import type { Logger } from "../../logger.ts";
import { unexpectedResponse } from "../../market/http-client.ts";
import type { PriorityFee, Quote, QuoteProvider, TokenPriceProvider } from "../../market/types.ts";
import { SOL_MINT } from "../../money.ts";
import type { SwapRequest } from "../executor.ts";
import { priorityFeeLamports } from "../rules/fees.ts";
import type { TokenScreen } from "../token-screen.ts";
import type { BlockhashRead, InspectorChain, SendChain } from "./chain-reads.ts";
import {
  type FloorVerdict,
  judgeQuote,
  NO_REFERENCE_PRICE_MESSAGE,
  priceApiReference,
  type ReferencePrice,
} from "./floor.ts";
import { type InspectionReport, inspectSwapTransaction, SwapRefusedError } from "./transaction-inspector.ts";

// A live swap up to the moment the key would touch it: our reference price, the aggregator's
// quote judged against our floor (floor.ts), the aggregator's transaction inspected against that
// floor (transaction-inspector.ts), and OUR blockhash put in it (the aggregator's blockhash and
// lastValidBlockHeight are never what the outcome is judged by). Anything unexpected throws;
// nothing is signed.

/** Solana's base fee per signature (lamports); the pending estimate adds the priority fee. */
export const BASE_FEE_LAMPORTS = 5_000n;

export interface PrepareDeps {
  quotes: QuoteProvider;
  /** Price API v3: the independent price the floor is computed from. */
  prices: Pick<TokenPriceProvider, "getPrices">;
  inspector: InspectorChain;
  sender: Pick<SendChain, "latestBlockhash">;
  allowedPrograms: ReadonlySet<string>;
  screen?: TokenScreen | null;
  log: Logger;
}

export interface PreparedSwap {
  quote: Quote;
  floor: FloorVerdict;
  /** Unsigned, with our blockhash in it. */
  tx: VersionedTransaction;
  blockhash: BlockhashRead;
  /** The most priority fee this transaction may pay (lamports): what the inspection allowed. */
  priorityFeeCapLamports: number;
  /** What the aggregator says it set (null when it did not say); build mode: the fee we set. */
  reportedPriorityFeeLamports: number | null;
  /** A Jito tip inside the transaction (lamports): counted in the swap's fees, not its amounts. */
  tipLamports?: bigint;
  /** How the signed bytes go out (each rebroadcast too); absent: the RPC's sendTransaction. */
  send?: (signedBase64: string) => Promise<unknown>;
}

/** Most a swap may pay in fees: one signature plus the priority fee asked for (or its auto cap). */
export function maxSwapFeeLamports(fee: PriorityFee): bigint {
  return BASE_FEE_LAMPORTS + BigInt(priorityFeeLamports(fee));
}

/** The Price API's price, else the price the caller recorded; without either, no live swap. */
export async function referencePrice(
  prices: PrepareDeps["prices"],
  req: Pick<SwapRequest, "tokenMint" | "referencePriceSol">,
): Promise<ReferencePrice> {
  let fromApi: ReferencePrice | null = null;
  let apiError: unknown = null;
  try {
    fromApi = await priceApiReference(prices, req.tokenMint);
  } catch (err) {
    apiError = err;
  }
  if (fromApi) return fromApi;
  if (req.referencePriceSol?.gt(0)) return { priceSol: req.referencePriceSol, source: "recorded" };
  if (apiError) throw apiError;
  throw new TradingError(NO_REFERENCE_PRICE_MESSAGE, { tokenAddress: req.tokenMint });
}

/** The aggregator request of a live swap: SOL in for a buy, the token in for a sale, ExactIn. */
export const quoteRequestOf = (req: SwapRequest) => ({
  inputMint: req.side === "BUY" ? SOL_MINT : req.tokenMint,
  outputMint: req.side === "BUY" ? req.tokenMint : SOL_MINT,
  amount: req.amountAtomic.toString(),
  slippageBps: req.slippageBps,
});

export const logContext = (req: SwapRequest) => ({
  agentId: req.agentId,
  walletAddress: req.walletAddress,
  side: req.side,
  tokenAddress: req.tokenMint,
});

/**
 * A live quote (whichever API answered it) judged against OUR floor (floor.ts), then the buy's
 * token screening: the verdict whose minOutAtomic the simulated post-state must deliver.
 */
async function judgeLiveQuote(
  d: Pick<PrepareDeps, "screen" | "log">,
  req: SwapRequest,
  quote: Quote,
  ref: ReferencePrice,
): Promise<FloorVerdict> {
  const floor = judgeLiveFloor(req, quote, ref);
  await screenLiveBuy(d, req, quote);
  logQuoted(d.log, req, quote, floor, ref);
  return floor;
}

/** The quote judged against OUR floor (floor.ts); throws TradingError, nothing asked of anyone. */
export function judgeLiveFloor(req: SwapRequest, quote: Quote, ref: ReferencePrice): FloorVerdict {
  if (BigInt(quote.outAmount) <= 0n) throw new TradingError("The quote returned no output amount");
  return judgeQuote(
    {
      side: req.side,
      amountAtomic: req.amountAtomic,
      tokenDecimals: req.tokenDecimals,
      slippageBps: req.slippageBps,
      floorBps: req.floorBps ?? req.slippageBps,
      maxImpactBps: req.maxImpactBps === undefined ? req.maxBps : req.maxImpactBps,
      // A take-profit sells at its level or not at all (the level's price less slippage).
      priceFloorAtomic: req.minOutputAtomic,
    },
    quote,
    ref,
  );
}

/** A screened buy's token screening for the quoted amount (TokenScreenRefusedError refuses it). */
export async function screenLiveBuy(
  d: Pick<PrepareDeps, "screen">,
  req: SwapRequest,
  quote: Pick<Quote, "outAmount">,
): Promise<void> {
  if (req.screening && d.screen)
    await d.screen.check(req.tokenMint, BigInt(quote.outAmount), req.screening, req.slippageBps, req.walletAddress);
}

export function logQuoted(log: Logger, req: SwapRequest, quote: Quote, floor: FloorVerdict, ref: ReferencePrice) {
  log.info("live swap quoted", {
    ...logContext(req),
    inAmount: quote.inAmount,
    outAmount: quote.outAmount,
    minOut: floor.minOutAtomic.toString(),
    floor: floor.floorAtomic.toString(),
    aggregatorMinOut: quote.otherAmountThreshold,
    referencePriceSol: ref.priceSol.toPrecision(8),
    slippageBps: req.slippageBps,
    priceImpactPct: quote.priceImpactPct,
  });
}

/**
 * The aggregator's own transaction inspected against OUR floor before anything signs it
 * (transaction-inspector.ts); a refusal is logged with its check and thrown.
 */
export async function inspectBeforeSigning(
  d: Pick<PrepareDeps, "inspector" | "allowedPrograms" | "log">,
  req: SwapRequest,
  tx: VersionedTransaction,
  floor: FloorVerdict,
  fee: PriorityFee,
  what: "swap" | "order",
  /** Order mode: Jupiter's fee in SOL, which the transaction may pay by one transfer, and in bps. */
  orderFee?: { lamports?: bigint; bps: number },
): Promise<InspectionReport> {
  try {
    return await inspectSwapTransaction(
      { chain: d.inspector, allowedPrograms: d.allowedPrograms, logger: d.log },
      {
        transaction: tx,
        wallet: req.walletAddress,
        intent: {
          side: req.side === "BUY" ? "buy" : "sell",
          mint: req.tokenMint,
          inAmount: req.amountAtomic,
          minOutAmount: floor.minOutAtomic,
        },
        maxFeeLamports: maxSwapFeeLamports(fee),
        platformFeeLamports: orderFee?.lamports,
        routeFeeBps: orderFee?.bps,
        // v1: we sign the aggregator's message with our blockhash, so its route may be tightened
        // too; an order's bytes are Jupiter's to execute as they are.
        tightenRoute: what === "swap",
      },
    );
  } catch (err) {
    if (err instanceof SwapRefusedError)
      d.log.warn(`live ${what} refused before signing; nothing sent`, {
        ...logContext(req),
        check: err.check,
        reason: err.message,
      });
    throw err;
  }
}

export async function prepareSwap(d: PrepareDeps, req: SwapRequest, fee: PriorityFee): Promise<PreparedSwap> {
  const ref = await referencePrice(d.prices, req);
  const quote = await d.quotes.quote(quoteRequestOf(req));
  const floor = await judgeLiveQuote(d, req, quote, ref);

  const built = await d.quotes.swapTransaction(quote, req.walletAddress, fee);
  if (built.simulationError) {
    throw new TradingError("The swap aggregator reports that the swap would fail", {
      simulationError: clipJson(built.simulationError),
    });
  }
  const tx = deserialize(built.swapTransaction);
  await inspectBeforeSigning(d, req, tx, floor, fee, "swap");
  // Our blockhash, read after the inspection (the freshest), replaces the aggregator's: its
  // lastValidBlockHeight is then known from our own read, and that is what expiry is judged by.
  const blockhash = await d.sender.latestBlockhash();
  tx.message.recentBlockhash = blockhash.blockhash;
  return {
    quote,
    floor,
    tx,
    blockhash,
    priorityFeeCapLamports: priorityFeeLamports(fee),
    reportedPriorityFeeLamports: built.prioritizationFeeLamports,
  };
}

function deserialize(base64: string): VersionedTransaction {
  try {
    return web3().VersionedTransaction.deserialize(Buffer.from(base64, "base64"));
  } catch {
    throw unexpectedResponse("swapAggregator", "swap transaction is not a valid serialized transaction");
  }
}

export function clipJson(v: unknown): string {
  let s: string;
  try {
    s = typeof v === "string" ? v : JSON.stringify(v);
  } catch {
    s = String(v);
  }
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}
