import { expect, test } from "bun:test";
import { createLogger } from "../../src/logger.ts";
import { QuotePricing } from "../../src/market/quote-pricing.ts";
import { Big } from "../../src/money.ts";
import { fakeMarketPerFile } from "../helpers/fake-market.ts";
import { marketHarness } from "./helpers.ts";

// Tokens the price source omits are priced from a sell quote (issue 15; src/market/quote-pricing.ts),
// through the production Jupiter client against the fake's Swap API v1.

const NEW = "JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN";
const NO_ROUTE = "EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm";
const KNOWN = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";

const fake = await fakeMarketPerFile(() => {
  fake.setSolPrice("150", { push: false });
  fake.setToken(NEW, { symbol: "NEW", priceUsd: "0.3", decimals: 6 });
  fake.setToken(NO_ROUTE, { symbol: "NR", priceUsd: "1", decimals: 6 });
  fake.quote.noRoute.add(NO_ROUTE);
});

test("a held mint the price source omits is priced from a sell quote of the largest holding; priced ones are not quoted; no route leaves it unknown", async () => {
  const h = marketHarness(fake);
  const logs: string[] = [];
  const pricing = new QuotePricing({
    quotes: h.market.quotes,
    logger: createLogger({ level: "debug", write: (l) => logs.push(l) }),
  });
  const known = { mint: KNOWN, usd: "0.0042", decimals: 5, priceChange24h: null, liquidityUsd: null };
  const out = await pricing.fillMissing(
    new Map([[KNOWN, known]]),
    [
      { tokenAddress: NEW, remainingAmount: "10", tokenDecimals: 6 },
      { tokenAddress: NEW, remainingAmount: "250.5", tokenDecimals: 6 },
      { tokenAddress: NO_ROUTE, remainingAmount: "3", tokenDecimals: 6 },
      { tokenAddress: KNOWN, remainingAmount: "1000", tokenDecimals: 5 },
    ],
    new Big(150),
  );
  expect(out.get(KNOWN)).toBe(known);
  // The fake quotes at the token's market price: 0.3 USD per whole token.
  expect(Number(out.get(NEW)!.usd)).toBeCloseTo(0.3, 6);
  expect(out.has(NO_ROUTE)).toBe(false); // unknown, never zero
  const quoted = fake.requestsTo("jupiter.build").map((r) => r.query);
  expect(quoted.map((q) => q.get("inputMint")).sort()).toEqual([NO_ROUTE, NEW].sort());
  expect(quoted.find((q) => q.get("inputMint") === NEW)!.get("amount")).toBe("250500000");
  expect(logs.some((l) => l.includes("token price unavailable") && l.includes(NO_ROUTE))).toBe(true);
  await h.stop();
});
