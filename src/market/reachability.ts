import { type Clock, isoNow } from "../clock.ts";
import type { CheckResult } from "../health/registry.ts";
import type { DataSourceName } from "./types.ts";

// Whether each outside source answers (SPEC "Data-source status"). Every call through the shared HTTP client
// is an observation (an answer, even a 4xx, is "reachable"; a refused connection, a timeout or a
// 5xx after the retries is not), and a background prober asks a source only when nothing was
// observed for a minute, so the request path never waits on a probe.

export interface SourceReachability {
  /** null until the source was tried once. */
  reachable: boolean | null;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  /** The last failure as the client reported it (names the source, never a URL or a key). */
  lastError: string | null;
}

interface Observation {
  successAt: number | null;
  failureAt: number | null;
  error: string | null;
  reachable: boolean;
}

export class Reachability {
  private readonly sources = new Map<string, Observation>();

  constructor(private readonly clock: Pick<Clock, "now">) {}

  success(service: string): void {
    const o = this.entry(service);
    o.successAt = this.clock.now();
    o.reachable = true;
  }

  failure(service: string, error: string): void {
    const o = this.entry(service);
    o.failureAt = this.clock.now();
    o.error = error;
    o.reachable = false;
  }

  reachable(service: string): boolean | null {
    return this.sources.get(service)?.reachable ?? null;
  }

  /** Epoch ms of the last observation of either kind; null when never tried. */
  lastObservedAt(service: string): number | null {
    const o = this.sources.get(service);
    if (!o) return null;
    return Math.max(o.successAt ?? 0, o.failureAt ?? 0);
  }

  report(service: string): SourceReachability {
    const o = this.sources.get(service);
    const iso = (ms: number | null) => (ms === null ? null : isoNow({ now: () => ms }));
    return {
      reachable: o?.reachable ?? null,
      lastSuccessAt: iso(o?.successAt ?? null),
      lastFailureAt: iso(o?.failureAt ?? null),
      lastError: o?.error ?? null,
    };
  }

  /** A /health check: degraded while the source is known to be unreachable. */
  healthCheck(service: string): () => CheckResult {
    return () => {
      const r = this.report(service);
      if (r.reachable === false) return { status: "degraded", message: `${service} is unreachable`, ...r };
      return { status: "healthy", ...r };
    };
  }

  private entry(service: string): Observation {
    let o = this.sources.get(service);
    if (!o) {
      o = { successAt: null, failureAt: null, error: null, reachable: false };
      this.sources.set(service, o);
    }
    return o;
  }
}

export type ReachabilityObserver = Pick<Reachability, "success" | "failure">;

/**
 * A JSON-RPC answer as an observation (the Solana node): an error answer is still an answer;
 * only no answer (network, timeout, 5xx) makes the node unreachable.
 */
export async function observeRpc<T>(answer: Promise<T>, service: string, r: ReachabilityObserver): Promise<T> {
  try {
    const result = await answer;
    r.success(service);
    return result;
  } catch (err) {
    const e = err as { failure?: string; statusCode?: number; message?: string };
    const down = e.failure === "network" || e.failure === "timeout" || (e.statusCode ?? 0) >= 500;
    if (down) r.failure(service, String(e.message));
    else r.success(service);
    throw err;
  }
}

export type Probes = Partial<Record<DataSourceName, () => Promise<unknown>>>;

const PROBE_INTERVAL_MS = 60_000;

/** Asks each source that was not heard from for a minute one cheap question. */
export class ReachabilityProber {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running = false;

  constructor(
    private readonly reachability: Reachability,
    private readonly probes: Probes,
    private readonly clock: Pick<Clock, "now">,
    private readonly intervalMs = PROBE_INTERVAL_MS,
  ) {}

  /** A source built after the market (the Solana node of live trading). */
  add(service: DataSourceName, probe: () => Promise<unknown>): void {
    this.probes[service] = probe;
  }

  /** One round; overlapping rounds are skipped. Failures are recorded by the HTTP client. */
  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const now = this.clock.now();
      const due = Object.entries(this.probes).filter(([service]) => {
        const last = this.reachability.lastObservedAt(service);
        return last === null || now - last >= this.intervalMs;
      });
      await Promise.all(due.map(([, probe]) => probe?.().catch(() => undefined)));
    } finally {
      this.running = false;
    }
  }

  start(): void {
    if (this.timer) return;
    void this.tick();
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
