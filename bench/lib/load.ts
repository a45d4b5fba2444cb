import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// HTTP load generation: wrk (Debian package `wrk`) when it is on PATH, autocannon (npm
// devDependency, runs inside this process) otherwise. Both report the same shape.

export interface LoadSpec {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationS: number;
}

export interface LoadResult {
  tool: "wrk" | "autocannon";
  requests: number;
  durationS: number;
  rps: number;
  /** Latency percentiles in milliseconds. */
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  /** Socket errors, timeouts and non-2xx answers together (a clean run has 0). */
  errors: number;
  non2xx: number;
}

let wrkPath: string | null | undefined;

/** wrk's path, or null when it is not installed. */
function findWrk(): string | null {
  if (wrkPath === undefined) wrkPath = Bun.which("wrk") ?? null;
  return wrkPath;
}

export const loadTool = (): "wrk" | "autocannon" => (findWrk() ? "wrk" : "autocannon");

/** Lua string literal. */
export const luaString = (s: string): string =>
  `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\r/g, "\\r")}"`;

/** The wrk script: method, headers and body of every request, and a JSON summary at the end. */
export function wrkScript(spec: Pick<LoadSpec, "method" | "headers" | "body">): string {
  const lines = [`wrk.method = ${luaString(spec.method ?? "GET")}`];
  for (const [k, v] of Object.entries(spec.headers ?? {})) lines.push(`wrk.headers[${luaString(k)}] = ${luaString(v)}`);
  if (spec.body !== undefined) lines.push(`wrk.body = ${luaString(spec.body)}`);
  lines.push(
    `done = function(summary, latency, requests)`,
    `  local e = summary.errors`,
    `  io.write(string.format('WRKJSON {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50":%d,"p90":%d,"p99":%d,"max":%d}\\n',`,
    `    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,`,
    `    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))`,
    `end`,
  );
  return `${lines.join("\n")}\n`;
}

/** Parses the WRKJSON line of wrkScript's done(). */
export function parseWrkOutput(stdout: string): LoadResult {
  const line = stdout.split("\n").find((l) => l.startsWith("WRKJSON "));
  if (!line) throw new Error(`wrk printed no summary:\n${stdout.slice(0, 2000)}`);
  const j = JSON.parse(line.slice("WRKJSON ".length)) as Record<string, number>;
  const num = (k: string) => j[k] ?? 0;
  const durationS = num("duration_us") / 1e6;
  return {
    tool: "wrk",
    requests: num("requests"),
    durationS,
    rps: durationS > 0 ? num("requests") / durationS : 0,
    latencyMs: { p50: num("p50") / 1000, p90: num("p90") / 1000, p99: num("p99") / 1000, max: num("max") / 1000 },
    errors: num("connect") + num("read") + num("write") + num("timeout") + num("status"),
    non2xx: num("status"),
  };
}

async function runWrk(wrk: string, spec: LoadSpec): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), "bench-wrk-"));
  try {
    const script = join(dir, "script.lua");
    writeFileSync(script, wrkScript(spec));
    // One wrk thread: on a 2-core machine the server under test gets the other core.
    const proc = Bun.spawn(
      [wrk, "-t1", `-c${spec.connections}`, `-d${spec.durationS}s`, "--timeout", "10s", "-s", script, spec.url],
      { stdout: "pipe", stderr: "pipe" },
    );
    const [out, err, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    if (code !== 0) throw new Error(`wrk exited ${code}: ${err || out}`);
    return parseWrkOutput(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runAutocannon(spec: LoadSpec): Promise<LoadResult> {
  // autocannon ships no types; the module name in a variable keeps tsc from looking for them.
  const moduleName = "autocannon";
  const { default: autocannon } = (await import(moduleName)) as {
    default: (opts: Record<string, unknown>) => Promise<any>;
  };
  const r = await autocannon({
    url: spec.url,
    method: spec.method ?? "GET",
    headers: spec.headers,
    body: spec.body,
    connections: spec.connections,
    duration: spec.durationS,
  });
  const durationS = (r.duration as number) || spec.durationS;
  const total = (r.requests?.total as number) ?? 0;
  return {
    tool: "autocannon",
    requests: total,
    durationS,
    rps: total / durationS,
    latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
    errors: (r.errors ?? 0) + (r.timeouts ?? 0) + (r.non2xx ?? 0),
    non2xx: r.non2xx ?? 0,
  };
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const wrk = findWrk();
  return wrk ? runWrk(wrk, spec) : runAutocannon(spec);
}
