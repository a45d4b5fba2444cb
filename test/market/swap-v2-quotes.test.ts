import { expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { HttpClient, ProviderError } from "../../src/market/http-client.ts";
import { JupiterSwapClient } from "../../src/market/jupiter-swap.ts";
import { JupiterSwapV2Client } from "../../src/market/jupiter-swap-v2.ts";
import { SOL_MINT } from "../../src/money.ts";
import { fakeMarketPerFile } from "../helpers/fake-market.ts";

// Simulation quotes over Swap API v2 from the fake market (the same amounts as its v1 quotes, so
// a simulated fill is the one the live path would get from the same prices), with v1 retired.

const BONK = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
const taker = Keypair.generate().publicKey.toBase58();
const req = { inputMint: SOL_MINT, outputMint: BONK, amount: "1000000000", slippageBps: 300 };

const client = (headers?: Record<string, string>) =>
  new HttpClient({ service: "swapAggregator", baseUrl: fake.url, headers, timeoutMs: 5_000, retry: { maxRetries: 0 } });

const fake = await fakeMarketPerFile(
  () => {
    fake.v2 = { router: "iris", feeBps: 0, prioritizationFeeLamports: 0, v1Retired: true };
    fake.setSolPrice("150", { push: false });
    fake.setToken(BONK, { symbol: "BONK", priceUsd: "0.0042", decimals: 6 });
  },
  { keys: { swapAggregator: "right-key" } },
);

test("order without taker: the v1 amounts less Jupiter's fee, router and fee; v1 itself answers 404", async () => {
  fake.v2.router = "jupiterz";
  fake.v2.feeBps = 2;
  fake.v2.prioritizationFeeLamports = 70_000;
  const v2 = new JupiterSwapV2Client(client({ "x-api-key": "right-key" }), { api: "order" });
  const r = await v2.order(req);
  // 1 SOL × $150 / $0.0042, 6 decimals = 35 714 285 714, less 2 bps (the fee is in the quote).
  expect(r.quote.outAmount).toBe("35707142856");
  expect(r.quote.otherAmountThreshold).toBe("34635928570");
  expect([r.router, r.feeBps, r.order.transaction]).toEqual(["jupiterz", 2, null]);
  // quote() (the simulation's) carries the router, fee and the order's own priority fee.
  expect((await v2.quote(req)).order).toEqual({ router: "jupiterz", feeBps: 2, prioritizationFeeLamports: 70_000 });
  expect(fake.requestsTo("jupiter.order")[0]?.headers["x-api-key"]).toBe("right-key");
  const v1 = await new JupiterSwapClient(client()).quote(req).catch((e) => e);
  expect(v1).toBeInstanceOf(ProviderError);
  expect(v1.statusCode).toBe(404);
});

test("build with the quote taker: same amounts, instructions for the taker; taker required", async () => {
  const v2 = new JupiterSwapV2Client(client(), { api: "build", quoteTaker: taker });
  const q = await v2.quote(req);
  expect(q.outAmount).toBe("35714285714");
  const { build } = await v2.build(req, taker);
  // The route's stand-in pays from the taker; Jupiter's route instruction names it as the transfer authority.
  expect(build.setupInstructions[0]?.accounts[0]).toEqual({ pubkey: taker, isSigner: true, isWritable: true });
  expect(build.swapInstruction.accounts[1]).toEqual({ pubkey: taker, isSigner: true, isWritable: false });
  expect(fake.requestsTo("jupiter.build")[0]?.query.get("taker")).toBe(taker);
  const noTaker = (await client()
    .getJson("/swap/v2/build", { inputMint: SOL_MINT, outputMint: BONK, amount: "1" })
    .catch((e: unknown) => e)) as ProviderError;
  expect(noTaker).toBeInstanceOf(ProviderError);
  expect(noTaker.statusCode).toBe(400);
});

test("a wrong key is 401; an unpriced token is TOKEN_NOT_TRADABLE", async () => {
  const bad = await new JupiterSwapV2Client(client({ "x-api-key": "wrong" }), { api: "order" })
    .order(req)
    .catch((e) => e);
  expect(bad.statusCode).toBe(401);
  fake.setToken(BONK, { priceUsd: null });
  const err = await new JupiterSwapV2Client(client(), { api: "order" }).order(req).catch((e) => e);
  expect(err.providerCode).toBe("TOKEN_NOT_TRADABLE");
});
