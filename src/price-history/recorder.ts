import type { Clock } from "../clock.ts";
import type { PriceBarRepository } from "../db/repositories/price-bars.ts";
import type { Logger } from "../logger.ts";
import type { SolPriceSource, TokenPriceProvider } from "../market/types.ts";
import { Big, decStr } from "../money.ts";
import { TickLoop } from "../tick-loop.ts";

// Price history: every token with a signal in the last PRICE_HISTORY_DAYS is priced
// each tick through the market's tokenPrices provider — ONE batched call for all of them (the
// provider splits it into requests of 50 and shares its short cache with the position monitor),
// never a request per token — and the price in SOL (USD ÷ SOL/USD, as the monitor computes it)
// is folded into that minute's bar. Once an hour, bars outside every signal's horizon are pruned.

export interface PriceRecorderDeps {
  bars: PriceBarRepository;
  tokenPrices: TokenPriceProvider;
  solPrice: SolPriceSource;
  clock: Clock;
  logger: Logger;
  horizonDays: number;
  intervalSeconds: number;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

export class PriceRecorder {
  private readonly loop = new TickLoop(
    () => this.tick(),
    () => this.d.intervalSeconds * 1000,
    (err) => {
      this.log.error("price history tick failed", { reason: err instanceof Error ? err.message : String(err) });
      return undefined;
    },
  );
  private lastPrune = 0;
  private readonly log: Logger;

  constructor(private readonly d: PriceRecorderDeps) {
    this.log = d.logger.child({ component: "price-history" });
  }

  get horizonMs(): number {
    return this.d.horizonDays * 86_400_000;
  }

  /** One pass: price every recorded token once, fold into bars; prune hourly. Returns tokens recorded. */
  async tick(): Promise<number> {
    const now = this.d.clock.now();
    if (now - this.lastPrune >= HOUR_MS) {
      this.lastPrune = now;
      const pruned = this.d.bars.pruneOutsideHorizon(this.horizonMs);
      if (pruned > 0) this.log.debug("price bars pruned", { pruned });
    }
    const tokens = this.d.bars.tokensSignalledSince(new Date(now - this.horizonMs).toISOString());
    if (tokens.length === 0 || !this.d.tokenPrices.configured) return 0;
    let prices: Awaited<ReturnType<TokenPriceProvider["getPrices"]>>;
    let solUsd: Big;
    try {
      [prices, solUsd] = await Promise.all([
        this.d.tokenPrices.getPrices(tokens),
        this.d.solPrice.fetchCurrent().then((p) => new Big(p.price)),
      ]);
    } catch (err) {
      this.log.warn("price history tick skipped: prices unavailable", {
        reason: err instanceof Error ? err.message : String(err),
      });
      return 0;
    }
    if (solUsd.lte(0)) return 0;
    const time = Math.floor(now / MINUTE_MS) * MINUTE_MS;
    const ticks = [];
    for (const token of tokens) {
      const p = prices.get(token);
      if (p) ticks.push({ tokenAddress: token, time, price: decStr(new Big(p.usd).div(solUsd)) });
    }
    this.d.bars.recordTicks(ticks);
    return ticks.length;
  }

  start(): void {
    this.loop.start();
  }

  /** Stops the loop and waits for the tick in flight. */
  stop(): Promise<void> {
    return this.loop.stop();
  }
}
