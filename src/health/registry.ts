// The health of the service's dependencies (SPEC "Price, data-source, health endpoints", PRODUCT.md
// §6). Each dependency registers a named check; GET /health runs them all. The core checks
// (database, cache, queue) are registered in services.ts; the engine replaces "queue" with its
// real queue depth and worker liveness, and the SOL price stream registers "priceFeed".

type ComponentStatus = "healthy" | "degraded" | "unhealthy";

/** What a check returns. Extra fields (depth, workers, entries...) are reported as they are. */
export interface CheckResult {
  status: ComponentStatus;
  /** Milliseconds; measured around the check when the check does not report its own. */
  latency?: number;
  /** Why the component is not healthy. */
  message?: string;
  [detail: string]: unknown;
}

export type HealthCheck = () => CheckResult | Promise<CheckResult>;

export interface CheckOptions {
  /**
   * A critical component being unhealthy makes the whole service unhealthy (HTTP 503); any other
   * component only degrades it (HTTP 200). SPEC state table: only the database is critical.
   */
  critical?: boolean;
}

export interface ComponentReport {
  status: ComponentStatus;
  latency?: number;
  message?: string;
  [detail: string]: unknown;
}

export interface HealthReport {
  status: ComponentStatus;
  services: Record<string, ComponentReport>;
}

/** The core components, always present in the report in this order. */
const CORE_COMPONENTS = ["database", "cache", "queue"] as const;

/** A hung dependency (a stuck socket) must not hang the health endpoint with it. */
const CHECK_TIMEOUT_MS = 2_000;

interface Entry {
  check: HealthCheck;
  critical: boolean;
}

export class HealthRegistry {
  private readonly checks = new Map<string, Entry>();

  /** `onFailure` hears about checks that threw; the report itself shows no error text. */
  constructor(
    private readonly onFailure: (name: string, err: unknown) => void = () => {},
    private readonly timeoutMs = CHECK_TIMEOUT_MS,
  ) {}

  /**
   * Adds a check, or replaces the one of the same name. Returns a function that removes it
   * (a stream that shuts down takes its check with it).
   */
  register(name: string, check: HealthCheck, opts: CheckOptions = {}): () => void {
    const entry: Entry = { check, critical: opts.critical ?? false };
    this.checks.set(name, entry);
    return () => {
      if (this.checks.get(name) === entry) this.checks.delete(name);
    };
  }

  has(name: string): boolean {
    return this.checks.has(name);
  }

  /** Runs one check; a throw, a rejection or a timeout is that component being unhealthy. */
  async check(name: string): Promise<ComponentReport | undefined> {
    const entry = this.checks.get(name);
    return entry ? this.runCheck(name, entry.check) : undefined;
  }

  /** Runs every check concurrently and folds them into the overall status. */
  async report(): Promise<HealthReport> {
    const core: readonly string[] = CORE_COMPONENTS;
    const names = [
      ...core.filter((n) => this.checks.has(n)),
      ...[...this.checks.keys()].filter((n) => !core.includes(n)),
    ];
    const entries = names.map((n) => this.checks.get(n)!);
    const results = await Promise.all(entries.map((e, i) => this.runCheck(names[i]!, e.check)));
    const services: Record<string, ComponentReport> = {};
    let status: ComponentStatus = "healthy";
    results.forEach((r, i) => {
      services[names[i]!] = r;
      if (r.status === "healthy") return;
      if (r.status === "unhealthy" && entries[i]!.critical) status = "unhealthy";
      else if (status === "healthy") status = "degraded";
    });
    return { status, services };
  }

  private async runCheck(name: string, check: HealthCheck): Promise<ComponentReport> {
    try {
      return await measure(check, this.timeoutMs);
    } catch (err) {
      // The health endpoint needs no credential: a thrown error's text (a URL, a path) stays in
      // the log, the report says only that the check failed.
      this.onFailure(name, err);
      return { status: "unhealthy", message: err instanceof CheckTimeout ? err.message : `${name} check failed` };
    }
  }
}

class CheckTimeout extends Error {}

async function measure(check: HealthCheck, timeoutMs: number): Promise<ComponentReport> {
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const result = await Promise.race([
      Promise.resolve().then(check),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new CheckTimeout(`check timed out after ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    const latency = result.latency ?? roundMs(performance.now() - started);
    // SPEC: each component has a status and, when healthy, a latency.
    if (result.status === "healthy") return { ...result, latency };
    return { ...result, message: result.message ?? "unavailable" };
  } finally {
    if (timer) clearTimeout(timer);
  }
}

export const roundMs = (ms: number): number => Math.round(ms * 1000) / 1000;
