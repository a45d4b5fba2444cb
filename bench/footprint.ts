import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { startFakeMarket } from "../test/fakes/market.ts";
import { type BenchOptions, BUN, ROOT, serviceEnv } from "./lib/context.ts";
import { freePort, rssBytes, spawnServer } from "./lib/proc.ts";
import { type BenchRow, median, row } from "./lib/stats.ts";

// 6. Footprint: the compiled binary (build.ts) from spawn to 200 on /api/v1/health/live, and its
// idle RSS one second later, against a bare Bun.serve compiled the same way (`bun build
// --compile` of bench/baseline-server.ts). Restarts on an existing database are the figure (the
// first start also creates the database and hashes the admin password, reported in details).

async function build(o: BenchOptions, outdir: string): Promise<{ service: string; bare: string }> {
  const service = join(outdir, "trading-agent");
  const b = Bun.spawnSync([BUN, join(ROOT, "build.ts"), "--outdir", outdir], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (b.exitCode !== 0 || !existsSync(service))
    throw new Error(`build.ts failed (${b.exitCode}): ${b.stderr.toString().trim() || b.stdout.toString().trim()}`);
  const bare = join(outdir, "bare-server");
  const c = Bun.spawnSync(
    [BUN, "build", "--compile", "--minify", join(ROOT, "bench/baseline-server.ts"), "--outfile", bare],
    { cwd: o.dir, stdout: "pipe", stderr: "pipe" },
  );
  if (c.exitCode !== 0) throw new Error(`bun build --compile of the bare server failed: ${c.stderr.toString().trim()}`);
  return { service, bare };
}

interface Start {
  readyMs: number;
  /** Spawn → the first answer of the whole app (/health/ready, any status): the routes are up. */
  appMs: number;
  idleRss: number;
}

async function startOnce(
  cmd: string[],
  env: Record<string, string>,
  cwd: string,
  port: number,
  readyPath: string,
  logFile?: string,
): Promise<Start> {
  const child = await spawnServer({ cmd, env, cwd, port, readyPath, logFile, timeoutMs: 30_000 });
  const spawned = performance.now() - child.readyMs;
  try {
    // The service answers /health/live while it loads its routes (src/http/start-gate.ts); a
    // request to /health/ready waits for them, so its answer marks the whole app up.
    await (await fetch(`${child.url}/api/v1/health/ready`)).arrayBuffer();
    const appMs = performance.now() - spawned;
    await Bun.sleep(1_000);
    return { readyMs: child.readyMs, appMs, idleRss: rssBytes(child.pid) };
  } finally {
    await child.stop();
  }
}

export async function footprint(o: BenchOptions): Promise<BenchRow[]> {
  const dir = join(o.dir, "footprint");
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  const bins = await build(o, join(dir, "dist"));
  o.log(`  built both binaries (${Math.round(performance.now() - t0)} ms)`);
  const fake = await startFakeMarket();
  fake.setSolPrice(100);
  try {
    const port = freePort();
    const env = serviceEnv(fake, dir, port);
    const bareEnv = { PATH: env.PATH as string, PORT: String(port), BENCH_MODE: "health" };
    const logFile = join(dir, "binary.log");
    const first = await startOnce([bins.service], env, dir, port, "/api/v1/health/live", logFile);
    const runs = o.quick ? 2 : 5;
    const service: Start[] = [];
    const bare: Start[] = [];
    for (let i = 0; i < runs; i++) {
      bare.push(await startOnce([bins.bare], bareEnv, dir, port, "/api/v1/health/live"));
      service.push(await startOnce([bins.service], env, dir, port, "/api/v1/health/live", logFile));
    }
    const ready = median(service.map((s) => s.readyMs));
    const bareReady = median(bare.map((s) => s.readyMs));
    const rss = median(service.map((s) => s.idleRss)) / 1048576;
    const bareRss = median(bare.map((s) => s.idleRss)) / 1048576;
    const sizeMiB = Bun.file(bins.service).size / 1048576;
    const bareSizeMiB = Bun.file(bins.bare).size / 1048576;
    return [
      row({
        id: "footprint.start",
        name: "Binary start → /health/live 200 (restart)",
        unit: "ms",
        value: ready,
        baselineName: "bare Bun.serve binary",
        baselineValue: bareReady,
        target: "≤ 150 ms",
        check: (_q, v) => v <= 150,
        details: {
          runsMs: service.map((s) => Math.round(s.readyMs)),
          appRunsMs: service.map((s) => Math.round(s.appMs)),
          bareRunsMs: bare.map((s) => Math.round(s.readyMs)),
          firstStartMs: Math.round(first.readyMs),
        },
        note:
          `whole app up (/health/ready answered): ${Math.round(median(service.map((s) => s.appMs)))} ms; ` +
          `first start on an empty database: ${Math.round(first.readyMs)} ms (migrations; the admin account is created after listening, before the routes open)`,
      }),
      row({
        id: "footprint.rss",
        name: "Binary idle RSS",
        unit: "MiB",
        value: rss,
        baselineName: "bare Bun.serve binary",
        baselineValue: bareRss,
        target: "≤ 1.5×",
        check: (q) => q <= 1.5,
        details: {
          runsMiB: service.map((s) => Math.round(s.idleRss / 1048576)),
          bareRunsMiB: bare.map((s) => Math.round(s.idleRss / 1048576)),
        },
      }),
      row({
        id: "footprint.size",
        name: "Binary size",
        unit: "MiB",
        value: sizeMiB,
        baselineName: "bare Bun.serve binary",
        baselineValue: bareSizeMiB,
        target: "",
      }),
    ];
  } finally {
    await fake.stop();
  }
}
