import { TradingError } from "../errors.ts";
import type { Quote, QuoteProvider, QuoteRequest } from "../market/types.ts";
import { Big, SOL_MINT } from "../money.ts";
import type { SwapFill, SwapRequest, TradeExecutor } from "./executor.ts";
import { simulationSwapFeeSol } from "./rules/fees.ts";
import { checkSlippage, SLIPPAGE_EXCEEDED_MESSAGE } from "./rules/slippage.ts";
import type { TokenScreen } from "./token-screen.ts";

/**
 * Paper trading on real quotes (PRODUCT.md §4): the fill is the aggregator's quote (amounts,
 * route, price impact), and each swap is charged the network fee plus the configured priority fee,
 * so simulated results are not better than live ones would be. Nothing touches a chain.
 */
export class SimulationExecutor implements TradeExecutor {
  readonly mode = "simulation" as const;

  constructor(
    private readonly quotes: QuoteProvider,
    private readonly priorityFeeSol: number,
    /** Token screening of signal buys (issue 15): the same as live, so simulation is not kinder. */
    private readonly screen: TokenScreen | null = null,
  ) {}

  /**
   * One signal fans out to many agents, and agents with the same configuration and balance ask
   * for the very same quote at the same moment. Within one signal's processing (the caller hands
   * in `sharedQuotes`), identical requests share one provider answer: one call instead of
   * hundreds against a rate-limited API. A failed quote is not shared. Never used for live.
   */
  private quote(req: QuoteRequest, shared?: Map<string, Promise<Quote>>): Promise<Quote> {
    if (!shared) return this.quotes.quote(req);
    const key = `${req.inputMint}>${req.outputMint}:${req.amount}:${req.slippageBps}`;
    const hit = shared.get(key);
    if (hit) return hit;
    const quote = this.quotes.quote(req);
    shared.set(key, quote);
    quote.catch(() => {
      if (shared.get(key) === quote) shared.delete(key);
    });
    return quote;
  }

  async swap(req: SwapRequest): Promise<SwapFill> {
    const slip = checkSlippage(req.slippageBps, { maxBps: req.maxBps });
    if (!slip.ok) throw new TradingError(slip.message, slip.details);
    const quote = await this.quote(
      {
        inputMint: req.side === "BUY" ? SOL_MINT : req.tokenMint,
        outputMint: req.side === "BUY" ? req.tokenMint : SOL_MINT,
        amount: req.amountAtomic.toString(),
        slippageBps: req.slippageBps,
      },
      req.sharedQuotes,
    );
    if (req.maxImpactBps !== null) assertPriceImpact(quote.priceImpactPct, req.maxImpactBps ?? req.maxBps);
    const outputAtomic = BigInt(quote.outAmount);
    if (outputAtomic <= 0n) throw new TradingError("The quote returned no output amount");
    if (req.screening && this.screen)
      await this.screen.check(req.tokenMint, outputAtomic, req.screening, req.slippageBps);
    return {
      inputAtomic: BigInt(quote.inAmount),
      outputAtomic,
      feesSol: simulationSwapFeeSol(this.priorityFeeSol),
      routes: quote.routeLabels,
      priceImpactPct: quote.priceImpactPct,
      slippageBps: req.slippageBps,
      txHash: `sim_${crypto.randomUUID().replace(/-/g, "")}`,
      status: "confirmed",
    };
  }
}

/** A quote whose price impact alone exceeds slippage.maxBps would fill worse than allowed. */
export function assertPriceImpact(priceImpactPct: string, maxBps: number): void {
  const impactBps = new Big(priceImpactPct || "0").abs().times(10_000);
  if (impactBps.gt(maxBps)) {
    throw new TradingError(SLIPPAGE_EXCEEDED_MESSAGE, { requested: Number(impactBps.toFixed(2)), maximum: maxBps });
  }
}
