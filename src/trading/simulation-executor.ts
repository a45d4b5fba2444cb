import { TradingError } from "../errors.ts";
import type { Quote, QuoteProvider } from "../market/types.ts";
import { Big, SOL_MINT } from "../money.ts";
import type { SwapFill, SwapRequest, TradeExecutor } from "./executor.ts";
import { closesTokenAccount, transferFeeAtomic } from "./rules/fees.ts";
import { type SimulationFeeModel, simulatedSwapFeeSol } from "./rules/simulation-fees.ts";
import { checkSlippage, SLIPPAGE_EXCEEDED_MESSAGE } from "./rules/slippage.ts";
import type { TokenScreen } from "./token-screen.ts";

/**
 * Paper trading on real quotes (PRODUCT.md §4): the fill is the aggregator's quote (amounts,
 * route, price impact) from the API and router live trades use (SWAP_API; Market.quotes), and each
 * swap is charged the network fee plus the priority fee of the live model
 * (src/trading/rules/simulation-fees.ts), minus a Token-2022 transfer fee on the tokens moved, so
 * simulated results are not better than live ones would be (docs/decisions.md "Simulation
 * fidelity"). The settlement adds the
 * token account's rent. Nothing touches a chain.
 */
export class SimulationExecutor implements TradeExecutor {
  readonly mode = "simulation" as const;

  constructor(
    private readonly quotes: QuoteProvider,
    private readonly fees: SimulationFeeModel,
    /** Token screening of signal buys: the same as live, so simulation is not kinder. */
    private readonly screen: TokenScreen | null = null,
  ) {}

  async swap(req: SwapRequest): Promise<SwapFill> {
    const slip = checkSlippage(req.slippageBps, { maxBps: req.maxBps });
    if (!slip.ok) throw new TradingError(slip.message, slip.details);
    // A Token-2022 transfer fee is withheld from every transfer of the token: on a sale only the
    // tokens left after it reach the pool, so the quote is for that amount.
    const transferFee = this.screen ? await this.screen.transferFee(req.tokenMint) : null;
    const arriving =
      req.side === "SELL" ? req.amountAtomic - transferFeeAtomic(req.amountAtomic, transferFee) : req.amountAtomic;
    if (arriving <= 0n) throw new TradingError("The token's transfer fee leaves nothing to sell");
    const request = {
      inputMint: req.side === "BUY" ? SOL_MINT : req.tokenMint,
      outputMint: req.side === "BUY" ? req.tokenMint : SOL_MINT,
      amount: arriving.toString(),
      slippageBps: req.slippageBps,
    };
    // The exit cap (slippage.maxExitBps, null: none) for stop-loss and stale exits, else maxBps.
    const cap = req.maxImpactBps === undefined ? req.maxBps : req.maxImpactBps;
    // Within one signal's fan-out the agents' quotes are shared (src/trading/signal-quotes.ts).
    const quote = req.sharedQuotes
      ? await req.sharedQuotes.quote(request, (r) => this.quotes.quote(r), cap ?? Number.POSITIVE_INFINITY)
      : await this.quotes.quote(request);
    if (cap !== null) assertPriceImpact(quote.priceImpactPct, cap);
    const quoted = BigInt(quote.outAmount);
    assertPriceFloor(quoted, req.minOutputAtomic);
    // On a buy the pool's transfer to the wallet is the one that pays the fee.
    const outputAtomic = req.side === "BUY" ? quoted - transferFeeAtomic(quoted, transferFee) : quoted;
    if (outputAtomic <= 0n) throw new TradingError("The quote returned no output amount");
    if (req.screening && this.screen)
      await this.screen.check(req.tokenMint, outputAtomic, req.screening, req.slippageBps);
    const estimated = this.fees.estimate ? await this.fees.estimate(quote) : null;
    return {
      // A sale debits every token the wallet sent, the fee included.
      inputAtomic: req.side === "SELL" ? req.amountAtomic : BigInt(quote.inAmount),
      outputAtomic,
      feesSol: simulatedSwapFeeSol(this.fees, quote, estimated),
      routes: routesOf(quote),
      priceImpactPct: quote.priceImpactPct,
      slippageBps: req.slippageBps,
      txHash: `sim_${crypto.randomUUID().replace(/-/g, "")}`,
      status: "confirmed",
      // Live leaves a transfer-fee mint's account open (its rent with it): so does the simulation.
      ...(closesTokenAccount(transferFee?.basisPoints ?? 0) ? {} : { keepsTokenAccount: true }),
    };
  }
}

/**
 * The fill's routes: the route's DEX labels, led by the /order router that won (iris, jupiterz,
 * dflow, okx) when the quote came from /order, as a live order records it.
 */
function routesOf(quote: Pick<Quote, "routeLabels" | "order">): string[] {
  const router = quote.order?.router;
  return router ? [router, ...quote.routeLabels.filter((l) => l !== router)] : quote.routeLabels;
}

/** A sale with a price floor (a take-profit level) is not made below it (SwapRequest.minOutputAtomic). */
export function assertPriceFloor(quotedOutAtomic: bigint, minOutputAtomic: bigint | undefined): void {
  if (minOutputAtomic === undefined || quotedOutAtomic >= minOutputAtomic) return;
  throw new TradingError("The quote is below the sale's price floor", {
    quoted: quotedOutAtomic.toString(),
    floor: minOutputAtomic.toString(),
  });
}

/** A quote whose price impact alone exceeds slippage.maxBps would fill worse than allowed. */
export function assertPriceImpact(priceImpactPct: string, maxBps: number): void {
  const impactBps = new Big(priceImpactPct || "0").abs().times(10_000);
  if (impactBps.gt(maxBps)) {
    throw new TradingError(SLIPPAGE_EXCEEDED_MESSAGE, { requested: Number(impactBps.toFixed(2)), maximum: maxBps });
  }
}
