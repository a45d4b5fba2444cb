// A loopback proxy in front of a fake (the aggregator, the RPC) that answers `delayMs` after a
// request arrives, as a provider across the internet would, and logs every request with its
// arrival and answer times: the latency row counts the round trips of a path from this log.

export interface ProxiedRequest {
  /** Which fake ("aggregator", "rpc"). */
  upstream: string;
  method: string;
  path: string;
  /** The JSON-RPC method(s) of the body, when it is JSON-RPC ("a+b" for a batch). */
  rpcMethod: string | null;
  /** performance.now() when the request arrived / when its answer left. */
  startMs: number;
  endMs: number;
}

function rpcMethodOf(body: string): string | null {
  if (!body) return null;
  try {
    const parsed = JSON.parse(body) as unknown;
    const calls = Array.isArray(parsed) ? parsed : [parsed];
    const names = calls.map((c) => (c && typeof c === "object" ? (c as { method?: unknown }).method : undefined));
    return names.every((n) => typeof n === "string") ? names.join("+") : null;
  } catch {
    return null;
  }
}

export class DelayProxy {
  private server: ReturnType<typeof Bun.serve> | null = null;

  constructor(
    private readonly upstream: string,
    private readonly target: string,
    private readonly delayMs: number,
    readonly log: ProxiedRequest[],
  ) {}

  get url(): string {
    if (!this.server) throw new Error("proxy not started");
    return `http://127.0.0.1:${this.server.port}`;
  }

  start(): this {
    this.server = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, fetch: (req) => this.handle(req) });
    return this;
  }

  async stop(): Promise<void> {
    await this.server?.stop(true);
    this.server = null;
  }

  private async handle(req: Request): Promise<Response> {
    const startMs = performance.now();
    const url = new URL(req.url);
    const body = req.method === "GET" || req.method === "HEAD" ? "" : await req.text();
    const entry: ProxiedRequest = {
      upstream: this.upstream,
      method: req.method,
      path: url.pathname,
      rpcMethod: rpcMethodOf(body),
      startMs,
      endMs: Number.NaN,
    };
    this.log.push(entry);
    // The fake does its work at once (a sent transaction lands on arrival); its answer leaves
    // delayMs after the request came in.
    const res = await fetch(`${this.target}${url.pathname}${url.search}`, {
      method: req.method,
      headers: req.headers,
      body: body === "" ? undefined : body,
    });
    const payload = await res.arrayBuffer();
    // Timers may fire a fraction of a millisecond early: wait again until the delay has passed.
    for (
      let wait = startMs + this.delayMs - performance.now();
      wait > 0;
      wait = startMs + this.delayMs - performance.now()
    )
      await Bun.sleep(wait);
    entry.endMs = performance.now();
    const headers = new Headers(res.headers);
    headers.delete("content-encoding");
    headers.delete("content-length");
    return new Response(payload, { status: res.status, headers });
  }
}

/**
 * The serial round trips among `requests`: sorted by arrival, a request that arrives before every
 * request of the current round has been answered overlaps it (sent in parallel) and joins it;
 * otherwise it starts a new round. Returns the rounds, each a list of requests.
 */
export function serialRounds(requests: readonly ProxiedRequest[]): ProxiedRequest[][] {
  const sorted = [...requests].sort((a, b) => a.startMs - b.startMs);
  const rounds: ProxiedRequest[][] = [];
  let openUntil = Number.NEGATIVE_INFINITY;
  for (const r of sorted) {
    const end = Number.isNaN(r.endMs) ? Number.POSITIVE_INFINITY : r.endMs;
    if (rounds.length > 0 && r.startMs < openUntil) {
      rounds[rounds.length - 1]!.push(r);
      openUntil = Math.max(openUntil, end);
    } else {
      rounds.push([r]);
      openUntil = end;
    }
  }
  return rounds;
}
