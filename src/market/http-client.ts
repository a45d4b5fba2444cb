import { type Clock, systemClock } from "../clock.ts";
import { ExternalServiceError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { Pacer } from "./rate-limiter.ts";
import type { Reachability } from "./reachability.ts";

// The one HTTP client every market adapter uses (PRODUCT.md §5): a timeout per attempt, at most
// two retries on 429/5xx (and on a refused or reset connection) honouring Retry-After or
// x-ratelimit-reset, client-side pacing through a shared RateLimiter, and failures as
// ProviderError (an ExternalServiceError: 502 EXTERNAL_SERVICE_ERROR with details {service,
// statusCode}) whose message names the data source. Adapters only build paths and parse bodies.

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

type QueryValue = string | number | boolean | undefined | null | readonly string[];
export type Query = Record<string, QueryValue>;

export interface RetryPolicy {
  /** Retries after the first attempt (PRODUCT.md §5: at most two). */
  maxRetries: number;
  /** Back-off when the provider gives no hint: base × 2^attempt. */
  baseDelayMs: number;
  /**
   * Longest wait we accept before a retry. A provider asking for more (Hermes bans for 60 s) fails
   * the call at once instead of holding a request open; the limiter still honours the wait.
   */
  maxDelayMs: number;
}

const DEFAULT_RETRY: RetryPolicy = { maxRetries: 2, baseDelayMs: 250, maxDelayMs: 5_000 };

export type ProviderFailure = "status" | "timeout" | "network" | "malformed" | "unexpected";

/** A provider call failed. `service` is the data-source name of PRODUCT.md §5 (never a URL). */
export class ProviderError extends ExternalServiceError {
  constructor(
    service: string,
    message: string,
    readonly failure: ProviderFailure,
    statusCode?: number,
    /** The provider's own machine code when it sent one (Jupiter `errorCode`). */
    readonly providerCode?: string,
  ) {
    super(service, message, statusCode);
  }
}

export interface HttpClientOptions {
  /** Data-source name used in errors and logs: priceNetwork, solPriceFeed, swapAggregator... */
  service: string;
  /** Base URL without trailing slash (config.ts strips it). */
  baseUrl: string;
  /** Sent on every request (API key headers). Never logged. */
  headers?: Record<string, string>;
  /** Per attempt, covering the response body too (HTTP_TIMEOUT_MS). */
  timeoutMs: number;
  limiter?: Pacer | null;
  timer?: Clock;
  retry?: Partial<RetryPolicy>;
  fetch?: FetchLike;
  logger?: Logger;
  /** Hears whether each call reached the provider (data-source status reports reachability per source). */
  reachability?: Reachability;
  /**
   * Aborts every request of this client, waiting or in flight: the market's reads (prices, market
   * data, probes) end at once on shutdown, so a provider that hangs cannot hold the stop (issue 44
   * item 6). Quotes and swaps take no such signal: a trade in flight is finished.
   */
  abortOn?: AbortSignal;
}

const MAX_PROVIDER_TEXT = 200;

export class HttpClient {
  readonly service: string;
  readonly baseUrl: string;
  readonly timeoutMs: number;
  private readonly headers: Record<string, string>;
  private readonly limiter: Pacer | null;
  private readonly timer: Clock;
  private readonly retry: RetryPolicy;
  private readonly fetchFn: FetchLike;
  private readonly logger: Logger | undefined;
  private readonly reachability: Reachability | undefined;
  private readonly abortOn: AbortSignal | undefined;

  constructor(opts: HttpClientOptions) {
    this.service = opts.service;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.timeoutMs = opts.timeoutMs;
    this.headers = { ...opts.headers };
    this.limiter = opts.limiter ?? null;
    this.timer = opts.timer ?? systemClock;
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.fetchFn = opts.fetch ?? ((input, init) => fetch(input, init));
    this.logger = opts.logger;
    this.reachability = opts.reachability;
    this.abortOn = opts.abortOn;
  }

  /** GET a JSON document. */
  getJson(path: string, query?: Query, signal?: AbortSignal): Promise<unknown> {
    return this.requestJson("GET", path, { query, signal });
  }

  /** POST a JSON body, read a JSON document. */
  postJson(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    return this.requestJson("POST", path, { body, signal });
  }

  /**
   * Opens a long-lived response (Server-Sent Events). One attempt, paced by the limiter; the
   * timeout covers only the response headers. A non-2xx status is a ProviderError. The caller
   * owns the body and aborts `signal` to close it.
   */
  openStream(path: string, query: Query | undefined, signal: AbortSignal): Promise<Response> {
    return this.observed(this.connectStream(path, query, signal), signal);
  }

  private async connectStream(path: string, query: Query | undefined, signal: AbortSignal): Promise<Response> {
    await this.limiter?.acquire(signal);
    const url = this.url(path, query);
    const ctl = new AbortController();
    const onAbort = () => ctl.abort();
    if (signal.aborted)
      ctl.abort(); // stopped while waiting for the limiter: never connect
    else signal.addEventListener("abort", onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctl.abort();
    }, this.timeoutMs);
    let res: Response;
    try {
      res = await this.fetchFn(url, {
        method: "GET",
        headers: { accept: "text/event-stream", ...this.headers },
        signal: ctl.signal,
      });
    } catch (err) {
      signal.removeEventListener("abort", onAbort);
      if (timedOut) throw this.timeoutError();
      throw this.networkError(err);
    } finally {
      clearTimeout(timer);
    }
    if (!res.ok) {
      const text = await res.text().catch(() => "");
      signal.removeEventListener("abort", onAbort);
      throw this.statusError(res.status, text);
    }
    return res;
  }

  private requestJson(
    method: "GET" | "POST",
    path: string,
    o: { query?: Query; body?: unknown; signal?: AbortSignal },
  ): Promise<unknown> {
    const signal = !this.abortOn ? o.signal : o.signal ? AbortSignal.any([o.signal, this.abortOn]) : this.abortOn;
    return this.observed(this.requestWithRetries(method, path, { ...o, signal }), signal);
  }

  /** Tells the reachability tracker whether the provider answered at all. */
  private async observed<T>(call: Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      const result = await call;
      this.reachability?.success(this.service);
      return result;
    } catch (err) {
      if (this.reachability && !signal?.aborted) {
        const unreachable =
          err instanceof ProviderError &&
          (err.failure === "network" || err.failure === "timeout" || (err.statusCode ?? 0) >= 500);
        if (unreachable) this.reachability.failure(this.service, err.message);
        else this.reachability.success(this.service);
      }
      throw err;
    }
  }

  private async requestWithRetries(
    method: "GET" | "POST",
    path: string,
    o: { query?: Query; body?: unknown; signal?: AbortSignal },
  ): Promise<unknown> {
    const url = this.url(path, o.query);
    const headers: Record<string, string> = { accept: "application/json", ...this.headers };
    let payload: string | undefined;
    if (o.body !== undefined) {
      headers["content-type"] = "application/json";
      payload = JSON.stringify(o.body);
    }
    for (let attempt = 0; ; attempt++) {
      await this.limiter?.acquire(o.signal);
      const outcome = await this.attempt(url, method, headers, payload, o.signal);
      if (outcome.kind === "ok") return this.parse(outcome.status, outcome.text);
      const canRetry = attempt < this.retry.maxRetries;
      if (outcome.kind === "network") {
        if (!canRetry) throw this.networkError(outcome.error);
        const delay = this.backoff(attempt);
        this.logger?.debug("provider unreachable, retrying", {
          service: this.service,
          attempt: attempt + 1,
          delayMs: delay,
        });
        await this.timer.sleep(delay, o.signal);
        continue;
      }
      if (outcome.kind === "timeout") throw this.timeoutError();
      const { status, text, headers: resHeaders } = outcome;
      if (status === 429 || status >= 500) {
        const hinted = this.hintedDelay(resHeaders);
        if (hinted !== null && status === 429) this.limiter?.holdUntil(this.timer.now() + hinted);
        const delay = hinted ?? this.backoff(attempt);
        if (canRetry && delay <= this.retry.maxDelayMs) {
          this.logger?.debug("provider refused, retrying", {
            service: this.service,
            status,
            attempt: attempt + 1,
            delayMs: delay,
          });
          await this.timer.sleep(delay, o.signal);
          continue;
        }
      }
      throw this.statusError(status, text);
    }
  }

  private async attempt(
    url: string,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<
    | { kind: "ok"; status: number; text: string }
    | { kind: "status"; status: number; text: string; headers: Headers }
    | { kind: "timeout" }
    | { kind: "network"; error: unknown }
  > {
    const ctl = new AbortController();
    const onAbort = () => ctl.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctl.abort();
    }, this.timeoutMs);
    try {
      const res = await this.fetchFn(url, { method, headers, body, signal: ctl.signal });
      // The body is read under the same timeout: a provider that stalls mid-body is a timeout.
      const text = await res.text();
      if (res.ok) return { kind: "ok", status: res.status, text };
      return { kind: "status", status: res.status, text, headers: res.headers };
    } catch (error) {
      if (timedOut) return { kind: "timeout" };
      if (signal?.aborted) throw error;
      return { kind: "network", error };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  private parse(status: number, text: string): unknown {
    try {
      return JSON.parse(text);
    } catch {
      throw new ProviderError(this.service, `${this.service} returned malformed JSON`, "malformed", status);
    }
  }

  /** Retry-After (seconds or HTTP date) or x-ratelimit-reset (seconds, or an epoch in s/ms). */
  private hintedDelay(h: Headers): number | null {
    const now = this.timer.now();
    const retryAfter = h.get("retry-after")?.trim();
    if (retryAfter) {
      if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.ceil(Number(retryAfter) * 1000);
      const at = Date.parse(retryAfter);
      if (!Number.isNaN(at)) return Math.max(0, at - now);
    }
    const reset = h.get("x-ratelimit-reset")?.trim();
    if (reset && /^\d+(\.\d+)?$/.test(reset)) {
      const n = Number(reset);
      if (n > 1e12) return Math.max(0, Math.ceil(n - now)); // epoch ms
      if (n > 1e9) return Math.max(0, Math.ceil(n * 1000 - now)); // epoch seconds
      return Math.ceil(n * 1000); // seconds from now
    }
    return null;
  }

  private backoff(attempt: number): number {
    return Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** attempt);
  }

  private url(path: string, query?: Query): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v === undefined || v === null) continue;
      if (Array.isArray(v)) for (const item of v) params.append(k, item);
      else params.append(k, String(v));
    }
    const qs = params.toString();
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ""}`;
  }

  private statusError(status: number, text: string): ProviderError {
    const { message, code } = providerText(text);
    const suffix = message ? `: ${message}` : "";
    return new ProviderError(this.service, `${this.service} returned HTTP ${status}${suffix}`, "status", status, code);
  }

  private timeoutError(): ProviderError {
    return new ProviderError(this.service, `${this.service} did not answer within ${this.timeoutMs} ms`, "timeout");
  }

  private networkError(err: unknown): ProviderError {
    this.logger?.debug("provider unreachable", {
      service: this.service,
      error: err instanceof Error ? err.message : String(err),
    });
    return new ProviderError(this.service, `${this.service} is unreachable`, "network");
  }
}

/** The provider's own error text: Jupiter {error, errorCode}, Birdeye {message}, or plain text. */
function providerText(text: string): { message: string; code?: string } {
  const trimmed = text.trim();
  if (!trimmed) return { message: "" };
  try {
    const body = JSON.parse(trimmed) as Record<string, unknown> | null;
    if (body && typeof body === "object") {
      const msg = [body.error, body.message, body.detail].find((v) => typeof v === "string") as string | undefined;
      const code = [body.errorCode, body.code].find((v) => typeof v === "string") as string | undefined;
      return { message: clip(msg ?? ""), ...(code ? { code } : {}) };
    }
  } catch {
    // not JSON: plain text (Hermes) or an HTML error page from a proxy
  }
  if (trimmed.startsWith("<")) return { message: "" };
  return { message: clip(trimmed) };
}

const clip = (s: string) =>
  (s.length > MAX_PROVIDER_TEXT ? `${s.slice(0, MAX_PROVIDER_TEXT)}…` : s).replace(/\s+/g, " ");

/** Unexpected shape of an otherwise valid JSON answer. */
export function unexpectedResponse(service: string, what: string): ProviderError {
  return new ProviderError(service, `${service} returned an unexpected response: ${what}`, "unexpected", 200);
}
