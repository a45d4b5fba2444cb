import { z } from "zod";
import { type HttpClient, ProviderError, unexpectedResponse } from "./http-client.ts";

// Jito block engine JSON-RPC (https://docs.jito.wtf/lowlatencytxnsend/), all on POST
// /api/v1/bundles through the shared HttpClient:
//   getTipAccounts   → ["<base58>", ...]  (the accounts a tip may be paid to; one is picked)
//   sendBundle [[base64 tx, ...], {encoding: "base64"}] → "<bundle id>"  (at most 5 transactions,
//                     all or nothing, in order; a bundle needs a tip to be considered)
//   getBundleStatuses [[bundle id, ...]] → {context: {slot}, value: [{bundle_id, transactions,
//                     slot, confirmation_status, err} | null]}
// A JSON-RPC error object becomes a ProviderError naming the block engine.

export const JITO_SERVICE = "jitoBlockEngine";
/**
 * Jito's eight mainnet tip accounts, as its block engines answer getTipAccounts
 * (https://docs.jito.wtf/lowlatencytxnsend/): the only accounts a tip goes to unless
 * JITO_TIP_ACCOUNTS replaces them (docs/decisions/live-send-guards.md).
 */
export const JITO_MAINNET_TIP_ACCOUNTS: readonly string[] = Object.freeze([
  "96gYZGLnJYVFmbjzopPSU6QiEV5fGqZNyN9nmNhvrZU5",
  "HFqU5x63VTqvQss8hp11i4wVV8bD44PvwucfZ2bU7gRe",
  "Cw8CFyM9FkoMi7K7Crf6HNQqf4uEMzpKw6QNghXLvLkY",
  "ADaUMid9yfUytqMBgopwjb2DTLSokTSzL1zt6iGPaS49",
  "DfXygSm4jCyNCybVYYK6DwvWqjKee8pbDmJGcLWNDXjh",
  "ADuUkR4vqLUMWXxW9gh6D6L8pMSawimctcNZ5pGwDcEt",
  "DttWaMuVvTiduZRnguLF7jNxTgiMBZ1hyAumKUiL2KRL",
  "3AVi9Tg9Uo68tJfuvoKvqKNWKkC5wPdSSdeBnizKZ6jT",
]);
const JITO_PATH = "/api/v1/bundles";
/** Jito's limit on transactions per bundle. */
const MAX_BUNDLE_TRANSACTIONS = 5;

const rpcAnswer = z.union([
  z.object({ result: z.unknown() }).loose(),
  z.object({ error: z.object({ code: z.number(), message: z.string() }).loose() }).loose(),
]);

const tipAccountsSchema = z.array(z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/)).min(1);
const bundleIdSchema = z.string().min(1);
const bundleStatusSchema = z
  .object({
    bundle_id: z.string(),
    transactions: z.array(z.string()),
    slot: z.number().int(),
    confirmation_status: z.enum(["processed", "confirmed", "finalized"]),
    err: z.unknown(),
  })
  .loose();
const statusesSchema = z
  .object({ context: z.object({ slot: z.number().int() }).loose(), value: z.array(bundleStatusSchema.nullable()) })
  .loose();

export type BundleStatus = z.output<typeof bundleStatusSchema>;

/** Jito reports success as `{Ok: null}`; anything else is the bundle's error. */
export const bundleSucceeded = (s: BundleStatus): boolean =>
  s.err === null || (typeof s.err === "object" && s.err !== null && "Ok" in s.err);

export class JitoClient {
  private tipAccountsCache: string[] | null = null;
  private nextId = 1;

  constructor(private readonly http: HttpClient) {}

  private async call<S extends z.ZodType>(method: string, params: unknown[], schema: S): Promise<z.output<S>> {
    const body = await this.http.postJson(JITO_PATH, { jsonrpc: "2.0", id: this.nextId++, method, params });
    const answer = rpcAnswer.safeParse(body);
    if (!answer.success) throw unexpectedResponse(this.http.service, `${method} answer is not JSON-RPC`);
    if ("error" in answer.data && !("result" in answer.data)) {
      const e = answer.data.error as { code: number; message: string };
      throw new ProviderError(
        this.http.service,
        `${this.http.service}: ${method} failed: ${e.message}`,
        "unexpected",
        undefined,
        String(e.code),
      );
    }
    const r = schema.safeParse((answer.data as { result: unknown }).result);
    if (!r.success) throw unexpectedResponse(this.http.service, `${method} result: ${r.error.issues[0]?.message}`);
    return r.data;
  }

  /** The block engine's tip accounts (read once; they do not change while the service runs). */
  async tipAccounts(): Promise<string[]> {
    this.tipAccountsCache ??= await this.call("getTipAccounts", [], tipAccountsSchema);
    return this.tipAccountsCache;
  }

  /** One of the tip accounts, picked by `pick` (0 ≤ pick < 1) to spread write locks. */
  async tipAccount(pick: number): Promise<string> {
    const accounts = await this.tipAccounts();
    return accounts[Math.min(accounts.length - 1, Math.floor(pick * accounts.length))]!;
  }

  async sendBundle(base64Transactions: readonly string[]): Promise<string> {
    if (base64Transactions.length === 0 || base64Transactions.length > MAX_BUNDLE_TRANSACTIONS)
      throw new RangeError(`a bundle holds 1 to ${MAX_BUNDLE_TRANSACTIONS} transactions`);
    return this.call("sendBundle", [[...base64Transactions], { encoding: "base64" }], bundleIdSchema);
  }

  /** Statuses in the order asked; null: the block engine has not seen the bundle land. */
  async bundleStatuses(bundleIds: readonly string[]): Promise<{ slot: number; statuses: Array<BundleStatus | null> }> {
    const r = await this.call("getBundleStatuses", [[...bundleIds]], statusesSchema);
    return { slot: r.context.slot, statuses: bundleIds.map((id) => r.value.find((s) => s?.bundle_id === id) ?? null) };
  }
}
