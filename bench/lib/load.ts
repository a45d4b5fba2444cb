import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// HTTP load generation with wrk (Debian package `wrk`). There is no fallback: autocannon, the
// fallback this replaced, saturates at about 24k requests/s on the 2-core reference machine, below
// a bare Bun.serve (85-92k under wrk), so it capped every baseline and inflated every ratio
// (issue 35). Without wrk the HTTP rows fail with the command that installs it.

export interface LoadSpec {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationS: number;
}

export interface LoadResult {
  tool: "wrk";
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

/** What run.ts reports as the load generator. */
export const loadTool = (): string => (findWrk() ? "wrk" : "none (wrk not found on PATH: apt-get install wrk)");

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

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const wrk = findWrk();
  if (!wrk) throw new Error("wrk not found on PATH: the HTTP rows need it (apt-get install wrk)");
  return runWrk(wrk, spec);
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat; NaN when gone. */
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command (which may hold spaces) start after the last ')': utime and stime
    // are fields 14 and 15, in clock ticks (USER_HZ, 100 on Linux).
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * A baseline run saturated the baseline when its server process was busy for at least this share
 * of one core (a bare Bun.serve answers on one thread). Below it the server waited for requests:
 * the load generator (or a busy machine) set the pace, and a ratio against that baseline would be
 * a ratio against the generator.
 */
export const SATURATED_CORES = 0.85;
