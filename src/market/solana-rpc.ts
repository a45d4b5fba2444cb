import { ExternalServiceError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { FetchLike } from "./http-client.ts";
import { instructionCalls, type LandedTransaction, type TokenBalanceEntry } from "./landed-transaction.ts";

// Solana JSON-RPC 2.0 over plain HTTP POST (PRODUCT.md §5 "Solana RPC"): no WebSocket, so
// confirmation is polling getSignatureStatuses (STYLE.md trap: web3.js confirmTransaction needs
// the RPC's WebSocket, and its Connection retries 429s by itself and prints to stderr). One
// request per call, a timeout per request, no automatic retries: the live executor's confirmation
// loop and the reconciler poll again on their own schedule, and a sendTransaction whose answer
// was lost is resolved by signature, never blindly repeated by this layer.
//
// Failures are ExternalServiceError("solanaRpc", ...) (502 on request paths). Messages name the
// data source, never the URL: RPC URLs often carry an API key in their query string.

const SOLANA_RPC_SERVICE = "solanaRpc";

/** The two SPL token programs: classic Token and Token-2022. Balances are read from both. */
export const TOKEN_PROGRAM_ID = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
export const TOKEN_2022_PROGRAM_ID = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
export const SYSTEM_PROGRAM_ID = "11111111111111111111111111111111";

export type Commitment = "processed" | "confirmed" | "finalized";
export type RpcFailure = "status" | "timeout" | "network" | "malformed" | "rpc";

/** An RPC call failed. `rpcCode` is the JSON-RPC error code when the node answered with one. */
export class SolanaRpcError extends ExternalServiceError {
  constructor(
    message: string,
    readonly failure: RpcFailure,
    statusCode?: number,
    readonly rpcCode?: number,
  ) {
    super(SOLANA_RPC_SERVICE, message, statusCode);
  }
}

/**
 * getTransaction of a transaction whose version this client does not read: the node's -32015
 * (a version 1 transaction, SIMD-0296, asked for with maxSupportedTransactionVersion 0). It landed;
 * asking again cannot help, so a reader passes it over and says so.
 */
export class TransactionVersionUnsupported extends SolanaRpcError {
  constructor(
    message: string,
    /** The version the node named ("Transaction version (1) …"), null when it named none. */
    readonly version: number | null,
  ) {
    super(message, "rpc", undefined, UNSUPPORTED_TRANSACTION_VERSION);
  }
}

/** JSON-RPC error of getTransaction for a transaction newer than maxSupportedTransactionVersion. */
const UNSUPPORTED_TRANSACTION_VERSION = -32015;

export interface SignatureStatus {
  slot: number;
  confirmations: number | null;
  /** The transaction's error (it landed and failed: fees were charged), or null. */
  err: unknown;
  confirmationStatus: Commitment | null;
}

/** One entry of getSignaturesForAddress; `blockTime` in Unix seconds, null when the node lacks it. */
export interface SignatureInfo {
  signature: string;
  slot: number;
  err: unknown;
  /** The memo the transaction carries (the node lists it), or null. */
  memo?: string | null;
  blockTime: number | null;
}

export interface TokenHolding {
  amount: bigint;
  decimals: number;
}

/** A wallet's balances on chain: lamports and, per mint, the sum over its token accounts. */
export interface ChainBalances {
  lamports: bigint;
  tokens: Map<string, TokenHolding>;
}

export interface SimulationResult {
  err: unknown;
  logs: string[];
}

export interface SolanaRpcOptions {
  url: string;
  timeoutMs: number;
  fetch?: FetchLike;
  logger?: Logger;
  /** Counts every request against the provider's budget (src/market/rpc-budget.ts). */
  budget?: { record(): void };
}

const MAX_TEXT = 200;
const clip = (s: string) => (s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}…` : s).replace(/\s+/g, " ");

export class SolanaRpcClient {
  private readonly url: string;
  private readonly timeoutMs: number;
  private readonly fetchFn: FetchLike;
  private readonly logger: Logger | undefined;
  private readonly budget: { record(): void } | undefined;
  private nextId = 1;

  constructor(opts: SolanaRpcOptions) {
    this.url = opts.url;
    this.timeoutMs = opts.timeoutMs;
    this.fetchFn = opts.fetch ?? ((input, init) => fetch(input, init));
    this.logger = opts.logger;
    this.budget = opts.budget;
  }

  /** One JSON-RPC call; the `result` member, or a SolanaRpcError. */
  async call<T = unknown>(method: string, params: unknown[]): Promise<T> {
    const id = this.nextId++;
    this.budget?.record();
    const ctl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctl.abort();
    }, this.timeoutMs);
    let status: number;
    let text: string;
    try {
      const res = await this.fetchFn(this.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
        signal: ctl.signal,
      });
      status = res.status;
      text = await res.text();
    } catch (err) {
      if (timedOut)
        throw new SolanaRpcError(
          `${SOLANA_RPC_SERVICE} did not answer ${method} within ${this.timeoutMs} ms`,
          "timeout",
        );
      this.logger?.debug("solana rpc unreachable", { method, error: err instanceof Error ? err.message : String(err) });
      throw new SolanaRpcError(`${SOLANA_RPC_SERVICE} is unreachable (${method})`, "network");
    } finally {
      clearTimeout(timer);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      if (status < 200 || status >= 300)
        throw new SolanaRpcError(`${SOLANA_RPC_SERVICE} returned HTTP ${status} to ${method}`, "status", status);
      throw new SolanaRpcError(`${SOLANA_RPC_SERVICE} returned malformed JSON to ${method}`, "malformed", status);
    }
    const b = body as { error?: { code?: unknown; message?: unknown }; result?: unknown } | null;
    if (b && typeof b === "object" && b.error && typeof b.error === "object") {
      const code = typeof b.error.code === "number" ? b.error.code : undefined;
      const msg = typeof b.error.message === "string" ? clip(b.error.message) : "error";
      throw new SolanaRpcError(
        `${SOLANA_RPC_SERVICE} error on ${method}${code !== undefined ? ` (${code})` : ""}: ${msg}`,
        "rpc",
        status >= 200 && status < 300 ? undefined : status,
        code,
      );
    }
    if (status < 200 || status >= 300)
      throw new SolanaRpcError(`${SOLANA_RPC_SERVICE} returned HTTP ${status} to ${method}`, "status", status);
    if (!b || typeof b !== "object" || !("result" in b))
      throw new SolanaRpcError(
        `${SOLANA_RPC_SERVICE} returned an unexpected response to ${method}`,
        "malformed",
        status,
      );
    return b.result as T;
  }

  async getBalance(address: string, commitment: Commitment = "confirmed", minContextSlot?: number): Promise<bigint> {
    const r = await this.call<{ value?: unknown }>("getBalance", [address, { commitment, ...minSlot(minContextSlot) }]);
    return toBigInt(r?.value, "getBalance");
  }

  async getBlockHeight(commitment: Commitment = "confirmed"): Promise<number> {
    const r = await this.call<unknown>("getBlockHeight", [{ commitment }]);
    if (typeof r !== "number" || !Number.isFinite(r)) throw malformed("getBlockHeight");
    return r;
  }

  /**
   * Token balances of an owner per mint, from both token programs (jsonParsed). Several
   * accounts of one mint add up.
   */
  async getTokenBalances(
    owner: string,
    commitment: Commitment = "confirmed",
    minContextSlot?: number,
  ): Promise<Map<string, TokenHolding>> {
    const out = new Map<string, TokenHolding>();
    const lists = await Promise.all(
      [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID].map((programId) =>
        this.call<{ value?: unknown }>("getTokenAccountsByOwner", [
          owner,
          { programId },
          { encoding: "jsonParsed", commitment, ...minSlot(minContextSlot) },
        ]),
      ),
    );
    for (const list of lists) {
      if (!Array.isArray(list?.value)) throw malformed("getTokenAccountsByOwner");
      for (const entry of list.value as unknown[]) {
        const info = (entry as { account?: { data?: { parsed?: { info?: Record<string, unknown> } } } })?.account?.data
          ?.parsed?.info;
        const mint = typeof info?.mint === "string" ? info.mint : null;
        const ta = info?.tokenAmount as { amount?: unknown; decimals?: unknown } | undefined;
        if (!mint || !ta || typeof ta.decimals !== "number") throw malformed("getTokenAccountsByOwner");
        const amount = toBigInt(ta.amount, "getTokenAccountsByOwner");
        const prev = out.get(mint);
        out.set(mint, { amount: (prev?.amount ?? 0n) + amount, decimals: ta.decimals });
      }
    }
    return out;
  }

  /**
   * SOL and every token of a wallet. With `minContextSlot` (the slot a swap landed in) a node that
   * has not seen that slot yet refuses (-32016) instead of answering the balances before the swap.
   */
  async getBalances(owner: string, minContextSlot?: number): Promise<ChainBalances> {
    const [lamports, tokens] = await Promise.all([
      this.getBalance(owner, "confirmed", minContextSlot),
      this.getTokenBalances(owner, "confirmed", minContextSlot),
    ]);
    return { lamports, tokens };
  }

  /** Simulates a signed transaction (base64); `err` null means it would succeed now. */
  async simulateTransaction(base64Tx: string): Promise<SimulationResult> {
    const r = await this.call<{ value?: { err?: unknown; logs?: unknown } }>("simulateTransaction", [
      base64Tx,
      { encoding: "base64", commitment: "confirmed", sigVerify: true, replaceRecentBlockhash: false },
    ]);
    if (!r?.value || typeof r.value !== "object") throw malformed("simulateTransaction");
    return { err: r.value.err ?? null, logs: Array.isArray(r.value.logs) ? (r.value.logs as string[]) : [] };
  }

  /** Submits a signed transaction (base64); answers its signature. */
  async sendTransaction(base64Tx: string, opts: { skipPreflight: boolean }): Promise<string> {
    const r = await this.call<unknown>("sendTransaction", [
      base64Tx,
      { encoding: "base64", skipPreflight: opts.skipPreflight, preflightCommitment: "confirmed", maxRetries: 5 },
    ]);
    if (typeof r !== "string" || r === "") throw malformed("sendTransaction");
    return r;
  }

  /** Statuses of up to 256 signatures, in order; null for a signature the node does not know. */
  async getSignatureStatuses(
    signatures: string[],
    opts: { searchTransactionHistory: boolean },
  ): Promise<Array<SignatureStatus | null>> {
    const r = await this.call<{ value?: unknown }>("getSignatureStatuses", [
      signatures,
      { searchTransactionHistory: opts.searchTransactionHistory },
    ]);
    if (!Array.isArray(r?.value) || r.value.length !== signatures.length) throw malformed("getSignatureStatuses");
    return (r.value as unknown[]).map((s) => {
      if (s === null || s === undefined) return null;
      const o = s as Record<string, unknown>;
      const cs = o.confirmationStatus;
      return {
        slot: typeof o.slot === "number" ? o.slot : 0,
        confirmations: typeof o.confirmations === "number" ? o.confirmations : null,
        err: o.err ?? null,
        confirmationStatus: cs === "processed" || cs === "confirmed" || cs === "finalized" ? cs : null,
      };
    });
  }

  /**
   * A landed transaction's meta (null when the node does not have it, yet). Versions 0 and legacy;
   * a newer one throws TransactionVersionUnsupported.
   */
  async getTransaction(
    signature: string,
    commitment: "confirmed" | "finalized" = "confirmed",
  ): Promise<LandedTransaction | null> {
    // biome-ignore lint/suspicious/noExplicitAny: RPC JSON read defensively, every field checked below
    let r: Record<string, any> | null;
    try {
      r = await this.call("getTransaction", [
        signature,
        { encoding: "json", maxSupportedTransactionVersion: 0, commitment },
      ]);
    } catch (err) {
      if (err instanceof SolanaRpcError && err.rpcCode === UNSUPPORTED_TRANSACTION_VERSION) {
        const version = /version \((\d+)\)/i.exec(err.message)?.[1];
        throw new TransactionVersionUnsupported(err.message, version === undefined ? null : Number(version));
      }
      throw err;
    }
    if (r === null) return null;
    const meta = r?.meta;
    const keys = r?.transaction?.message?.accountKeys;
    if (!meta || !Array.isArray(keys)) throw malformed("getTransaction");
    const loaded = meta.loadedAddresses ?? {};
    const accountKeys = [
      ...keys,
      ...(Array.isArray(loaded.writable) ? loaded.writable : []),
      ...(Array.isArray(loaded.readonly) ? loaded.readonly : []),
    ].map(String);
    const lamports = (v: unknown) => (Array.isArray(v) ? v.map((x) => toBigInt(x, "getTransaction")) : []);
    const tokenEntries = (v: unknown): TokenBalanceEntry[] =>
      Array.isArray(v)
        ? // biome-ignore lint/suspicious/noExplicitAny: RPC JSON read defensively, every field checked
          v.map((e: any) => ({
            accountIndex: Number.isInteger(e?.accountIndex) ? e.accountIndex : -1,
            mint: String(e?.mint ?? ""),
            owner: typeof e?.owner === "string" ? e.owner : null,
            amount: toBigInt(e?.uiTokenAmount?.amount, "getTransaction"),
            decimals: Number(e?.uiTokenAmount?.decimals ?? 0),
          }))
        : [];
    const signerCount = Number(r.transaction.message.header?.numRequiredSignatures ?? 0);
    return {
      slot: typeof r.slot === "number" ? r.slot : 0,
      blockTime: typeof r.blockTime === "number" ? r.blockTime : null,
      signers: keys.slice(0, Number.isInteger(signerCount) ? signerCount : 0).map(String),
      instructions: instructionCalls(r.transaction.message.instructions, meta.innerInstructions, accountKeys),
      err: meta.err ?? null,
      feeLamports: toBigInt(meta.fee ?? 0, "getTransaction"),
      accountKeys,
      preBalances: lamports(meta.preBalances),
      postBalances: lamports(meta.postBalances),
      preTokenBalances: tokenEntries(meta.preTokenBalances),
      postTokenBalances: tokenEntries(meta.postTokenBalances),
    };
  }

  /** Signatures touching `address`, newest first, after `until` and before `before` (exclusive); `limit` ≤ 1000. */
  async getSignaturesForAddress(
    address: string,
    opts: { until?: string; before?: string; limit: number },
    commitment: "confirmed" | "finalized" = "confirmed",
  ): Promise<SignatureInfo[]> {
    const r = await this.call<unknown>("getSignaturesForAddress", [
      address,
      {
        commitment,
        limit: opts.limit,
        ...(opts.until ? { until: opts.until } : {}),
        ...(opts.before ? { before: opts.before } : {}),
      },
    ]);
    if (!Array.isArray(r) || r.some((e) => typeof e?.signature !== "string"))
      throw malformed("getSignaturesForAddress");
    return (r as Array<Record<string, unknown>>).map((o) => ({
      signature: o.signature as string,
      slot: typeof o.slot === "number" ? o.slot : 0,
      err: o.err ?? null,
      memo: typeof o.memo === "string" ? o.memo : null,
      blockTime: typeof o.blockTime === "number" ? o.blockTime : null,
    }));
  }
}

/** A read's minContextSlot option: the node must have seen `slot` (none for an unknown slot). */
const minSlot = (slot: number | undefined) => (slot !== undefined && slot > 0 ? { minContextSlot: slot } : {});

function toBigInt(v: unknown, method: string): bigint {
  if (typeof v === "number" && Number.isInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === "string" && /^\d+$/.test(v)) return BigInt(v);
  if (typeof v === "bigint") return v;
  throw malformed(method);
}

const malformed = (method: string) =>
  new SolanaRpcError(`${SOLANA_RPC_SERVICE} returned an unexpected response to ${method}`, "malformed", 200);
