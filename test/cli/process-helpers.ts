import { join } from "node:path";
import type { Subprocess } from "bun";
import { offlineEnv } from "../helpers/context.ts";

// Child-process helpers for the CLI and binary tests: run a command to completion, or start the
// service and wait for its "listening" log line (no sleeping: the line says when it is ready).

export const ROOT = join(import.meta.dir, "../..");
const MAIN = join(ROOT, "src/main.ts");
/** `bun src/main.ts`: the CLI from source. */
export const SOURCE_CLI = [process.execPath, MAIN];

/** A clean environment: nothing from the developer's shell or .env, every market source off. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    ...offlineEnv,
    LOG_LEVEL: "info",
    ...extra,
  };
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function run(cmd: string[], opts: { cwd: string; env: Record<string, string> }): Promise<RunResult> {
  const proc = Bun.spawn(cmd, { cwd: opts.cwd, env: opts.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

export { freePort } from "../helpers/child-service.ts";

export interface RunningService {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  url: string;
  port: number;
  /** Parsed JSON log lines seen so far. */
  logs: Array<Record<string, unknown>>;
  stderr(): Promise<string>;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number>;
  /** Milliseconds from reading the "stopped" log line to the process's exit; null before both. */
  exitAfterStoppedMs(): number | null;
}

/** Starts `cmd` and resolves once it logs "listening"; rejects with its output if it exits first. */
export async function startService(
  cmd: string[],
  opts: { cwd: string; env: Record<string, string> },
): Promise<RunningService> {
  const proc = Bun.spawn(cmd, { cwd: opts.cwd, env: opts.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const logs: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  const stderrText = new Response(proc.stderr).text();
  let onListening: (entry: Record<string, unknown>) => void = () => {};
  const listening = new Promise<Record<string, unknown>>((resolve) => (onListening = resolve));
  let stoppedAt: number | null = null;
  let exitedAt: number | null = null;
  // Keep draining stdout for the whole life of the process, or a full pipe would block it.
  const pump = (async () => {
    const decoder = new TextDecoder();
    let buf = "";
    for await (const chunk of proc.stdout) {
      buf += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        raw.push(line);
        try {
          const entry = JSON.parse(line) as Record<string, unknown>;
          logs.push(entry);
          if (entry.msg === "listening") onListening(entry);
          if (entry.msg === "stopped") stoppedAt = performance.now();
        } catch {
          // not a log line
        }
      }
    }
  })();
  const exited = proc.exited.then(async (code) => {
    exitedAt = performance.now();
    await pump;
    return code;
  });
  const first = await Promise.race([listening, exited]);
  if (typeof first === "number") {
    throw new Error(
      `service exited with ${first} before listening\nstdout:\n${raw.join("\n")}\nstderr:\n${await stderrText}`,
    );
  }
  const port = first.port as number;
  return {
    proc,
    url: `http://127.0.0.1:${port}`,
    port,
    logs,
    stderr: () => stderrText,
    stop: async (signal = "SIGTERM") => {
      proc.kill(signal);
      return exited;
    },
    exitAfterStoppedMs: () => (stoppedAt === null || exitedAt === null ? null : exitedAt - stoppedAt),
  };
}

export async function loginOver(
  url: string,
  email = offlineEnv.ADMIN_EMAIL!,
  password = offlineEnv.ADMIN_PASSWORD!,
): Promise<string> {
  const res = await fetch(`${url}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { accessToken: string }).accessToken;
}

/** Creates an API key over the service's HTTP API with `token`; returns the key itself. */
export async function createApiKeyOver(url: string, token: string, name: string, scopes: string[]): Promise<string> {
  const res = await fetch(`${url}/api/v1/api-keys`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ name, scopes }),
  });
  if (res.status !== 201) throw new Error(`api key creation failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { key: string }).key;
}
