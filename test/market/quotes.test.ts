import { expect, test } from "bun:test";
import { Keypair, VersionedTransaction } from "@solana/web3.js";
import { ManualClock } from "../../src/clock.ts";
import type { ProviderError } from "../../src/market/http-client.ts";
import { SOL_MINT } from "../../src/money.ts";
import type { FakeMarket } from "../fakes/market.ts";
import { fakeMarketPerFile } from "../helpers/fake-market.ts";
import { marketHarness, rejection } from "./helpers.ts";

// Jupiter Swap v1 (PRODUCT.md §5): quotes in atomic units with priceImpactPct as a fraction and
// route labels; the swap transaction request sends the quote back unchanged. These tests are about
// the v1 client, so the market speaks SWAP_API=v1 (the default, build, is test/market/swap-v2-quotes.test.ts's).

const BONK = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
const user = Keypair.generate().publicKey.toBase58();

const v1Harness = (f: FakeMarket, env: Record<string, string> = {}, opts: Parameters<typeof marketHarness>[2] = {}) =>
  marketHarness(f, { SWAP_API: "v1", ...env }, opts);

const fake = await fakeMarketPerFile(() => {
  fake.quote.priceImpactPct = "0";
  fake.quote.routeLabels = ["Raydium"];
  fake.quote.noRoute.clear();
  fake.quoteOverrides.clear();
  fake.swap.answerPatch = {};
  fake.setSolPrice("150", { push: false });
  fake.setToken(BONK, { symbol: "BONK", priceUsd: "0.0042", decimals: 6 });
});

test("a buy quote: atomic amounts, impact as a fraction, route labels, request parameters", async () => {
  const h = v1Harness(fake);
  const q = await h.market.quotes.quote({
    inputMint: SOL_MINT,
    outputMint: BONK,
    amount: "1000000000",
    slippageBps: 300,
  });
  // 1 SOL × $150 / $0.0042 = 35 714.285714… BONK = 35 714 285 714 atomic units (6 decimals).
  expect(q).toMatchObject({
    inputMint: SOL_MINT,
    outputMint: BONK,
    inAmount: "1000000000",
    outAmount: "35714285714",
    otherAmountThreshold: "34642857142",
    swapMode: "ExactIn",
    slippageBps: 300,
    priceImpactPct: "0",
    routeLabels: ["Raydium"],
    contextSlot: 300_000_000,
  });
  const r = fake.requestsTo("jupiter.quote")[0]!;
  expect(Object.fromEntries(r.query)).toEqual({
    inputMint: SOL_MINT,
    outputMint: BONK,
    amount: "1000000000",
    slippageBps: "300",
  });
  expect(r.headers["x-api-key"]).toBe("fake-jupiter-key");
});

test("configured impact and multi-hop labels (deduplicated, in route order)", async () => {
  fake.quote.priceImpactPct = "0.0215";
  fake.quote.routeLabels = ["Orca", "Meteora DLMM", "Orca"];
  const h = v1Harness(fake);
  const q = await h.market.quotes.quote({
    inputMint: BONK,
    outputMint: SOL_MINT,
    amount: "35714285714",
    slippageBps: 100,
  });
  expect(q.priceImpactPct).toBe("0.0215");
  expect(q.routeLabels).toEqual(["Orca", "Meteora DLMM"]);
  // 35 714.285714 BONK × $0.0042 / $150 = 0.999999999992 SOL, less 2.15 % impact.
  expect(q.outAmount).toBe("978499999");
});

test("the swap transaction request sends the quote back unchanged", async () => {
  const h = v1Harness(fake);
  const q = await h.market.quotes.quote({
    inputMint: SOL_MINT,
    outputMint: BONK,
    amount: "250000000",
    slippageBps: 300,
  });
  const swap = await h.market.quotes.swapTransaction(q, user, 12_345);
  const sent = fake.requestsTo("jupiter.swap")[0]!;
  expect(sent.body).toEqual({
    quoteResponse: JSON.parse(JSON.stringify(q.raw)),
    userPublicKey: user,
    wrapAndUnwrapSol: true,
    dynamicComputeUnitLimit: true,
    // A lamport cap (LIVE_PRIORITY_FEE_MAX) in the form the Swap API v1 documents: the cap of an estimate, not
    // the old v6 bare number (issue 15).
    prioritizationFeeLamports: { priorityLevelWithMaxLamports: { maxLamports: 12_345, priorityLevel: "veryHigh" } },
  });
  // Byte for byte the JSON the aggregator issued.
  expect(JSON.stringify((sent.body as { quoteResponse: unknown }).quoteResponse)).toBe([...fake.issuedQuotes].at(-1)!);
  expect(swap.prioritizationFeeLamports).toBe(12_345);
  expect(swap.simulationError).toBeNull();
  const tx = VersionedTransaction.deserialize(Buffer.from(swap.swapTransaction, "base64"));
  expect(tx.message.staticAccountKeys[0]!.toBase58()).toBe(user); // fee payer
});

test("a swap answer whose unused fields are null or of another type is read (a tolerant reader: only swapTransaction is required)", async () => {
  fake.swap.answerPatch = { lastValidBlockHeight: null, computeUnitLimit: "many", prioritizationFeeLamports: null };
  const h = v1Harness(fake);
  const q = await h.market.quotes.quote({ inputMint: SOL_MINT, outputMint: BONK, amount: "1000", slippageBps: 50 });
  const swap = await h.market.quotes.swapTransaction(q, user, 0);
  expect(
    VersionedTransaction.deserialize(
      Buffer.from(swap.swapTransaction, "base64"),
    ).message.staticAccountKeys[0]!.toBase58(),
  ).toBe(user);
});

test("priority fee auto asks the aggregator for a capped fee", async () => {
  const h = v1Harness(fake);
  const q = await h.market.quotes.quote({ inputMint: SOL_MINT, outputMint: BONK, amount: "1000", slippageBps: 50 });
  await h.market.quotes.swapTransaction(q, user, "auto");
  expect((fake.requestsTo("jupiter.swap")[0]!.body as Record<string, unknown>).prioritizationFeeLamports).toEqual({
    priorityLevelWithMaxLamports: { maxLamports: 1_000_000, priorityLevel: "high" },
  });
});

test("a modified quote is refused by the aggregator (400), named swapAggregator", async () => {
  const h = v1Harness(fake);
  const q = await h.market.quotes.quote({ inputMint: SOL_MINT, outputMint: BONK, amount: "1000", slippageBps: 50 });
  const tampered = { ...q, raw: { ...q.raw, outAmount: "999999999999" } };
  const err = (await rejection(h.market.quotes.swapTransaction(tampered, user, 0))) as ProviderError;
  expect(err.status).toBe(502);
  expect(err.details).toEqual({ service: "swapAggregator", statusCode: 400 });
  expect(err.providerCode).toBe("INVALID_QUOTE");
});

test("no route: a 502 carrying the aggregator's code", async () => {
  fake.quote.noRoute.add(BONK);
  const h = v1Harness(fake);
  const err = (await rejection(
    h.market.quotes.quote({ inputMint: SOL_MINT, outputMint: BONK, amount: "1000", slippageBps: 50 }),
  )) as ProviderError;
  expect(err.message).toBe("swapAggregator returned HTTP 400: Could not find any route");
  expect(err.providerCode).toBe("COULD_NOT_FIND_ANY_ROUTE");
  expect(fake.requestsTo("jupiter.quote")).toHaveLength(1);
});

test("an unknown token is not tradable", async () => {
  const h = v1Harness(fake);
  const err = (await rejection(
    h.market.quotes.quote({
      inputMint: SOL_MINT,
      outputMint: "Nope111111111111111111111111111111111111111",
      amount: "1000",
      slippageBps: 50,
    }),
  )) as ProviderError;
  expect(err.providerCode).toBe("TOKEN_NOT_TRADABLE");
});

test("bad amounts never reach the aggregator", async () => {
  const h = v1Harness(fake);
  for (const amount of ["0", "1.5", "-3", ""]) {
    const err = await rejection(
      h.market.quotes.quote({ inputMint: SOL_MINT, outputMint: BONK, amount, slippageBps: 50 }),
    );
    expect(err.message).toBe("Quote amount must be a positive whole number of atomic units");
  }
  expect(fake.requestsTo("jupiter.quote")).toHaveLength(0);
});

test("malformed and incomplete quote answers are 502s", async () => {
  const h = v1Harness(fake);
  fake.inject(
    "jupiter.quote",
    { status: 200, raw: '{"inputMint":' },
    { status: 200, body: { inputMint: SOL_MINT, outAmount: 12 } },
  );
  const a = await rejection(
    h.market.quotes.quote({ inputMint: SOL_MINT, outputMint: BONK, amount: "1000", slippageBps: 50 }),
  );
  expect(a.message).toBe("swapAggregator returned malformed JSON");
  const b = await rejection(
    h.market.quotes.quote({ inputMint: SOL_MINT, outputMint: BONK, amount: "1000", slippageBps: 50 }),
  );
  expect(b.message).toBe(
    "swapAggregator returned an unexpected response: quote without inputMint, outputMint, inAmount and outAmount",
  );
});

test("keyless Jupiter: ONE limiter paces price, quote, swap and the SOL feed together (one every 2 s)", async () => {
  const timer = new ManualClock();
  const h = v1Harness(fake, { SWAP_AGGREGATOR_API_KEY: "", PRICE_NETWORK_API_KEY: "" }, { timer, limits: {} });
  const q = await h.market.quotes.quote({ inputMint: SOL_MINT, outputMint: BONK, amount: "1000000", slippageBps: 50 });
  await h.market.tokenPrices.getPrices([BONK]);
  await h.market.quotes.swapTransaction(q, user, 0);
  await h.market.solPrice.refresh();
  expect(timer.sleeps).toEqual([2_000, 2_000, 2_000]);
  expect(fake.requests.every((r) => r.headers["x-api-key"] === undefined)).toBe(true);
});

test("with a key the shared Jupiter limit is one per second", async () => {
  const timer = new ManualClock();
  const h = v1Harness(fake, {}, { timer, limits: {} });
  await h.market.quotes.quote({ inputMint: SOL_MINT, outputMint: BONK, amount: "1000000", slippageBps: 50 });
  await h.market.tokenPrices.getPrices([BONK]);
  expect(timer.sleeps).toEqual([1_000]);
});
