import { Database } from "bun:sqlite";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";

// The service as a real child process (`bun src/main.ts`, the CLI's default `serve`): for tests
// that must kill it for real (crash test) and for benchmarks that measure it from outside.
// Readiness is GET /api/v1/health/live answering 200, polled with a bound, so it works at any
// LOG_LEVEL. Output is drained all the time (a full pipe would block the child) and the tail is
// kept for failure messages.

export const ROOT = join(import.meta.dir, "../..");
export const MAIN = join(ROOT, "src/main.ts");

export interface ChildService {
  readonly proc: Subprocess<"ignore", "pipe", "pipe">;
  readonly pid: number;
  readonly port: number;
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** Resolves with the exit code once the process has ended and its output is drained. */
  readonly exited: Promise<number>;
  /** The last lines of stdout and stderr (diagnostics). */
  output(): string;
  /** Sends `signal` (default SIGTERM) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number>;
  /** kill -9: no handler runs, nothing is flushed; resolves once the process is gone. */
  kill(): Promise<number>;
}

export interface StartOptions {
  /** Command line; default `bun src/main.ts` (serve). */
  cmd?: string[];
  /** Working directory; default the system temp dir, so no developer .env is picked up (Bun loads ./.env). */
  cwd?: string;
  /** Bound for the readiness wait (start-up includes migrations). */
  readyTimeoutMs?: number;
  /** Lines of output kept for output(). */
  keepLines?: number;
}

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): number {
  const l = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = l.port;
  l.stop(true);
  return port;
}

/**
 * Starts the service with exactly `env` (plus PATH and HOME; HOST defaults to 127.0.0.1, PORT to
 * a free port) and resolves once /api/v1/health/live answers 200. Rejects with the child's output
 * when it exits first or is not ready within the bound (the child is killed then).
 */
export async function startChildService(env: Record<string, string>, opts: StartOptions = {}): Promise<ChildService> {
  const port = env.PORT ? Number(env.PORT) : freePort();
  const host = env.HOST ?? "127.0.0.1";
  const fullEnv: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    ...env,
    HOST: host,
    PORT: String(port),
  };
  const proc = Bun.spawn(opts.cmd ?? [process.execPath, MAIN], {
    cwd: opts.cwd ?? tmpdir(),
    env: fullEnv,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const keep = opts.keepLines ?? 200;
  const lines: string[] = [];
  const drain = async (stream: ReadableStream<Uint8Array>, tag: string) => {
    const decoder = new TextDecoder();
    let buf = "";
    for await (const chunk of stream) {
      buf += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        lines.push(`${tag} ${buf.slice(0, nl)}`);
        if (lines.length > keep) lines.shift();
        buf = buf.slice(nl + 1);
      }
    }
    if (buf) lines.push(`${tag} ${buf}`);
  };
  const drained = Promise.all([drain(proc.stdout, "[out]"), drain(proc.stderr, "[err]")]);
  const exited = proc.exited.then(async (code) => {
    await drained.catch(() => {});
    return code;
  });
  let gone = false;
  void exited.then(() => (gone = true));
  const output = () => lines.join("\n");
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

  const deadline = performance.now() + (opts.readyTimeoutMs ?? 20_000);
  for (;;) {
    if (gone) throw new Error(`service exited with ${await exited} before it was ready\n${output()}`);
    try {
      const res = await fetch(`${url}/api/v1/health/live`, { signal: AbortSignal.timeout(1_000) });
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline) {
      proc.kill("SIGKILL");
      await exited;
      throw new Error(`service not ready within ${opts.readyTimeoutMs ?? 20_000} ms\n${output()}`);
    }
    await Bun.sleep(20); // bounded readiness polling
  }

  return {
    proc,
    pid: proc.pid,
    port,
    url,
    exited,
    output,
    stop: (signal = "SIGTERM") => {
      if (!gone) proc.kill(signal);
      return exited;
    },
    kill: () => {
      if (!gone) proc.kill("SIGKILL");
      return exited;
    },
  };
}

/** Reads the child's database from the test process through a read-only connection, closed after. */
export function readDatabase<T>(path: string, fn: (db: Database) => T): T {
  const db = new Database(path, { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}
