import { afterEach, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { createLogger } from "../../src/logger.ts";
import { SOL_MINT } from "../../src/money.ts";
import { TOKEN_SCREENING_DEFAULTS } from "../../src/trading/rules/token-screening.ts";
import { TokenScreen, TokenScreenRefusedError } from "../../src/trading/token-screen.ts";
import { type FakeMarket, startFakeMarket } from "../fakes/market.ts";
import { MINT } from "../helpers/trading.ts";
import { type MarketHarness, marketHarness } from "../market/helpers.ts";

// requireSellable asks the aggregator for a reverse quote (token → SOL) of the bought amount. One
// signal's agents reach the screen together: they share one reverse quote at the largest of their
// amounts, instead of one rate-limited quote each (the bench's sized fan-out).

let fake: FakeMarket | undefined;
let h: MarketHarness | undefined;
afterEach(async () => {
  await h?.stop();
  await fake?.stop();
  h = undefined;
  fake = undefined;
});

async function screen(): Promise<TokenScreen> {
  fake = await startFakeMarket();
  fake.setSolPrice(100);
  fake.setToken(MINT, { symbol: "BONK", priceUsd: "0.01", decimals: 6 });
  h = marketHarness(fake);
  const clock = new ManualClock();
  return new TokenScreen({
    mintInfo: null,
    quotes: h.market.quotes,
    logger: createLogger({ level: "silent", write: () => {} }),
    clock,
  });
}

const reverseQuotes = () =>
  fake!
    .requestsTo("jupiter.build")
    .filter((r) => r.query.get("inputMint") === MINT && r.query.get("outputMint") === SOL_MINT);

test("ten agents screened together: one reverse quote, at the largest amount", async () => {
  const s = await screen();
  const amounts = Array.from({ length: 10 }, (_, i) => BigInt(i + 1) * 1_000_000_000n); // ascending: worst case
  await Promise.all(amounts.map((a) => s.check(MINT, a, TOKEN_SCREENING_DEFAULTS, 100)));
  expect(reverseQuotes().map((r) => r.query.get("amount"))).toEqual(["10000000000"]);
  // Later buys up to that amount are vouched for by it; a larger one asks again.
  await s.check(MINT, 3_000_000_000n, TOKEN_SCREENING_DEFAULTS, 100);
  expect(reverseQuotes()).toHaveLength(1);
  await s.check(MINT, 20_000_000_000n, TOKEN_SCREENING_DEFAULTS, 100);
  expect(reverseQuotes().map((r) => r.query.get("amount"))).toEqual(["10000000000", "20000000000"]);
});

test("no route for the batch: every agent is refused, each after a quote of its own smaller amount", async () => {
  const s = await screen();
  fake!.quote.noRoute.add(MINT);
  const results = await Promise.allSettled(
    [1n, 2n, 3n].map((k) => s.check(MINT, k * 1_000_000_000n, TOKEN_SCREENING_DEFAULTS, 100)),
  );
  for (const r of results) {
    expect(r.status).toBe("rejected");
    expect((r as PromiseRejectedResult).reason).toBeInstanceOf(TokenScreenRefusedError);
  }
  // The batch's quote first; the two smaller agents' own quotes run concurrently, in either order.
  const [batch, ...own] = reverseQuotes().map((r) => r.query.get("amount"));
  expect(batch).toBe("3000000000");
  expect(own.sort()).toEqual(["1000000000", "2000000000"]);
});
