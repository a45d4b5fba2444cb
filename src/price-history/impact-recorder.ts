import { type Clock, isoNow } from "../clock.ts";
import type { PriceImpactRepository } from "../db/repositories/price-impacts.ts";
import type { Logger } from "../logger.ts";
import type { Quote } from "../market/types.ts";
import { Big, decStr, SOL_MINT } from "../money.ts";
import { impactBucket } from "../price-impact.ts";

// Records each swap-aggregator quote's price impact beside the price bars, so
// backtests can fill with impact: per token and size bucket of the quote's SOL side (src/price-impact.ts),
// for replay to apply. Every quote counts: trades' and the monitor's pricing quotes alike, both
// are what selling or buying that much would really do. Recording never fails the quote.

export class ImpactRecorder {
  constructor(
    private readonly repo: Pick<PriceImpactRepository, "record">,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  observe(q: Pick<Quote, "inputMint" | "outputMint" | "inAmount" | "outAmount" | "priceImpactPct">): void {
    try {
      const buy = q.inputMint === SOL_MINT;
      const token = buy ? q.outputMint : q.inputMint;
      if (token === SOL_MINT || (!buy && q.outputMint !== SOL_MINT)) return;
      const lamports = BigInt(buy ? q.inAmount : q.outAmount);
      const impact = new Big(q.priceImpactPct || "0").abs();
      this.repo.record(token, impactBucket(lamports), decStr(impact, 12), isoNow(this.clock));
    } catch (err) {
      this.logger.debug("price impact not recorded", { reason: err instanceof Error ? err.message : String(err) });
    }
  }
}
