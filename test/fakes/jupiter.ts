import {
  ComputeBudgetProgram,
  PublicKey,
  SystemProgram,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import bs58 from "bs58";
import { Big, SOL_MINT } from "../../src/money.ts";
import { routeInstruction } from "./jupiter-program.ts";
import { type FakeHandlerContext, type FakeMarket, type FakeRoute, jsonError, type QuoteBehaviour } from "./market.ts";

// Jupiter (https://dev.jup.ag/docs):
//   GET  /price/v3?ids=a,b,...   (≤ 50)   → {<mint>: {usdPrice, blockId, decimals, priceChange24h,
//                                             createdAt, liquidity}}; unpriced mints are absent
//   GET  /swap/v1/quote?inputMint&outputMint&amount&slippageBps[&swapMode]
//        → {inputMint, inAmount, outputMint, outAmount, otherAmountThreshold, swapMode, slippageBps,
//           platformFee, priceImpactPct, routePlan[{swapInfo{ammKey,label,...}, percent, bps}],
//           contextSlot, timeTaken}; 400 {error, errorCode} when no route / not tradable
//   POST /swap/v1/swap {quoteResponse, userPublicKey, prioritizationFeeLamports, ...}
//        → {swapTransaction (base64 v0 tx, fee payer userPublicKey), lastValidBlockHeight,
//           prioritizationFeeLamports, computeUnitLimit, prioritizationType, simulationError}
// The quote's amounts come from the fake's token prices and decimals (outAmount = value in at the
// input price, out at the output price, less priceImpactPct) so simulated fills are realistic.
// Auth: x-api-key is optional (keyless works); a wrong key (when the fake has one) is 401.

const MAX_PRICE_IDS = 50;

/** A stable stand-in for the owner's token account of a mint (the Solana RPC fake serves it). */
export function fakeTokenAccount(owner: string, mint: string): string {
  const h = new Bun.CryptoHasher("sha256").update(`${owner}:${mint}`).digest();
  return bs58.encode(h);
}

function authorize(ctx: FakeHandlerContext): Response | null {
  const key = ctx.req.headers.get("x-api-key");
  const want = ctx.fake.keys?.swapAggregator;
  if (key !== null && want !== undefined && key !== want) return jsonError(401, { error: "Invalid API key" });
  return null;
}

function price(ctx: FakeHandlerContext): Response {
  const idsParam = ctx.url.searchParams.get("ids");
  if (!idsParam) return jsonError(400, { error: "Query parameter ids is required" });
  const ids = idsParam.split(",").filter(Boolean);
  if (ids.length > MAX_PRICE_IDS) return jsonError(400, { error: `At most ${MAX_PRICE_IDS} ids per request` });
  const out: Record<string, unknown> = {};
  for (const id of ids) {
    const t = ctx.fake.tokens.get(id);
    if (!t || t.priceUsd === null) continue;
    out[id] = {
      createdAt: "2024-06-05T08:55:25.527Z",
      liquidity: t.liquidityUsd,
      usdPrice: Number(t.priceUsd),
      blockId: 348_004_023,
      decimals: t.decimals,
      priceChange24h: 1.29,
    };
  }
  return Response.json(out);
}

const pow10 = (n: number) => new Big(10).pow(n);

function behaviourFor(fake: FakeMarket, inputMint: string, outputMint: string): Omit<QuoteBehaviour, "noRoute"> {
  const o = fake.quoteOverrides.get(outputMint) ?? fake.quoteOverrides.get(inputMint) ?? {};
  return { ...fake.quote, ...o };
}

function quote(ctx: FakeHandlerContext): Response {
  const body = quoteBody(ctx);
  if (body instanceof Response) return body;
  const text = JSON.stringify(body);
  ctx.fake.issuedQuotes.add(text);
  return new Response(text, { headers: { "content-type": "application/json" } });
}

/** The quote document for the request's query, or the API's 400 answer. */
function quoteBody(ctx: FakeHandlerContext): Response | Record<string, unknown> {
  const q = ctx.url.searchParams;
  for (const p of ["inputMint", "outputMint", "amount"]) {
    if (!q.get(p)) return jsonError(400, { error: `Query parameter ${p} is required`, errorCode: "INVALID_REQUEST" });
  }
  const inputMint = q.get("inputMint")!;
  const outputMint = q.get("outputMint")!;
  const amount = q.get("amount")!;
  const slippageBps = Number(q.get("slippageBps") ?? 50);
  const swapMode = q.get("swapMode") ?? "ExactIn";
  if (!/^\d+$/.test(amount) || amount === "0")
    return jsonError(400, { error: "amount must be a positive integer", errorCode: "INVALID_REQUEST" });
  const failing = ctx.fake.failingQuoteAmounts.get(amount);
  if (failing) return jsonError(failing, { error: "Internal error", errorCode: "INTERNAL" });
  if (!Number.isInteger(slippageBps) || slippageBps < 0)
    return jsonError(400, { error: "Invalid slippageBps", errorCode: "INVALID_REQUEST" });
  if (swapMode !== "ExactIn" && swapMode !== "ExactOut")
    return jsonError(400, { error: "Invalid swapMode", errorCode: "INVALID_REQUEST" });
  const tIn = ctx.fake.tokens.get(inputMint);
  const tOut = ctx.fake.tokens.get(outputMint);
  for (const [mint, t] of [
    [inputMint, tIn],
    [outputMint, tOut],
  ] as const) {
    if (!t || t.priceUsd === null)
      return jsonError(400, { error: `The token ${mint} is not tradable`, errorCode: "TOKEN_NOT_TRADABLE" });
  }
  if (ctx.fake.quote.noRoute.has(inputMint) || ctx.fake.quote.noRoute.has(outputMint)) {
    return jsonError(400, { error: "Could not find any route", errorCode: "COULD_NOT_FIND_ANY_ROUTE" });
  }
  const b = behaviourFor(ctx.fake, inputMint, outputMint);
  const keep = new Big(1).minus(b.priceImpactPct);
  const pIn = new Big(tIn!.priceUsd!);
  const pOut = new Big(tOut!.priceUsd!);
  let inAmount: string;
  let outAmount: string;
  let threshold: string;
  if (swapMode === "ExactIn") {
    inAmount = amount;
    const out = new Big(amount).div(pow10(tIn!.decimals)).times(pIn).div(pOut).times(pow10(tOut!.decimals)).times(keep);
    outAmount = out.round(0, Big.roundDown).toFixed(0);
    threshold = new Big(outAmount)
      .times(10_000 - slippageBps)
      .div(10_000)
      .round(0, Big.roundDown)
      .toFixed(0);
  } else {
    outAmount = amount;
    const inn = new Big(amount).div(pow10(tOut!.decimals)).times(pOut).div(pIn).times(pow10(tIn!.decimals)).div(keep);
    inAmount = inn.round(0, Big.roundUp).toFixed(0);
    threshold = new Big(inAmount)
      .times(10_000 + slippageBps)
      .div(10_000)
      .round(0, Big.roundUp)
      .toFixed(0);
  }
  if (inAmount === "0" || outAmount === "0")
    return jsonError(400, { error: "Could not find any route", errorCode: "COULD_NOT_FIND_ANY_ROUTE" });
  const body = {
    inputMint,
    inAmount,
    outputMint,
    outAmount,
    otherAmountThreshold: threshold,
    swapMode,
    slippageBps,
    platformFee: null,
    priceImpactPct: b.priceImpactPct,
    routePlan: b.routeLabels.map((label, i) => ({
      swapInfo: {
        ammKey: `FakeAmm${i}${label.replace(/[^A-Za-z0-9]/g, "")}`.padEnd(32, "1").slice(0, 44),
        label,
        inputMint,
        outputMint,
        inAmount,
        outAmount,
        feeAmount: "0",
        feeMint: inputMint,
      },
      percent: 100,
      bps: 10_000,
    })),
    contextSlot: b.contextSlot,
    timeTaken: 0.0123,
  };
  return body;
}

/**
 * Swap API v2 quotes for the simulation path (the transactions that land are the litesvm chain
 * aggregator's, chain-aggregator-v2.ts): GET /swap/v2/order (ExactIn; without taker no
 * transaction) → quote fields + mode, router, feeBps, feeMint, requestId, transaction: null,
 * lastValidBlockHeight, expireAt; GET /swap/v2/build (taker required) → quote fields + a
 * compute-unit price, no setup, the route stand-in as swapInstruction, no cleanup, no lookup
 * tables. `fake.v2.router` / `fake.v2.feeBps` / `fake.v2.prioritizationFeeLamports` shape /order's
 * answer; its outAmount and threshold are net of feeBps, as Jupiter's are.
 */
function v2Quote(ctx: FakeHandlerContext, kind: "order" | "build"): Response {
  const q = ctx.url.searchParams;
  if ((q.get("swapMode") ?? "ExactIn") !== "ExactIn")
    return jsonError(400, { error: "Only ExactIn is supported", errorCode: "INVALID_REQUEST" });
  let taker: PublicKey | null = null;
  const t = q.get("taker");
  if (t) {
    try {
      taker = new PublicKey(t);
    } catch {
      return jsonError(400, { error: "Invalid taker", errorCode: "INVALID_REQUEST" });
    }
  }
  if (kind === "build" && !taker) return jsonError(400, { error: "taker is required", errorCode: "INVALID_REQUEST" });
  const body = quoteBody(ctx);
  if (body instanceof Response) return body;
  if (kind === "order") {
    // Jupiter's /order fee "is included in the quote and deducted automatically"
    // (https://dev.jup.ag/docs/swap/fees): outAmount and the threshold are what arrives after it.
    const feeBps = ctx.fake.v2.feeBps;
    const net = (atomic: unknown) => ((BigInt(String(atomic)) * BigInt(10_000 - feeBps)) / 10_000n).toString();
    const outAmount = net(body.outAmount);
    return Response.json({
      mode: "ultra",
      ...body,
      outAmount,
      otherAmountThreshold: net(body.otherAmountThreshold),
      platformFee: { amount: (BigInt(String(body.outAmount)) - BigInt(outAmount)).toString(), feeBps },
      feeMint: body.outputMint,
      feeBps,
      router: ctx.fake.v2.router,
      signatureFeeLamports: 5_000,
      prioritizationFeeLamports: ctx.fake.v2.prioritizationFeeLamports,
      rentFeeLamports: 0,
      swapType: "aggregator",
      requestId: `order-${ctx.fake.requestsTo("jupiter.order").length}`,
      taker: taker?.toBase58() ?? null,
      transaction: null,
      lastValidBlockHeight: String(ctx.fake.swap.lastValidBlockHeight),
      expireAt: String(Math.floor(Date.now() / 1000) + 120),
      totalTime: 1,
    });
  }
  const apiIx = (ix: ReturnType<typeof SystemProgram.transfer>) => ({
    programId: ix.programId.toBase58(),
    accounts: ix.keys.map((k) => ({ pubkey: k.pubkey.toBase58(), isSigner: k.isSigner, isWritable: k.isWritable })),
    data: Buffer.from(ix.data).toString("base64"),
  });
  return Response.json({
    ...body,
    computeBudgetInstructions: [apiIx(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 250_000 }))],
    setupInstructions: [apiIx(routeStandIn(taker!, body as { inputMint?: string; outputMint?: string }, ctx))],
    swapInstruction: apiIx(jupiterRoute(taker!, body as QuoteNumbers)),
    cleanupInstruction: null,
    otherInstructions: [],
    addressesByLookupTableAddress: {},
    blockhashWithMetadata: {
      blockhash: ctx.fake.swap.blockhash,
      lastValidBlockHeight: ctx.fake.swap.lastValidBlockHeight,
    },
  });
}

/** After Jupiter retires v1: 404, as for any unknown path. */
const retired = (ctx: FakeHandlerContext) => (ctx.fake.v2.v1Retired ? jsonError(404, { error: "Not found" }) : null);

function swap(ctx: FakeHandlerContext): Response {
  const b = ctx.body as Record<string, unknown> | undefined;
  if (!b || typeof b !== "object")
    return jsonError(400, { error: "Invalid request body", errorCode: "INVALID_REQUEST" });
  if (!b.quoteResponse || !ctx.fake.issuedQuotes.has(JSON.stringify(b.quoteResponse))) {
    return jsonError(400, {
      error: "Invalid quoteResponse: not a quote this API issued, or modified",
      errorCode: "INVALID_QUOTE",
    });
  }
  let payer: PublicKey;
  try {
    payer = new PublicKey(String(b.userPublicKey ?? ""));
  } catch {
    return jsonError(400, { error: "Invalid userPublicKey", errorCode: "INVALID_REQUEST" });
  }
  const fee = b.prioritizationFeeLamports;
  let feeLamports = 0;
  if (typeof fee === "number") feeLamports = fee;
  else if (fee === "auto") feeLamports = 50_000;
  else if (fee && typeof fee === "object") {
    const max = Number(
      (fee as { priorityLevelWithMaxLamports?: { maxLamports?: number } }).priorityLevelWithMaxLamports?.maxLamports ??
        50_000,
    );
    feeLamports = Math.min(max, 50_000);
  }
  const { computeUnitLimit, blockhash, lastValidBlockHeight } = ctx.fake.swap;
  const microLamports = Math.floor((feeLamports * 1_000_000) / computeUnitLimit);
  const message = new TransactionMessage({
    payerKey: payer,
    recentBlockhash: blockhash,
    instructions: [
      ComputeBudgetProgram.setComputeUnitLimit({ units: computeUnitLimit }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports }),
      routeStandIn(payer, b.quoteResponse as { inputMint?: string; outputMint?: string }, ctx),
      jupiterRoute(payer, b.quoteResponse as QuoteNumbers),
    ],
  }).compileToV0Message();
  const tx = new VersionedTransaction(message);
  return Response.json({
    swapTransaction: Buffer.from(tx.serialize()).toString("base64"),
    lastValidBlockHeight,
    prioritizationFeeLamports: feeLamports,
    computeUnitLimit,
    prioritizationType: { computeBudget: { microLamports, estimatedMicroLamports: microLamports } },
    dynamicSlippageReport: null,
    simulationError: null,
    ...ctx.fake.swap.answerPatch,
  });
}

/**
 * Stands in for the route's instructions: harmless, and signed by the fee payer. Its lamports
 * number the /swap request (1, 2, ...), so every transaction differs and the Solana RPC fake
 * (solana-rpc.ts) finds the quote it was built from. The wallet's token account of the traded
 * mint is listed writable, as a real route's is: the RPC fake's simulation returns it, so the
 * live executor's inspection sees the tokens arrive or leave.
 */
function routeStandIn(payer: PublicKey, q: { inputMint?: string; outputMint?: string }, ctx: FakeHandlerContext) {
  const ix = SystemProgram.transfer({
    fromPubkey: payer,
    toPubkey: payer,
    lamports: ctx.fake.requestsTo("jupiter.swap").length,
  });
  const mint = q.inputMint === SOL_MINT ? q.outputMint : q.inputMint;
  if (mint && mint !== SOL_MINT)
    ix.keys.push({
      pubkey: new PublicKey(fakeTokenAccount(payer.toBase58(), mint)),
      isSigner: false,
      isWritable: true,
    });
  return ix;
}

interface QuoteNumbers {
  inputMint?: string;
  outputMint?: string;
  inAmount?: unknown;
  outAmount?: unknown;
  slippageBps?: unknown;
}

/**
 * The route's Jupiter v6 `route` instruction (jupiter-program.ts), honest about the quote: its
 * input, its outAmount quoted at its slippage. Nothing executes it here (the Solana RPC fake
 * answers the quote's effect); the inspection reads its bytes as it reads a real route's.
 */
function jupiterRoute(payer: PublicKey, q: QuoteNumbers) {
  const mint = q.inputMint === SOL_MINT ? q.outputMint : q.inputMint;
  const tokens = mint && mint !== SOL_MINT ? new PublicKey(fakeTokenAccount(payer.toBase58(), mint)) : payer;
  const buy = q.inputMint === SOL_MINT;
  return routeInstruction(
    {
      tokenProgram: new PublicKey("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"),
      user: payer,
      source: buy ? payer : tokens,
      destination: buy ? tokens : payer,
      destinationMint: new PublicKey(buy ? (mint ?? SOL_MINT) : SOL_MINT),
    },
    {
      inAmount: BigInt(String(q.inAmount ?? 0)),
      quotedOutAmount: BigInt(String(q.outAmount ?? 0)),
      slippageBps: Math.min(10_000, Number(q.slippageBps ?? 0)),
      platformFeeBps: 0,
    },
  );
}

export function jupiterRoutes(): FakeRoute[] {
  return [
    {
      name: "jupiter.price",
      method: "GET",
      match: (p) => p === "/price/v3",
      handle: (ctx) => authorize(ctx) ?? price(ctx),
    },
    {
      name: "jupiter.quote",
      method: "GET",
      match: (p) => p === "/swap/v1/quote",
      handle: (ctx) => retired(ctx) ?? authorize(ctx) ?? quote(ctx),
    },
    {
      name: "jupiter.order",
      method: "GET",
      match: (p) => p === "/swap/v2/order",
      handle: (ctx) => authorize(ctx) ?? v2Quote(ctx, "order"),
    },
    {
      name: "jupiter.build",
      method: "GET",
      match: (p) => p === "/swap/v2/build",
      handle: (ctx) => authorize(ctx) ?? v2Quote(ctx, "build"),
    },
    {
      name: "jupiter.swap",
      method: "POST",
      match: (p) => p === "/swap/v1/swap",
      handle: (ctx) => retired(ctx) ?? authorize(ctx) ?? swap(ctx),
    },
  ];
}
