import { join } from "node:path";
import { type BenchOptions, BUN, ROOT } from "./context.ts";
import { type Child, freePort, spawnServer } from "./proc.ts";

/** Starts bench/baseline-server.ts as its own process (BENCH_MODE etc. in `env`). */
async function startBaseline(o: BenchOptions, env: Record<string, string>): Promise<Child> {
  const port = freePort();
  return spawnServer({
    cmd: [BUN, join(ROOT, "bench/baseline-server.ts")],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", PORT: String(port), ...env },
    cwd: o.dir,
    port,
    readyPath: "/",
  });
}

/** Runs `fn` with a baseline server's URL, then stops it. */
export async function withBaseline<T>(
  o: BenchOptions,
  env: Record<string, string>,
  fn: (url: string, child: Child) => Promise<T>,
): Promise<T> {
  const child = await startBaseline(o, env);
  try {
    return await fn(child.url, child);
  } finally {
    await child.stop();
  }
}
