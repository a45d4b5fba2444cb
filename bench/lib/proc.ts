import { openSync, readFileSync } from "node:fs";
import type { Subprocess } from "bun";

// Child processes of the benchmark: the service (Bun running src/main.ts, or the compiled binary)
// and the bare Bun.serve baselines, each a real process on 127.0.0.1 whose RSS is read from /proc.

export interface Child {
  proc: Subprocess;
  pid: number;
  url: string;
  port: number;
  /** Sends SIGTERM and waits for the exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

/** A port that was free a moment ago (bound to port 0, then released). */
export function freePort(): number {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = s.port as number;
  s.stop(true);
  return port;
}

/** Resident set size of a process in bytes (VmRSS), or NaN when it is gone. */
export function rssBytes(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Samples RSS every `everyMs` until stopped; returns the peak seen. */
export function sampleRss(pid: number, everyMs = 5): { stop(): number } {
  let peak = rssBytes(pid);
  const t = setInterval(() => {
    const v = rssBytes(pid);
    if (v > peak) peak = v;
  }, everyMs);
  return {
    stop() {
      clearInterval(t);
      const v = rssBytes(pid);
      return Math.max(v, peak);
    },
  };
}

/** Polls `url` until it answers 200; returns the ms it took from `since` (performance.now()). */
async function waitReady(
  url: string,
  proc: Subprocess,
  since: number,
  timeoutMs = 30_000,
  pollMs = 2,
): Promise<number> {
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`process exited with ${proc.exitCode} before ${url} answered`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - since;
    } catch {
      // not listening yet
    }
    if (performance.now() - since > timeoutMs) throw new Error(`${url} not ready after ${timeoutMs} ms`);
    await Bun.sleep(pollMs);
  }
}

export interface SpawnOptions {
  cmd: string[];
  env: Record<string, string>;
  cwd: string;
  port: number;
  readyPath: string;
  /** stdout and stderr go here (the service's JSON log lines). */
  logFile?: string;
  timeoutMs?: number;
}

/** Starts a server process and waits until readyPath answers 200. `readyMs` is spawn → ready. */
export async function spawnServer(o: SpawnOptions): Promise<Child & { readyMs: number }> {
  const out = o.logFile ? openSync(o.logFile, "a") : "ignore";
  const started = performance.now();
  const proc = Bun.spawn(o.cmd, { cwd: o.cwd, env: o.env, stdin: "ignore", stdout: out, stderr: out });
  const url = `http://127.0.0.1:${o.port}`;
  const stop = async (graceMs = 20_000) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill("SIGTERM");
    const t = setTimeout(() => proc.kill("SIGKILL"), graceMs);
    await proc.exited;
    clearTimeout(t);
  };
  try {
    const readyMs = await waitReady(url + o.readyPath, proc, started, o.timeoutMs);
    return { proc, pid: proc.pid, url, port: o.port, readyMs, stop };
  } catch (err) {
    await stop(1_000);
    const log = o.logFile ? tail(o.logFile) : "";
    throw new Error(`${(err as Error).message}${log ? `\n--- ${o.logFile} (tail)\n${log}` : ""}`);
  }
}

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}
