import { z } from "zod";
import { ValidationError } from "../errors.ts";
import { type HttpClient, ProviderError, unexpectedResponse } from "./http-client.ts";
import { checkQuoteRequest, parseQuote } from "./jupiter-swap.ts";
import type { Quote, QuoteProvider, QuoteRequest } from "./types.ts";

// Jupiter Swap API v2 (https://api.jup.ag/swap/v2, the same x-api-key as v1), through the one
// HttpClient (pacing, timeouts, retries, ProviderError) the v1 client uses. Wire formats as the
// API reference and Jupiter's migration guide document them (docs/decisions.md "Swap API v2"):
//   GET  /build?inputMint&outputMint&amount&taker[&slippageBps]  (ExactIn only; Metis router)
//        → quote fields + computeBudgetInstructions, setupInstructions, swapInstruction,
//          cleanupInstruction, otherInstructions, addressesByLookupTableAddress,
//          blockhashWithMetadata; an instruction is {programId, accounts[{pubkey, isSigner,
//          isWritable}], data (base64)}.
//   GET  /order?inputMint&outputMint&amount[&taker]  (every router; a fee of feeBps)
//        → quote fields + router, feeBps, requestId, transaction (base64, null without taker),
//          lastValidBlockHeight, expireAt.
//   POST /execute {signedTransaction, requestId}  (idempotent per requestId for about 2 minutes)
//        → {status: "Success" | "Failed", signature, slot, code, error, inputAmountResult,
//           outputAmountResult, ...}.
// Every document is zod-parsed as a tolerant reader (docs/decisions/live-send-guards.md): a field
// the service uses is strict (an answer without it, or with another type, is refused); a field it
// does not use (`unused`) may be absent, null or of any type, and then reads as absent; extra
// fields pass through (Quote.raw keeps them).

export type SwapApi = "build" | "order" | "v1";

const base58 = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, "a base58 address");
const atomicText = z.string().regex(/^\d+$/, "a whole number of atomic units");
const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, "base64");

/** A field the service does not act on: when it is not what the documentation says, it is absent. */
const unused = <S extends z.ZodType>(schema: S) => schema.optional().catch(undefined);

const accountMeta = z.object({ pubkey: base58, isSigner: z.boolean(), isWritable: z.boolean() });
const apiInstructionSchema = z.object({ programId: base58, accounts: z.array(accountMeta), data: base64 });
export type ApiInstruction = z.output<typeof apiInstructionSchema>;

const quoteFields = {
  inputMint: base58,
  outputMint: base58,
  inAmount: atomicText,
  outAmount: atomicText,
  otherAmountThreshold: atomicText,
  swapMode: z.literal("ExactIn").optional(),
  slippageBps: z.number().int().min(0).max(10_000),
  priceImpactPct: z.string().optional(),
  // Only labels the trade's `routes` (parseQuote reads it leniently too).
  routePlan: unused(z.array(z.object({ swapInfo: z.object({ label: z.string().optional() }).loose() }).loose())),
};

const buildResponseSchema = z
  .object({
    ...quoteFields,
    computeBudgetInstructions: z.array(apiInstructionSchema),
    setupInstructions: z.array(apiInstructionSchema),
    swapInstruction: apiInstructionSchema,
    cleanupInstruction: apiInstructionSchema.nullable().optional(),
    otherInstructions: z.array(apiInstructionSchema).default([]),
    addressesByLookupTableAddress: z.record(base58, z.array(base58)).nullable().default({}),
    // Not used: the transaction is built on our own node's blockhash, never one from outside
    // (docs/decisions.md "Live safety: our own numbers, our own blockhash, nothing untracked").
    blockhashWithMetadata: z.unknown().optional(),
  })
  .loose();
export type BuildResponse = z.output<typeof buildResponseSchema>;

const orderResponseSchema = z
  .object({
    ...quoteFields,
    router: z.string().nullable().optional(),
    mode: unused(z.string()),
    feeBps: z.number().int().min(0).max(10_000).default(0),
    feeMint: unused(z.string()),
    prioritizationFeeLamports: z.number().int().min(0).optional(),
    requestId: z.string().min(1),
    transaction: base64.nullable().optional(),
    // Only raises the bound expiry is judged by when it is a height (order-swap.ts); else absent.
    lastValidBlockHeight: unused(
      z.union([
        z
          .string()
          .regex(/^\d+$/)
          .transform(Number)
          .refine((n) => Number.isSafeInteger(n)),
        z.number().int().min(0),
      ]),
    ),
    expireAt: unused(z.string()),
  })
  .loose();
type OrderResponse = z.output<typeof orderResponseSchema>;

const executeResponseSchema = z
  .object({
    status: z.enum(["Success", "Failed"]),
    signature: z.string().optional(),
    // Logged only: the outcome and the amounts are the chain's (order-outcome.ts).
    code: unused(z.number().int()),
    error: unused(z.string()),
    slot: unused(z.union([z.string(), z.number()])),
    inputAmountResult: unused(atomicText),
    outputAmountResult: unused(atomicText),
    totalInputAmount: unused(atomicText),
    totalOutputAmount: unused(atomicText),
  })
  .loose();
export type ExecuteResponse = z.output<typeof executeResponseSchema>;

export interface BuildResult {
  quote: Quote;
  build: BuildResponse;
}

export interface OrderResult {
  quote: Quote;
  order: OrderResponse;
  /** Jupiter's router for this order (iris = Metis, jupiterz = RFQ, dflow, okx). */
  router: string | null;
  feeBps: number;
}

function parsed<S extends z.ZodType>(service: string, schema: S, body: unknown, what: string): z.output<S> {
  const r = schema.safeParse(body);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw unexpectedResponse(service, `${what}: ${issue?.path.join(".") || "(root)"} ${issue?.message ?? ""}`.trim());
  }
  return r.data;
}

/** A /build or /order answer naming no quote: {error} (or {errorCode, errorMessage}) as a ProviderError. */
function refusal(service: string, body: unknown): ProviderError | null {
  const b = body as { error?: unknown; errorMessage?: unknown; errorCode?: unknown; requestId?: unknown } | null;
  if (!b || typeof b !== "object" || "inAmount" in b) return null;
  const message = typeof b.error === "string" ? b.error : typeof b.errorMessage === "string" ? b.errorMessage : null;
  if (message === null) return null;
  return new ProviderError(service, `${service}: ${message}`, "unexpected", undefined, String(b.errorCode ?? ""));
}

export class JupiterSwapV2Client implements Pick<QuoteProvider, "configured" | "quote"> {
  readonly configured = true;

  /**
   * `quoteTaker`: the taker /build quotes are asked for when no wallet trades (simulation);
   * /build requires one.
   */
  constructor(
    private readonly http: HttpClient,
    private readonly opts: {
      api: Exclude<SwapApi, "v1">;
      quoteTaker?: string;
      /** Told every quote() answered (the price impacts backtests apply), as the v1 client does. */
      onQuote?: (q: Quote) => void;
    },
  ) {}

  /** One quote from the API live trades speak: /order without taker, or /build for quoteTaker. */
  async quote(req: QuoteRequest): Promise<Quote> {
    let quote: Quote;
    if (this.opts.api === "order") {
      const o = await this.order(req);
      const prioritizationFeeLamports = o.order.prioritizationFeeLamports ?? null;
      quote = { ...o.quote, order: { router: o.router, feeBps: o.feeBps, prioritizationFeeLamports } };
    } else {
      if (!this.opts.quoteTaker) throw new ValidationError("A /build quote needs a taker");
      quote = (await this.build(req, this.opts.quoteTaker)).quote;
    }
    this.opts.onQuote?.(quote);
    return quote;
  }

  /** GET /swap/v2/build: the Metis route as instructions for `taker`, ExactIn only. */
  async build(req: QuoteRequest, taker: string): Promise<BuildResult> {
    const body = await this.swapGet("/swap/v2/build", req, taker);
    const build = parsed(this.http.service, buildResponseSchema, body, "build answer");
    return { quote: parseQuote(this.http.service, body), build };
  }

  /** GET /swap/v2/order: every router competes; with `taker` the answer carries the transaction. */
  async order(req: QuoteRequest, taker?: string): Promise<OrderResult> {
    const body = await this.swapGet("/swap/v2/order", req, taker);
    const order = parsed(this.http.service, orderResponseSchema, body, "order answer");
    if (taker && !order.transaction)
      throw unexpectedResponse(this.http.service, "order answer without a transaction for the taker");
    return { quote: parseQuote(this.http.service, body), order, router: order.router ?? null, feeBps: order.feeBps };
  }

  /** GET /build or /order for an ExactIn request: the answer's body, unless Jupiter refused. */
  private async swapGet(
    path: "/swap/v2/build" | "/swap/v2/order",
    req: QuoteRequest,
    taker?: string,
  ): Promise<unknown> {
    checkQuoteRequest(req);
    if ((req.swapMode ?? "ExactIn") !== "ExactIn")
      throw new ValidationError(`Swap API v2 ${path.slice(8)} is ExactIn only`);
    const body = await this.http.getJson(path, {
      inputMint: req.inputMint,
      outputMint: req.outputMint,
      amount: req.amount,
      taker,
      slippageBps: req.slippageBps,
    });
    const refused = refusal(this.http.service, body);
    if (refused) throw refused;
    return body;
  }

  /**
   * POST /swap/v2/execute: Jupiter lands the signed order. Safe to repeat with the same bytes and
   * requestId while the order lives (Jupiter answers the first execution's outcome).
   */
  async execute(signedTransaction: string, requestId: string): Promise<ExecuteResponse> {
    const body = await this.http.postJson("/swap/v2/execute", { signedTransaction, requestId });
    return parsed(this.http.service, executeResponseSchema, body, "execute answer");
  }
}
