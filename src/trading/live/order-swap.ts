import type { VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import type { Clock } from "../../clock.ts";
import { TradingError } from "../../errors.ts";
import { web3 } from "../../lazy/modules.ts";
import type { Logger } from "../../logger.ts";
import { unexpectedResponse } from "../../market/http-client.ts";
import type { OrderResult } from "../../market/jupiter-swap-v2.ts";
import type { LandedTransaction } from "../../market/landed-transaction.ts";
import type { ChainBalances, SolanaRpcClient } from "../../market/solana-rpc.ts";
import type { PriorityFee, Quote, QuoteRequest, TokenPriceProvider } from "../../market/types.ts";
import { fromAtomic, SOL_DECIMALS, SOL_MINT } from "../../money.ts";
import type { LiveWalletRegistry } from "../../wallets/live-wallet-registry.ts";
import type { SwapRequest } from "../executor.ts";
import { priorityFeeLamports } from "../rules/fees.ts";
import type { TokenScreen } from "../token-screen.ts";
import type { InspectorChain, SendChain } from "./chain-reads.ts";
import { amountsFromChain, EXPIRED_MESSAGE, type LiveSwapFill, rentOfFill } from "./fill.ts";
import type { FloorVerdict } from "./floor.ts";
import type { LiveTradeJournal } from "./journal.ts";
import { executeUntilSettled, type OrderExecutor, orderFeeLamports, splitOrderFee } from "./order-outcome.ts";
import type { Attempt } from "./outcome.ts";
import { BASE_FEE_LAMPORTS, inspectBeforeSigning, judgeLiveFloor, logContext, referencePrice } from "./prepare-swap.ts";
import { journalUnlanded, simulateSigned } from "./send-swap.ts";

// A live swap through Jupiter's /order + /execute (SWAP_API=order; docs/decisions.md "Live order
// path"). The same rules as our own sends, where Jupiter lands the transaction:
//   1. our reference price; the order's quote judged against OUR floor (floor.ts), its slippage
//      and threshold no looser than the agent's (the order may pick its own slippage),
//   2. the order's opaque transaction inspected and simulated (transaction-inspector.ts): the
//      wallet its fee payer and only signer (so its signature is known before /execute),
//      Jupiter's priority fee within our cap, the post-state at least our floor,
//   3. its blockhash (Jupiter's: replacing it would void the order) must be valid on OUR node at
//      `confirmed`; the attempt's last valid height is the bound of THAT blockhash (signedBound):
//      expiry is proven by our reads on the order's own blockhash (outcome.ts judgeAttempt),
//   4. sign; journal the signature, requestId, router and fee BEFORE /execute,
//   5. /execute with the same bytes and requestId until Jupiter answers (order-outcome.ts); the
//      outcome and the ledger's amounts are the chain's.

/** The most of a swap's SOL side an order's fee transfer may take (Jupiter's own fees are 5-10 bps). */
const MAX_ORDER_FEE_BPS = 100;

/**
 * What Jupiter's fee may take from the wallet as one SOL transfer (the inspection's allowance):
 * feeBps of the SOL side (a buy's input, a sale's gross proceeds), feeBps taken as at most 1 %
 * since it is the aggregator's own number (docs/decisions/live-inspection-rules.md). None: undefined.
 */
export function orderFeeAllowance(
  side: "BUY" | "SELL",
  amountAtomic: bigint,
  outAmount: bigint,
  feeBps: number,
): bigint | undefined {
  const fee = orderFeeLamports(side, side === "BUY" ? amountAtomic : outAmount, Math.min(feeBps, MAX_ORDER_FEE_BPS));
  return fee > 0n ? fee : undefined;
}

export interface OrderApi extends OrderExecutor {
  order(req: QuoteRequest, taker?: string): Promise<OrderResult>;
}

export interface OrderSwapDeps {
  orders: OrderApi;
  prices: Pick<TokenPriceProvider, "getPrices">;
  rpc: Pick<SolanaRpcClient, "simulateTransaction" | "getTransaction" | "getBalances">;
  inspector: InspectorChain;
  sender: SendChain;
  allowedPrograms: ReadonlySet<string>;
  screen?: TokenScreen | null;
  wallets: LiveWalletRegistry;
  journal: LiveTradeJournal;
  log: Logger;
  clock: Pick<Clock, "sleep">;
  simulateBeforeSend: boolean;
  /** LIVE_PRIORITY_FEE_MAX_BPS: the order's priority fee is at most this share of the trade's SOL. */
  priorityFeeMaxBps?: number;
  pollIntervalMs: number;
  maxPolls: number;
  /** Re-checked right before the journal row, with no await in between (executor's guard). */
  assertNotStarted(req: SwapRequest): void;
}

interface PreparedOrder {
  quote: Quote;
  floor: FloorVerdict;
  tx: VersionedTransaction;
  requestId: string;
  router: string | null;
  feeBps: number;
  /** Signature plus priority fee the inspected transaction pays (lamports). */
  networkFeeLamports: bigint;
  /** Our bound of its last valid height and the slot of that read (it cannot land at or before it). */
  lastValidBlockHeight: number;
  readAtSlot: number;
}

/** The order's slippage and threshold may be tighter than the agent's, never looser. */
export function judgeOrderSlippage(
  askedBps: number,
  quote: Pick<Quote, "slippageBps" | "outAmount" | "otherAmountThreshold">,
) {
  if (quote.slippageBps > askedBps)
    throw new TradingError(
      `The order's slippage of ${quote.slippageBps} bps is above the agent's ${askedBps} bps; not signed`,
      { asked: askedBps, quoted: quote.slippageBps },
    );
  const least = (BigInt(quote.outAmount) * BigInt(10_000 - askedBps)) / 10_000n;
  if (BigInt(quote.otherAmountThreshold) < least)
    throw new TradingError("The order's minimum output is below the agent's slippage allows; not signed", {
      otherAmountThreshold: quote.otherAmountThreshold,
      least: least.toString(),
    });
}

async function prepareOrder(d: OrderSwapDeps, req: SwapRequest, fee: PriorityFee): Promise<PreparedOrder> {
  const ctx = logContext(req);
  const ref = await referencePrice(d.prices, req);
  const got = await d.orders.order(
    {
      inputMint: req.side === "BUY" ? SOL_MINT : req.tokenMint,
      outputMint: req.side === "BUY" ? req.tokenMint : SOL_MINT,
      amount: req.amountAtomic.toString(),
      slippageBps: req.slippageBps,
    },
    req.walletAddress,
  );
  const { quote } = got;
  judgeOrderSlippage(req.slippageBps, quote);
  // Its slippage was judged above (it may be tighter than asked).
  const floor = judgeLiveFloor(req, { ...quote, slippageBps: req.slippageBps }, ref);
  if (req.screening && d.screen)
    await d.screen.check(req.tokenMint, BigInt(quote.outAmount), req.screening, req.slippageBps);
  d.log.info("live order quoted", {
    ...ctx,
    requestId: got.order.requestId,
    router: got.router,
    feeBps: got.feeBps,
    inAmount: quote.inAmount,
    outAmount: quote.outAmount,
    minOut: floor.minOutAtomic.toString(),
    aggregatorMinOut: quote.otherAmountThreshold,
    referencePriceSol: ref.priceSol.toPrecision(8),
  });
  const tx = deserialize(got.order.transaction ?? "");
  const cap = relativeFeeCap(fee, req.side === "BUY" ? req.amountAtomic : floor.minOutAtomic, d.priorityFeeMaxBps);
  const orderFee = orderFeeAllowance(req.side, req.amountAtomic, BigInt(quote.outAmount), got.feeBps);
  const report = await inspectBeforeSigning(d, req, tx, floor, cap, "order", {
    lamports: orderFee,
    bps: Math.min(got.feeBps, MAX_ORDER_FEE_BPS),
  });
  const ours = await d.sender.latestBlockhash();
  const check = await confirmedOnOurNode(d, tx.message.recentBlockhash, ours.contextSlot);
  if (!check.valid)
    throw new TradingError("The order's blockhash is not valid on our Solana node (stale or unknown); not signed", {
      requestId: got.order.requestId,
    });
  const bound = await signedBound(d.sender, ours, check.contextSlot, got.order.lastValidBlockHeight);
  if (bound.orderHeldTo !== null)
    d.log.warn("the order's lastValidBlockHeight is beyond what our node allows; held to our bound", {
      requestId: got.order.requestId,
      orderLastValidBlockHeight: got.order.lastValidBlockHeight,
      lastValidBlockHeight: bound.lastValidBlockHeight,
    });
  return {
    quote,
    floor,
    tx,
    requestId: got.order.requestId,
    router: got.router,
    feeBps: got.feeBps,
    networkFeeLamports: report.feeLamports,
    lastValidBlockHeight: bound.lastValidBlockHeight,
    readAtSlot: ours.contextSlot,
  };
}

/**
 * The most the order's own priority fee may cost (lamports): the lower of the absolute cap and
 * `maxBps` of the trade's SOL (a buy's input, a sale's floor). Jupiter picks the fee; above this
 * the order is refused before signing, as any fee above the cap is.
 */
function relativeFeeCap(fee: PriorityFee, tradeLamports: bigint, maxBps: number | undefined): number {
  const absolute = priorityFeeLamports(fee);
  if (maxBps === undefined) return absolute;
  return Math.min(absolute, Number((tradeLamports * BigInt(maxBps)) / 10_000n));
}

/** A slot: how long a blockhash Jupiter's node processed takes to be confirmed on ours, about. */
const SLOT_MS = 400;
const CONFIRM_CHECKS = 3;

/**
 * isBlockhashValid at `confirmed`, asked again a slot later (up to 3 asks) while it says false:
 * an order may be built on a blockhash Jupiter's node processed a moment before ours confirmed it.
 * A stale blockhash stays invalid, and is refused after the last ask.
 */
async function confirmedOnOurNode(
  d: Pick<OrderSwapDeps, "sender" | "clock">,
  blockhash: string,
  minContextSlot: number,
): Promise<{ valid: boolean; contextSlot: number }> {
  let check = await d.sender.blockhashValid(blockhash, minContextSlot);
  for (let ask = 1; !check.valid && ask < CONFIRM_CHECKS; ask++) {
    await d.clock.sleep(SLOT_MS);
    check = await d.sender.blockhashValid(blockhash, check.contextSlot);
  }
  return check;
}

/** Blocks a blockhash stays valid for (MAX_PROCESSING_AGE): no blockhash outlives our latest by more. */
const BLOCKHASH_LIFETIME = 150;

/**
 * The last valid height of the order's blockhash, as an upper bound (expiry is proven only past
 * it, so too high only waits longer; too low could call a landed order expired). Valid at
 * `confirmed` at slot `validAt` means our node's confirmed bank held it there, so it is no newer
 * than our latest blockhash at or after that slot: ours, re-read when the validity answer came
 * from a later slot than our first read. Jupiter's own figure raises it (the larger wins), at
 * most one blockhash lifetime above ours: a figure beyond that is not a height a blockhash our
 * node accepts can have, and would keep an unlanded order from ever being proven expired.
 */
async function signedBound(
  sender: Pick<SendChain, "latestBlockhash">,
  ours: { lastValidBlockHeight: number; contextSlot: number },
  validAt: number,
  orders: number | undefined,
): Promise<{ lastValidBlockHeight: number; orderHeldTo: number | null }> {
  const latest = validAt > ours.contextSlot ? await sender.latestBlockhash(validAt) : ours;
  const ceiling = latest.lastValidBlockHeight + BLOCKHASH_LIFETIME;
  const stated = orders ?? 0;
  const lastValidBlockHeight = Math.max(latest.lastValidBlockHeight, Math.min(stated, ceiling));
  return { lastValidBlockHeight, orderHeldTo: stated > ceiling ? ceiling : null };
}

/** A confirmed or pending fill of the order; throws when it failed or provably expired. */
export async function swapByOrder(d: OrderSwapDeps, req: SwapRequest, fee: PriorityFee): Promise<LiveSwapFill> {
  const prep = await prepareOrder(d, req, fee);
  const { tx } = prep;
  d.wallets.signTransaction(req.walletAddress, tx);
  const signature = bs58.encode(tx.signatures[0]!);
  const wire = Buffer.from(tx.serialize()).toString("base64");
  const attempt: Attempt = {
    signature,
    blockhash: tx.message.recentBlockhash,
    lastValidBlockHeight: prep.lastValidBlockHeight,
    signedAtSlot: prep.readAtSlot,
  };
  const logCtx = {
    agentId: req.agentId,
    side: req.side,
    tokenAddress: req.tokenMint,
    signature,
    requestId: prep.requestId,
  };
  if (d.simulateBeforeSend) await simulateSigned(d, wire, logCtx, "order");
  d.assertNotStarted(req);
  d.journal.writeAhead(
    {
      signature,
      agentId: req.agentId,
      walletAddress: req.walletAddress,
      tokenAddress: req.tokenMint,
      side: req.side,
      inputAtomic: prep.quote.inAmount,
      expectedOutputAtomic: prep.quote.outAmount,
      tokenDecimals: req.tokenDecimals,
      blockhash: attempt.blockhash,
      lastValidBlockHeight: attempt.lastValidBlockHeight,
      signedAtSlot: attempt.signedAtSlot,
      priorityFeeLamports: Number(prep.networkFeeLamports - BASE_FEE_LAMPORTS),
      requestId: prep.requestId,
      router: prep.router,
      orderFeeBps: prep.feeBps,
    },
    req.intent ?? null,
  );
  d.journal.inFlight.add(signature);
  let handedOver = false;
  try {
    const run = await executeUntilSettled(
      { orders: d.orders, chain: d.sender, clock: d.clock, logger: d.log },
      { signedBase64: wire, requestId: prep.requestId, attempt, intervalMs: d.pollIntervalMs, maxRounds: d.maxPolls },
    );
    const outcome = run.state;
    d.log.info("live order executed", {
      ...logCtx,
      posts: run.posts,
      postErrors: run.postErrors,
      outcome: outcome.kind,
    });
    // Jupiter sets an order's fee: a proven expiry is not re-sent at a higher one.
    if (journalUnlanded(d.journal, signature, outcome)) throw new TradingError(EXPIRED_MESSAGE, { signature });
    let landed: LandedTransaction | null = null;
    let balances: ChainBalances | null = null;
    if (outcome.kind === "landed") {
      try {
        landed = await d.rpc.getTransaction(signature);
        balances = await d.rpc.getBalances(req.walletAddress, outcome.slot);
      } catch (err) {
        d.log.warn("live order confirmed but its details could not be read", { ...logCtx, reason: String(err) });
        landed = null;
      }
    } else d.log.warn("live order not confirmed in time; recorded as pending", { ...logCtx, state: outcome.kind });
    handedOver = true;
    return orderFill(req, prep, signature, landed && balances ? { landed, balances } : null, d.log);
  } finally {
    // A returned fill stays in flight until the settlement recorded it (it releases it).
    if (!handedOver) d.journal.inFlight.delete(signature);
  }
}

function orderFill(
  req: SwapRequest,
  prep: PreparedOrder,
  signature: string,
  chain: { landed: LandedTransaction; balances: ChainBalances } | null,
  log: Logger,
): LiveSwapFill {
  const { quote } = prep;
  const common = {
    // The router first, then the route's labels.
    routes: [...(prep.router ? [prep.router] : []), ...quote.routeLabels],
    priceImpactPct: quote.priceImpactPct,
    slippageBps: req.slippageBps,
    txHash: signature,
  };
  if (!chain) {
    const est = splitOrderFee(
      req.side,
      { inputAtomic: BigInt(quote.inAmount), outputAtomic: BigInt(quote.outAmount) },
      prep.feeBps,
    );
    return {
      ...common,
      inputAtomic: est.inputAtomic,
      outputAtomic: est.outputAtomic,
      feesSol: fromAtomic(prep.networkFeeLamports + est.orderFeeLamports, SOL_DECIMALS),
      status: "pending",
      live: { signature, lastValidBlockHeight: prep.lastValidBlockHeight, balancesAfter: null },
    };
  }
  const { landed, balances } = chain;
  const amounts = splitOrderFee(
    req.side,
    amountsFromChain(req.side, req.walletAddress, req.tokenMint, landed, quote, log),
    prep.feeBps,
  );
  return {
    ...common,
    inputAtomic: amounts.inputAtomic,
    outputAtomic: amounts.outputAtomic,
    feesSol: fromAtomic(landed.feeLamports + amounts.orderFeeLamports, SOL_DECIMALS),
    ...rentOfFill(amounts),
    status: "confirmed",
    live: { signature, lastValidBlockHeight: prep.lastValidBlockHeight, balancesAfter: balances, slot: landed.slot },
  };
}

function deserialize(base64: string): VersionedTransaction {
  try {
    return web3().VersionedTransaction.deserialize(Buffer.from(base64, "base64"));
  } catch {
    throw unexpectedResponse("swapAggregator", "order transaction is not a valid serialized transaction");
  }
}
