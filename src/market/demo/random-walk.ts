import type { Clock } from "../../clock.ts";
import { gaussian } from "./seeded.ts";

// Seeded random-walk prices on the service clock. Each series is a mean-reverting
// walk of the log price (Ornstein–Uhlenbeck in discrete steps), so prices move like a market but
// never drift off to zero or infinity however long the demo runs. Step k's shock is a pure function
// of (series, k), and the walk starts at the base price when the market is created: the price at a
// clock reading is the same whatever was asked before, and a ManualClock makes tests exact.
// The last HISTORY_STEPS values are kept for whale trades in the recent past.

export const STEP_MS = 5_000;
/** Pull back towards the base price per step (about 8 minutes' half-life). */
const REVERSION_PER_STEP = 0.007;
/** 24 hours of 5 s steps (priceChange24h; whale trades of the last hours): 138 KB per series. */
const HISTORY_STEPS = 17_280;

interface Series {
  base: number;
  volatility: number;
  /** Last step computed, and its log price in the ring. */
  step: number;
  ring: Float64Array;
}

export class PriceWalk {
  private readonly origin: number;
  private readonly series: Series[];

  constructor(
    private readonly clock: Pick<Clock, "now">,
    specs: ReadonlyArray<{ basePriceUsd: number; volatility: number }>,
  ) {
    this.origin = Math.floor(clock.now() / STEP_MS) * STEP_MS;
    this.series = specs.map((s) => {
      const ring = new Float64Array(HISTORY_STEPS);
      ring[0] = Math.log(s.basePriceUsd);
      return { base: Math.log(s.basePriceUsd), volatility: s.volatility, step: 0, ring };
    });
  }

  /** The walk's step at an epoch-ms time (0 before the market was created). */
  stepAt(ms: number): number {
    return Math.max(0, Math.floor((ms - this.origin) / STEP_MS));
  }

  /** USD price of series `i` now. */
  price(i: number): number {
    return this.priceAtStep(i, this.stepAt(this.clock.now()));
  }

  /** USD price of series `i` at epoch-ms `ms`: before the walk began its base price, beyond the history the oldest kept. */
  priceAt(i: number, ms: number): number {
    return this.priceAtStep(i, this.stepAt(ms));
  }

  private priceAtStep(i: number, k: number): number {
    const s = this.series[i];
    if (!s) throw new RangeError(`no price series ${i}`);
    if (k > s.step) this.advance(s, i, k);
    const oldest = Math.max(0, s.step - HISTORY_STEPS + 1);
    return Math.exp(s.ring[Math.max(k, oldest) % HISTORY_STEPS]!);
  }

  private advance(s: Series, i: number, to: number): void {
    let x = s.ring[s.step % HISTORY_STEPS]!;
    for (let k = s.step + 1; k <= to; k++) {
      x += REVERSION_PER_STEP * (s.base - x) + s.volatility * gaussian(i, k);
      s.ring[k % HISTORY_STEPS] = x;
    }
    s.step = to;
  }
}
