import type { Clock } from "../../clock.ts";
import { ExternalServiceError, ServiceNotConfiguredError, ValidationError } from "../../errors.ts";
import { Big, decStr, SOL_MINT } from "../../money.ts";
import type {
  MarketDataProvider,
  PriorityFee,
  Quote,
  QuoteProvider,
  QuoteRequest,
  SwapTransaction,
  TokenDecimalsProvider,
  TokenMarketData,
  TokenPrice,
  TokenPriceProvider,
} from "../types.ts";
import { combinedImpact, type Hop, poolReserves, swapExactIn, swapExactOut } from "./amm.ts";
import { PriceWalk } from "./random-walk.ts";
import { seededBase58, uniform } from "./seeded.ts";
import { DEMO_SOL, DEMO_TOKEN_BY_ADDRESS, DEMO_TOKENS, type DemoToken } from "./tokens.ts";

// The demo market's state and its price, decimals, quote and market-data answers,
// shaped exactly as the real adapters shape theirs (src/market/types.ts), so the trading engine,
// the monitor and the routes cannot tell the difference. Series 0 is SOL/USD, series i+1 token i.

export const DEMO_ROUTE_LABEL = "Demo AMM";
const DEMO_DEX_ID = "demo";
const LIVE_SWAP_UNAVAILABLE = "Live swaps are not available with DEMO_MARKET=true: the demo market has no chain";

const DAY_MS = 86_400_000;

export class DemoMarketState {
  readonly walk: PriceWalk;
  private readonly index = new Map<string, number>();

  constructor(readonly clock: Pick<Clock, "now">) {
    this.walk = new PriceWalk(clock, [DEMO_SOL, ...DEMO_TOKENS]);
    this.index.set(SOL_MINT, 0);
    for (const [i, t] of DEMO_TOKENS.entries()) this.index.set(t.address, i + 1);
  }

  token(mint: string): DemoToken | undefined {
    return mint === SOL_MINT ? DEMO_SOL : DEMO_TOKEN_BY_ADDRESS.get(mint);
  }

  series(mint: string): number {
    const i = this.index.get(mint);
    if (i === undefined) throw new RangeError(`not a demo mint: ${mint}`);
    return i;
  }

  priceUsd(mint: string, at = this.clock.now()): number {
    return this.walk.priceAt(this.series(mint), at);
  }

  /** A constant-product pool's value moves with the square root of its token's price. */
  liquidityUsd(t: DemoToken, at = this.clock.now()): number {
    return t.baseLiquidityUsd * Math.sqrt(this.priceUsd(t.address, at) / t.basePriceUsd);
  }
}

/** A float price as the decimal text the price APIs give (10 significant digits, no exponent). */
const priceText = (usd: number): string => decStr(new Big(usd.toPrecision(10)));

export class DemoTokenPrices implements TokenPriceProvider, TokenDecimalsProvider {
  readonly configured = true;

  constructor(private readonly m: DemoMarketState) {}

  async getPrices(mints: readonly string[]): Promise<Map<string, TokenPrice>> {
    const out = new Map<string, TokenPrice>();
    const now = this.m.clock.now();
    for (const mint of new Set(mints)) {
      const t = this.m.token(mint);
      if (!t) continue; // like Jupiter: a mint it cannot price is absent
      const usd = this.m.priceUsd(mint, now);
      const dayAgo = this.m.priceUsd(mint, now - DAY_MS);
      out.set(mint, {
        mint,
        usd: priceText(usd),
        decimals: t.decimals,
        priceChange24h: Number(((usd / dayAgo - 1) * 100).toFixed(4)),
        liquidityUsd: t === DEMO_SOL ? null : Math.round(this.m.liquidityUsd(t, now)),
      });
    }
    return out;
  }

  /** For SolPriceService's poll mode (SolFeedPrices). */
  fetchPrices(mints: readonly string[]): Promise<Map<string, TokenPrice>> {
    return this.getPrices(mints);
  }

  async getDecimals(mints: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const mint of mints) {
      const t = this.m.token(mint);
      if (t) out.set(mint, t.decimals);
    }
    return out;
  }

  whyUnknown(mint: string): string {
    return `${mint} is not a demo market token (see README "Demo market")`;
  }
}

export class DemoMarketData implements MarketDataProvider {
  readonly configured = true;

  constructor(private readonly m: DemoMarketState) {}

  async getTokens(mints: readonly string[]): Promise<Map<string, TokenMarketData>> {
    const out = new Map<string, TokenMarketData>();
    const now = this.m.clock.now();
    const solUsd = this.m.priceUsd(SOL_MINT, now);
    for (const mint of new Set(mints)) {
      const t = DEMO_TOKEN_BY_ADDRESS.get(mint);
      if (!t) continue; // no Solana pair: absent, as with DexScreener
      const i = this.m.series(mint);
      const usd = this.m.priceUsd(mint, now);
      const liquidity = this.m.liquidityUsd(t, now);
      const marketCap = Math.round(usd * t.supply);
      out.set(mint, {
        mint,
        symbol: t.symbol,
        name: t.name,
        priceUsd: priceText(usd),
        priceNative: priceText(usd / solUsd),
        marketCapUsd: marketCap,
        fdvUsd: marketCap,
        liquidityUsd: Math.round(liquidity),
        volume24hUsd: Math.round(liquidity * (0.5 + 3 * uniform(21, i, Math.floor(now / DAY_MS)))),
        pairAddress: seededBase58(32, 22, i),
        dexId: DEMO_DEX_ID,
        quoteSymbol: "SOL",
      });
    }
    return out;
  }
}

export class DemoQuotes implements QuoteProvider {
  readonly configured = true;

  constructor(private readonly m: DemoMarketState) {}

  async quote(req: QuoteRequest): Promise<Quote> {
    // The same input checks as the Jupiter adapter (src/market/jupiter-swap.ts).
    if (!/^[1-9]\d*$/.test(req.amount))
      throw new ValidationError("Quote amount must be a positive whole number of atomic units");
    if (!Number.isInteger(req.slippageBps) || req.slippageBps < 0 || req.slippageBps > 10_000) {
      throw new ValidationError("slippageBps must be a whole number from 0 to 10000");
    }
    const input = this.side(req.inputMint);
    const output = this.side(req.outputMint);
    if (input === output) throw noRoute("input and output are the same mint");
    const swapMode = req.swapMode ?? "ExactIn";
    // Token to token goes through SOL: two hops.
    const legs: Array<[DemoToken, DemoToken]> =
      input === DEMO_SOL || output === DEMO_SOL
        ? [[input, output]]
        : [
            [input, DEMO_SOL],
            [DEMO_SOL, output],
          ];
    const hops: Hop[] = [];
    if (swapMode === "ExactIn") {
      let amount = BigInt(req.amount);
      for (const [a, b] of legs) {
        const hop = swapExactIn(this.pool(a, b), amount);
        hops.push(hop);
        amount = hop.outAmount;
      }
    } else {
      let amount = BigInt(req.amount);
      for (const [a, b] of [...legs].reverse()) {
        const hop = swapExactOut(this.pool(a, b), amount);
        if (!hop) throw noRoute(`the demo pool cannot give ${req.amount} of ${req.outputMint}`);
        hops.unshift(hop);
        amount = hop.inAmount;
      }
    }
    const inAmount = hops[0]!.inAmount;
    const outAmount = hops[hops.length - 1]!.outAmount;
    if (outAmount <= 0n) throw noRoute("the amount is too small for the demo pool");
    const slip = BigInt(req.slippageBps);
    const threshold =
      swapMode === "ExactIn" ? (outAmount * (10_000n - slip)) / 10_000n : (inAmount * (10_000n + slip)) / 10_000n;
    const priceImpactPct = decStr(combinedImpact(hops), 12);
    const now = this.m.clock.now();
    // Jupiter Swap API v1's quote shape (what Quote.raw holds for the real adapter).
    const raw = {
      inputMint: req.inputMint,
      inAmount: inAmount.toString(),
      outputMint: req.outputMint,
      outAmount: outAmount.toString(),
      otherAmountThreshold: threshold.toString(),
      swapMode,
      slippageBps: req.slippageBps,
      platformFee: null,
      priceImpactPct,
      routePlan: hops.map((h, k) => ({
        swapInfo: {
          ammKey: seededBase58(
            32,
            23,
            this.m.series(legs[k]![0] === DEMO_SOL ? legs[k]![1].address : legs[k]![0].address),
          ),
          label: DEMO_ROUTE_LABEL,
          inputMint: legs[k]![0].address,
          outputMint: legs[k]![1].address,
          inAmount: h.inAmount.toString(),
          outAmount: h.outAmount.toString(),
          feeAmount: h.feeAmount.toString(),
          feeMint: legs[k]![0].address,
        },
        percent: 100,
      })),
      contextSlot: Math.floor(now / 400),
      timeTaken: 0,
    };
    return {
      inputMint: req.inputMint,
      outputMint: req.outputMint,
      inAmount: raw.inAmount,
      outAmount: raw.outAmount,
      otherAmountThreshold: raw.otherAmountThreshold,
      swapMode,
      slippageBps: req.slippageBps,
      priceImpactPct,
      routeLabels: [DEMO_ROUTE_LABEL],
      contextSlot: raw.contextSlot,
      raw: Object.freeze(raw),
    };
  }

  async swapTransaction(_quote: Quote, _userPublicKey: string, _priorityFee: PriorityFee): Promise<SwapTransaction> {
    throw new ServiceNotConfiguredError(LIVE_SWAP_UNAVAILABLE);
  }

  private side(mint: string): DemoToken {
    const t = this.m.token(mint);
    if (!t) throw noRoute(`${mint} is not a demo market token (see README "Demo market")`);
    return t;
  }

  /** The token's SOL pool, oriented from `a` to `b`. */
  private pool(a: DemoToken, b: DemoToken) {
    const token = a === DEMO_SOL ? b : a;
    const now = this.m.clock.now();
    const side = (t: DemoToken) => ({ usd: this.m.priceUsd(t.address, now), decimals: t.decimals });
    return poolReserves(this.m.liquidityUsd(token, now), side(a), side(b));
  }
}

/** As Jupiter answers an unroutable pair (400 COULD_NOT_FIND_ANY_ROUTE), named for the demo. */
const noRoute = (why: string) => new ExternalServiceError("swapAggregator", `Demo market: no route: ${why}`, 400);
