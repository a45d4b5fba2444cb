import type { Quote, QuoteRequest } from "../market/types.ts";
import { Big } from "../money.ts";

// One signal's simulated buys share the aggregator's answers (docs/decisions.md "Signal ingest
// and fan-out", "Quote sharing in simulation"). The agents' requests that arrive in the same turn
// of the event loop for the same pair and slippage are answered by ONE quote, asked at the
// largest of their amounts; each agent's fill is derived from it by the price-impact model below.
// A later, larger request asks for a new quote at its own size, so a fan-out uses as many quotes
// as there are "waves" of larger sizes (usually one). Nothing is shared across signals, by the
// monitor, or in live mode.
//
// The model: price impact grows with trade size (true of every constant-product and
// concentrated-liquidity pool, and of an aggregator's route over them). An amount a no larger
// than a quoted amount L is filled at L's AVERAGE price: out(a) = floor(a × out(L) / L), with L's
// measured price impact and route recorded on the trade. A real quote for a would have the same
// or less impact, so the derived fill is never better than live would get; nothing is ever
// extrapolated below a measured impact, and no amount is derived from a smaller quote. When L's
// impact exceeds an agent's slippage.maxBps, that agent gets a quote at its own size (which might
// pass) rather than a refusal caused by someone else's size.

export interface SharedQuotes {
  quote(req: QuoteRequest, fetch: (r: QuoteRequest) => Promise<Quote>, maxImpactBps: number): Promise<Quote>;
}

/** The fill of `amount` at the average price of `q` (q.inAmount ≥ amount), with q's impact and route. */
export function deriveQuote(q: Quote, amount: bigint): Quote {
  const quoted = BigInt(q.inAmount);
  if (amount === quoted) return q;
  if (amount > quoted) throw new Error("a fill is never derived from a smaller quote");
  return {
    ...q,
    inAmount: amount.toString(),
    outAmount: ((amount * BigInt(q.outAmount)) / quoted).toString(),
    otherAmountThreshold: ((amount * BigInt(q.otherAmountThreshold)) / quoted).toString(),
  };
}

const impactBps = (q: Quote) => new Big(q.priceImpactPct || "0").abs().times(10_000);

interface Quoted {
  amount: bigint;
  quote: Promise<Quote>;
}

interface Waiting {
  amount: bigint;
  maxImpactBps: number;
  fetch: (r: QuoteRequest) => Promise<Quote>;
  req: QuoteRequest;
  resolve(q: Quote): void;
  reject(e: unknown): void;
}

export class SignalQuoteBook implements SharedQuotes {
  private readonly quoted = new Map<string, Quoted[]>();
  private readonly waiting = new Map<string, Waiting[]>();
  private scheduled = false;
  /** Provider calls made through this book (tests, benchmark). */
  requests = 0;

  quote(req: QuoteRequest, fetch: (r: QuoteRequest) => Promise<Quote>, maxImpactBps: number): Promise<Quote> {
    const group = `${req.inputMint}>${req.outputMint}:${req.slippageBps}:${req.swapMode ?? "ExactIn"}`;
    const amount = BigInt(req.amount);
    const cover = this.covering(group, amount);
    if (cover) return this.fillFrom(cover, group, amount, maxImpactBps, fetch, req);
    return new Promise<Quote>((resolve, reject) => {
      const list = this.waiting.get(group) ?? [];
      list.push({ amount, maxImpactBps, fetch, req, resolve, reject });
      this.waiting.set(group, list);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** The smallest quote (asked or in flight) at or above `amount`. */
  private covering(group: string, amount: bigint): Quoted | undefined {
    let best: Quoted | undefined;
    for (const q of this.quoted.get(group) ?? []) if (q.amount >= amount && (!best || q.amount < best.amount)) best = q;
    return best;
  }

  private ask(group: string, amount: bigint, fetch: (r: QuoteRequest) => Promise<Quote>, req: QuoteRequest): Quoted {
    this.requests++;
    const entry: Quoted = { amount, quote: fetch({ ...req, amount: amount.toString() }) };
    const list = this.quoted.get(group) ?? [];
    list.push(entry);
    this.quoted.set(group, list);
    // A failed quote is not shared: the next request asks again.
    entry.quote.catch(() => {
      const l = this.quoted.get(group);
      if (l)
        this.quoted.set(
          group,
          l.filter((e) => e !== entry),
        );
    });
    return entry;
  }

  private async fillFrom(
    from: Quoted,
    group: string,
    amount: bigint,
    maxImpactBps: number,
    fetch: (r: QuoteRequest) => Promise<Quote>,
    req: QuoteRequest,
  ): Promise<Quote> {
    const q = await from.quote;
    if (from.amount > amount && impactBps(q).gt(maxImpactBps)) {
      // The larger size's impact is over this agent's limit: its own size decides.
      const own = this.quoted.get(group)?.find((e) => e.amount === amount) ?? this.ask(group, amount, fetch, req);
      return own.quote;
    }
    return deriveQuote(q, amount);
  }

  private flush(): void {
    this.scheduled = false;
    for (const [group, list] of this.waiting) {
      this.waiting.delete(group);
      let largest = list[0]!;
      for (const w of list) if (w.amount > largest.amount) largest = w;
      const entry = this.covering(group, largest.amount) ?? this.ask(group, largest.amount, largest.fetch, largest.req);
      for (const w of list)
        this.fillFrom(entry, group, w.amount, w.maxImpactBps, w.fetch, w.req).then(w.resolve, w.reject);
    }
  }
}
