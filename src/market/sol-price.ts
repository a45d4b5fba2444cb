import { type Clock, systemClock } from "../clock.ts";
import { ServiceNotConfiguredError } from "../errors.ts";
import type { EventBus } from "../events/bus.ts";
import type { CheckResult } from "../health/registry.ts";
import type { Logger } from "../logger.ts";
import type { SolPriceSnapshot } from "../metrics/metrics.ts";
import { Big, SOL_MINT } from "../money.ts";
import type { HermesClient } from "./hermes.ts";
import { priceFromUpdate } from "./hermes.ts";
import { unexpectedResponse } from "./http-client.ts";
import { readSse } from "./sse.ts";
import type { SolPrice, SolPriceSource, TokenPrice } from "./types.ts";

// SOL/USD (SPEC "SOL price", PRODUCT.md §5). Three modes, from configuration:
// - stream: priceNetwork has a URL and a key. A long-lived Hermes SSE connection feeds the price;
//   when it drops we reconnect with exponential back-off and, while it is down, poll Hermes
//   `latest` every pollIntervalMs, falling back to solPriceFeed (Jupiter) when Hermes fails.
//   A silent connection (no data and no keep-alive for idleTimeoutMs) is treated as dropped; the
//   watchdog measures silence on the service clock, so tests move a ManualClock instead of waiting.
// - poll: only solPriceFeed: Jupiter Price v3 every pollIntervalMs (10 s).
// - off: nothing configured; nothing connects and fetchCurrent() answers 503.
// isStale: more than 60 s since the last update, or the price connection down (stream mode: the
// stream is not connected, even while polling keeps the value fresh; poll mode: the last poll
// failed). Changes are published as `price.sol` events, at most once per publishIntervalMs
// unless the staleness flips.

export type SolPriceMode = "stream" | "poll" | "off";

export interface SolPriceOptions {
  staleAfterMs: number;
  pollIntervalMs: number;
  reconnectInitialMs: number;
  reconnectMaxMs: number;
  /** No data and no keep-alive for this long (on the service clock) → reconnect. */
  idleTimeoutMs: number;
  /** How often the idle watchdog looks (real time). */
  idleCheckMs: number;
  publishIntervalMs: number;
  /** Waits between polls and reconnects; tests may shorten them with tiny intervals instead. */
  sleep: Clock["sleep"];
}

const DEFAULT_SOL_PRICE_OPTIONS: SolPriceOptions = {
  staleAfterMs: 60_000,
  pollIntervalMs: 10_000,
  reconnectInitialMs: 1_000,
  reconnectMaxMs: 30_000,
  idleTimeoutMs: 30_000,
  idleCheckMs: 1_000,
  publishIntervalMs: 1_000,
  sleep: systemClock.sleep,
};

/** What the SOL feed needs from Jupiter Price v3. */
interface SolFeedPrices {
  fetchPrices(mints: readonly string[], signal?: AbortSignal): Promise<Map<string, TokenPrice>>;
}

export interface SolPriceDeps {
  /** Set when priceNetwork is configured (URL and key). */
  hermes: HermesClient | null;
  /** Set when solPriceFeed is configured. */
  jupiter: SolFeedPrices | null;
  /** The `source` reported for values from `jupiter` (default "solPriceFeed"; the demo market: "demo"). */
  feedSource?: "solPriceFeed" | "demo";
  clock: Clock;
  logger: Logger;
  events?: EventBus | null;
}

const SOL_PRICE_NOT_CONFIGURED =
  "SOL price feed is not configured: set SOL_PRICE_FEED_URL, or PRICE_NETWORK_URL and PRICE_NETWORK_API_KEY";

export class SolPriceService implements SolPriceSource {
  readonly mode: SolPriceMode;
  readonly configured: boolean;
  private readonly opts: SolPriceOptions;
  private value: { price: string; at: number; source: SolPrice["source"] } | null = null;
  private started = false;
  private streamConnected = false;
  private lastPollFailed = false;
  /** Epoch ms the current run of failed polls began; null after a success. */
  private pollDownSince: number | null = null;
  /** Epoch ms the stream went (or started) down; null while connected. */
  private streamDownSince: number | null = null;
  private stopCtl = new AbortController();
  private streamCtl: AbortController | null = null;
  private fallbackCtl: AbortController | null = null;
  private readonly loops = new Set<Promise<void>>();
  private inflight: Promise<void> | null = null;
  private lastPublished: SolPrice | null = null;
  private lastPublishAt = Number.NEGATIVE_INFINITY;
  private lastBadEventLog = Number.NEGATIVE_INFINITY;
  private lastActivity = 0;
  /** Successful stream connections so far (tests and logs). */
  connects = 0;
  /** Keep-alive comments received (tests). */
  keepAlives = 0;

  constructor(
    private readonly deps: SolPriceDeps,
    opts: Partial<SolPriceOptions> = {},
  ) {
    this.opts = { ...DEFAULT_SOL_PRICE_OPTIONS, ...opts };
    this.mode = deps.hermes ? "stream" : deps.jupiter ? "poll" : "off";
    this.configured = this.mode !== "off";
  }

  current(): SolPrice | null {
    const v = this.value;
    if (!v) return null;
    const age = this.deps.clock.now() - v.at;
    return {
      price: v.price,
      lastUpdated: new Date(v.at).toISOString(),
      isStale: age > this.opts.staleAfterMs || this.connectionDown(),
      source: v.source,
    };
  }

  /**
   * Since when the price has been stale or not to be had (issue 34: the dashboard says since when);
   * null while it is fresh, or before the sources were ever asked. The earliest of: the connection
   * going down (stream mode) or the first failed poll of the current run (poll mode, or no value
   * yet), and the moment the last value turned stale by age.
   */
  unavailableSince(): string | null {
    const cur = this.current();
    if (cur && !cur.isStale) return null;
    const candidates: number[] = [];
    const down = this.mode === "stream" ? this.streamDownSince : this.pollDownSince;
    if (this.connectionDown() && down !== null) candidates.push(down);
    if (!this.value && this.pollDownSince !== null) candidates.push(this.pollDownSince);
    if (this.value && this.deps.clock.now() - this.value.at > this.opts.staleAfterMs)
      candidates.push(this.value.at + this.opts.staleAfterMs);
    return candidates.length > 0 ? new Date(Math.min(...candidates)).toISOString() : null;
  }

  /** True while the price connection is up (stream mode: the SSE stream; poll mode: last poll ok). */
  get connected(): boolean {
    return !this.connectionDown() && this.value !== null;
  }

  async fetchCurrent(): Promise<SolPrice> {
    const now = this.current();
    if (now) return now;
    return this.refresh();
  }

  /** Polls the sources once now (coalesced with a poll already in flight). */
  refresh(): Promise<SolPrice> {
    if (this.mode === "off") return Promise.reject(new ServiceNotConfiguredError(SOL_PRICE_NOT_CONFIGURED));
    this.inflight ??= this.pollOnce().finally(() => {
      this.inflight = null;
    });
    return this.inflight.then(() => this.current() as SolPrice);
  }

  start(): void {
    if (this.started || this.mode === "off") return;
    this.started = true;
    if (this.mode === "stream" && !this.streamConnected) this.streamDownSince ??= this.deps.clock.now();
    this.stopCtl = new AbortController();
    this.deps.logger.info("SOL price feed starting", { mode: this.mode });
    this.track(this.mode === "stream" ? this.streamLoop() : this.pollLoop());
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.stopCtl.abort();
    this.streamCtl?.abort();
    this.fallbackCtl?.abort();
    await Promise.allSettled([...this.loops]);
    this.streamConnected = false;
  }

  /** For /metrics (src/metrics/metrics.ts SolPriceSnapshot). */
  snapshot(): SolPriceSnapshot {
    const cur = this.current();
    return { priceUsd: cur ? Number(cur.price) : null, updatedAt: this.value?.at ?? null, stale: cur?.isStale ?? true };
  }

  /** For /health ("priceFeed"): a missing or stale price degrades the service. */
  health(): CheckResult {
    const cur = this.current();
    if (!cur) return { status: "degraded", message: "no SOL price received yet" };
    const ageSeconds = Math.max(0, Math.round((this.deps.clock.now() - (this.value?.at ?? 0)) / 1000));
    if (cur.isStale) return { status: "degraded", message: "SOL price is stale", source: cur.source, ageSeconds };
    return { status: "healthy", source: cur.source, ageSeconds };
  }

  // --- internals ------------------------------------------------------------------------------

  private connectionDown(): boolean {
    if (this.mode === "stream") return this.started && !this.streamConnected;
    return this.lastPollFailed;
  }

  private track(p: Promise<void>): void {
    this.loops.add(p);
    void p.finally(() => this.loops.delete(p));
  }

  private update(price: Big, source: SolPrice["source"]): void {
    if (!price.gt(0)) return;
    this.value = { price: price.toFixed(8), at: this.deps.clock.now(), source };
    this.publishMaybe();
  }

  private setConnected(up: boolean): void {
    if (this.streamConnected === up) return;
    this.streamConnected = up;
    this.streamDownSince = up ? null : (this.streamDownSince ?? this.deps.clock.now());
    if (up) this.fallbackCtl?.abort();
    this.publishMaybe();
  }

  private publishMaybe(): void {
    const events = this.deps.events;
    const snap = this.current();
    if (!events || !snap) return;
    const last = this.lastPublished;
    if (last && last.price === snap.price && last.isStale === snap.isStale && last.source === snap.source) return;
    const staleFlip = !last || last.isStale !== snap.isStale;
    const now = this.deps.clock.now();
    if (!staleFlip && now - this.lastPublishAt < this.opts.publishIntervalMs) return;
    this.lastPublished = snap;
    this.lastPublishAt = now;
    events.publish("price.sol", null, { ...snap });
  }

  /** One poll: Hermes latest (stream mode), then Jupiter. Throws the first source's error. */
  private async pollOnce(): Promise<void> {
    const errors: unknown[] = [];
    const signal = this.started ? this.stopCtl.signal : undefined;
    if (this.deps.hermes) {
      try {
        this.update(await this.deps.hermes.latest(signal), "priceNetwork");
        this.setPollFailed(false);
        return;
      } catch (err) {
        errors.push(err);
      }
    }
    if (this.deps.jupiter) {
      try {
        const prices = await this.deps.jupiter.fetchPrices([SOL_MINT], signal);
        const sol = prices.get(SOL_MINT);
        if (!sol) throw unexpectedResponse("solPriceFeed", "no price for SOL");
        this.update(new Big(sol.usd), this.deps.feedSource ?? "solPriceFeed");
        this.setPollFailed(false);
        return;
      } catch (err) {
        errors.push(err);
      }
    }
    this.setPollFailed(true);
    throw errors[0];
  }

  private setPollFailed(failed: boolean): void {
    if (failed) this.pollDownSince ??= this.deps.clock.now();
    else this.pollDownSince = null;
    if (this.lastPollFailed === failed) return;
    this.lastPollFailed = failed;
    this.publishMaybe();
  }

  private async pollLoop(): Promise<void> {
    while (this.started) {
      await this.refresh().catch((err) => {
        // Shutdown ends the market's reads first (MarketServices.stopReads): not a failure to report.
        if (!(err instanceof Error && err.name === "AbortError"))
          this.deps.logger.warn("SOL price poll failed", { error: errorText(err) });
      });
      if (!this.started) break;
      await this.opts.sleep(this.opts.pollIntervalMs, this.stopCtl.signal);
    }
  }

  /** While the stream is down: poll latest (then Jupiter) every pollIntervalMs. */
  private startFallback(): void {
    if (this.fallbackCtl || !this.started) return;
    const ctl = new AbortController();
    this.fallbackCtl = ctl;
    const run = async () => {
      try {
        while (this.started && !this.streamConnected && !ctl.signal.aborted) {
          await this.refresh().catch((err) =>
            this.deps.logger.warn("SOL price poll failed", { error: errorText(err) }),
          );
          if (!this.started || this.streamConnected) break;
          await this.opts.sleep(this.opts.pollIntervalMs, AbortSignal.any([ctl.signal, this.stopCtl.signal]));
        }
      } finally {
        if (this.fallbackCtl === ctl) this.fallbackCtl = null;
      }
    };
    this.track(run());
  }

  private async streamLoop(): Promise<void> {
    const hermes = this.deps.hermes as HermesClient;
    let failures = 0;
    while (this.started) {
      const ctl = new AbortController();
      this.streamCtl = ctl;
      let idle = false;
      try {
        const res = await hermes.openStream(ctl.signal);
        if (!res.body) throw new Error("stream response without a body");
        if (!this.started || ctl.signal.aborted) {
          await res.body.cancel().catch(() => {});
          break;
        }
        this.connects++;
        failures = 0;
        this.deps.logger.info("SOL price stream connected", { connects: this.connects });
        this.setConnected(true);
        this.lastActivity = this.deps.clock.now();
        const watchdog = setInterval(() => {
          if (this.deps.clock.now() - this.lastActivity > this.opts.idleTimeoutMs) {
            idle = true;
            ctl.abort();
          }
        }, this.opts.idleCheckMs);
        try {
          for await (const item of readSse(res.body)) {
            // Data and keep-alive comments alike prove the connection alive.
            this.lastActivity = this.deps.clock.now();
            if (item.type === "comment") this.keepAlives++;
            else this.onStreamMessage(item.message.data);
          }
        } finally {
          clearInterval(watchdog);
        }
        if (this.started) this.deps.logger.warn("SOL price stream closed by the provider, reconnecting");
      } catch (err) {
        if (!this.started) break;
        if (idle)
          this.deps.logger.warn("SOL price stream silent, reconnecting", { idleTimeoutMs: this.opts.idleTimeoutMs });
        else this.deps.logger.warn("SOL price stream failed", { error: errorText(err) });
      } finally {
        if (this.streamCtl === ctl) this.streamCtl = null;
      }
      if (!this.started) break;
      this.setConnected(false);
      this.startFallback();
      const delay = Math.min(this.opts.reconnectMaxMs, this.opts.reconnectInitialMs * 2 ** failures);
      failures = Math.min(failures + 1, 30);
      await this.opts.sleep(delay, this.stopCtl.signal);
    }
  }

  private onStreamMessage(data: string): void {
    let price: Big | null = null;
    try {
      price = priceFromUpdate(JSON.parse(data), this.deps.hermes?.feedId ?? "");
    } catch {
      price = null;
    }
    if (price) {
      this.update(price, "priceNetwork");
      return;
    }
    // A bad event is skipped, never fatal; logged at most once a minute so a broken feed cannot flood the log.
    const now = this.deps.clock.now();
    if (now - this.lastBadEventLog >= 60_000) {
      this.lastBadEventLog = now;
      this.deps.logger.warn("SOL price stream sent an event without a usable price", { bytes: data.length });
    }
  }
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));
