import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Keypair, VersionedTransaction } from "@solana/web3.js";
import { loadConfig } from "../../src/config.ts";
import { ValidationError } from "../../src/errors.ts";
import { HttpClient, ProviderError } from "../../src/market/http-client.ts";
import { JupiterSwapClient } from "../../src/market/jupiter-swap.ts";
import { JupiterSwapV2Client } from "../../src/market/jupiter-swap-v2.ts";
import { SOL_MINT } from "../../src/money.ts";
import { type ChainAggregator, type Pool, startChainAggregator } from "../fakes/chain-aggregator.ts";
import { type LiteSvmRpc, startLiteSvmRpc } from "../fakes/litesvm-rpc.ts";

// The Swap API v2 client over real HTTP against the chain aggregator fake (/swap/v2/build,
// /order, /execute in the documented wire format), and against a local server for what the
// fake never sends (malformed answers, headers).

let chain: LiteSvmRpc;
let agg: ChainAggregator;
let pool: Pool;
const taker = Keypair.generate();

const http = (baseUrl: string, headers?: Record<string, string>) =>
  new HttpClient({ service: "swapAggregator", baseUrl, headers, timeoutMs: 5_000, retry: { maxRetries: 0 } });
const buyReq = (amount = "100000000") => ({
  inputMint: SOL_MINT,
  outputMint: pool.mint.toBase58(),
  amount,
  slippageBps: 100,
});

beforeEach(async () => {
  chain = await startLiteSvmRpc();
  agg = await startChainAggregator(chain);
  pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
  chain.airdrop(taker.publicKey, 5_000_000_000n);
});
afterEach(async () => {
  await agg.stop();
  await chain.stop();
});

describe("SWAP_API", () => {
  test("defaults to build; order and v1 accepted; anything else named as a problem", () => {
    expect(loadConfig({}).SWAP_API).toBe("build");
    expect(loadConfig({ SWAP_API: "order" }).SWAP_API).toBe("order");
    expect(loadConfig({ SWAP_API: "v1" }).SWAP_API).toBe("v1");
    expect(() => loadConfig({ SWAP_API: "ultra" })).toThrow("SWAP_API");
  });

  test("priority fee and Jito settings: defaults and bounds", () => {
    const c = loadConfig({});
    expect([c.LIVE_PRIORITY_FEE_PERCENTILE, c.LIVE_PRIORITY_FEE_MAX, c.LIVE_COMPUTE_UNIT_LIMIT]).toEqual([
      75, 1_000_000, 400_000,
    ]);
    expect([c.JITO_BLOCK_ENGINE_URL, c.JITO_TIP_LAMPORTS]).toEqual(["", 10_000]);
    expect(() => loadConfig({ LIVE_PRIORITY_FEE_PERCENTILE: "101" })).toThrow("LIVE_PRIORITY_FEE_PERCENTILE");
    expect(() => loadConfig({ JITO_TIP_LAMPORTS: "999" })).toThrow("JITO_TIP_LAMPORTS");
  });
});

describe("/swap/v2/build", () => {
  test("taker and ExactIn quote; instructions and lookup tables parsed as documented", async () => {
    const v2 = new JupiterSwapV2Client(http(agg.url), { api: "build" });
    const { quote, build } = await v2.build(buyReq(), taker.publicKey.toBase58());
    const q = agg.v2.buildRequests[0]!;
    expect(Object.fromEntries(q)).toEqual({
      inputMint: SOL_MINT,
      outputMint: pool.mint.toBase58(),
      amount: "100000000",
      taker: taker.publicKey.toBase58(),
      slippageBps: "100",
    });
    expect(quote.outAmount).toBe("100000000");
    expect(quote.otherAmountThreshold).toBe("99000000");
    expect(quote.routeLabels).toEqual(["LiteSVM Pool"]);
    expect(build.computeBudgetInstructions.length).toBe(1);
    expect(build.swapInstruction.accounts.some((a) => a.pubkey === taker.publicKey.toBase58() && a.isSigner)).toBe(
      true,
    );
    expect(build.cleanupInstruction?.programId).toBe("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
    expect(Object.keys(build.addressesByLookupTableAddress ?? {})).toEqual([pool.lookupTable.toBase58()]);
  });

  test("quote() in build mode asks /build for the configured quote taker; without one it refuses", async () => {
    const v2 = new JupiterSwapV2Client(http(agg.url), { api: "build", quoteTaker: taker.publicKey.toBase58() });
    expect((await v2.quote(buyReq())).outAmount).toBe("100000000");
    expect(agg.v2.buildRequests.length).toBe(1);
    const bare = new JupiterSwapV2Client(http(agg.url), { api: "build" });
    await expect(bare.quote(buyReq())).rejects.toBeInstanceOf(ValidationError);
  });

  test("ExactOut and bad amounts are refused before any request", async () => {
    const v2 = new JupiterSwapV2Client(http(agg.url), { api: "build" });
    await expect(v2.build({ ...buyReq(), swapMode: "ExactOut" }, taker.publicKey.toBase58())).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(v2.build(buyReq("0"), taker.publicKey.toBase58())).rejects.toBeInstanceOf(ValidationError);
    expect(agg.v2.buildRequests.length).toBe(0);
  });

  test("an unroutable pair is the aggregator's 400 as a ProviderError with its code", async () => {
    const v2 = new JupiterSwapV2Client(http(agg.url), { api: "build" });
    const err = await v2
      .build({ ...buyReq(), outputMint: Keypair.generate().publicKey.toBase58() }, taker.publicKey.toBase58())
      .catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.providerCode).toBe("TOKEN_NOT_TRADABLE");
  });
});

describe("/swap/v2/order and /execute", () => {
  test("without taker: a quote, router and fee, no transaction", async () => {
    agg.v2.router = "jupiterz";
    agg.v2.feeBps = 5;
    const v2 = new JupiterSwapV2Client(http(agg.url), { api: "order" });
    const r = await v2.order(buyReq());
    expect(r.order.transaction).toBeNull();
    expect([r.router, r.feeBps]).toEqual(["jupiterz", 5]);
    // The fee is in the quote (taken in SOL off a buy's input): 5 bps fewer tokens.
    expect((await v2.quote(buyReq())).outAmount).toBe("99950000");
  });

  test("with taker: sign, execute, land once; the same requestId again answers the same outcome", async () => {
    const v2 = new JupiterSwapV2Client(http(agg.url), { api: "order" });
    const r = await v2.order(buyReq(), taker.publicKey.toBase58());
    const tx = VersionedTransaction.deserialize(Buffer.from(r.order.transaction!, "base64"));
    tx.sign([taker]);
    const signed = Buffer.from(tx.serialize()).toString("base64");
    const first = await v2.execute(signed, r.order.requestId);
    expect(first.status).toBe("Success");
    expect(first.code).toBe(0);
    expect(first.outputAmountResult).toBe("100000000");
    expect(agg.v2.executeRequests[0]).toEqual({ signedTransaction: signed, requestId: r.order.requestId });
    const again = await v2.execute(signed, r.order.requestId);
    expect(again).toEqual(first);
    expect(chain.landed.get(first.signature!)?.err).toBeNull();
    expect(chain.calls.filter((c) => c.method === "sendTransaction").length).toBe(1);
  });

  test("an expired or unknown order, or altered bytes, fail with Jupiter's codes", async () => {
    const v2 = new JupiterSwapV2Client(http(agg.url), { api: "order" });
    const r = await v2.order(buyReq(), taker.publicKey.toBase58());
    const tx = VersionedTransaction.deserialize(Buffer.from(r.order.transaction!, "base64"));
    const other = await v2.order(buyReq("5000000"), taker.publicKey.toBase58());
    tx.sign([taker]);
    const signed = Buffer.from(tx.serialize()).toString("base64");
    expect((await v2.execute(signed, other.order.requestId)).code).toBe(-3);
    agg.v2.expireOrder(r.order.requestId);
    const expired = await v2.execute(signed, r.order.requestId);
    expect([expired.status, expired.code]).toEqual(["Failed", -1]);
    expect(chain.calls.filter((c) => c.method === "sendTransaction").length).toBe(0);
  });
});

describe("v1 retired; wire details", () => {
  test("with v1 retired the v1 client gets 404 while v2 answers", async () => {
    agg.v1Retired = true;
    const err = await new JupiterSwapClient(http(agg.url)).quote(buyReq()).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.statusCode).toBe(404);
    const v2 = new JupiterSwapV2Client(http(agg.url), { api: "order" });
    expect((await v2.order(buyReq())).quote.outAmount).toBe("100000000");
  });

  test("x-api-key is sent; a build answer missing its swap instruction is an unexpected response, not a crash", async () => {
    const seen: Headers[] = [];
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        seen.push(req.headers);
        return Response.json({
          inputMint: SOL_MINT,
          outputMint: SOL_MINT,
          inAmount: "1",
          outAmount: "1",
          otherAmountThreshold: "1",
          slippageBps: 50,
          computeBudgetInstructions: [],
          setupInstructions: [],
        });
      },
    });
    try {
      const v2 = new JupiterSwapV2Client(http(`http://127.0.0.1:${server.port}`, { "x-api-key": "k-123" }), {
        api: "build",
      });
      const err = await v2.build(buyReq(), taker.publicKey.toBase58()).catch((e) => e);
      expect(err).toBeInstanceOf(ProviderError);
      expect(err.failure).toBe("unexpected");
      expect(err.message).toContain("swapInstruction");
      expect(seen[0]?.get("x-api-key")).toBe("k-123");
    } finally {
      await server.stop(true);
    }
  });
});
