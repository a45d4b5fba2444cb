import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app.ts";
import { WalIndexHeader } from "../src/db/wal-index-header.ts";
import { createAppDeps } from "../src/http/deps.ts";
import { startFakeMarket } from "../test/fakes/market.ts";
import { FAN_OUT_TOKENS } from "./lib/context.ts";
import { inProcessEnv, openServices, postBuySignal, seedTransactions, seedUser } from "./lib/seed.ts";

// One buy signal to N simulation agents in-process (the fan-out of bench/fan-out.ts without the
// child process): `bun [--cpu-prof-md] bench/profile-fan-out.ts [agents] [runs] [transactions]`.
// `transactions` rows of history are seeded first, as the bench's service has (1,000,000 there).
// FRAMES=1 prints the WAL pages each run appended (checkpoints off), PROFILE=1 samples the runs.
// For profiling (docs/decisions.md "Performance"); not part of the run.

const agents = Number(process.argv[2] ?? 1000);
const runs = Number(process.argv[3] ?? 6);
const history = Number(process.argv[4] ?? 0);
const dir = mkdtempSync(join(tmpdir(), "trading-agent-fan-"));
const fake = await startFakeMarket();
fake.setSolPrice(100);
for (const m of FAN_OUT_TOKENS) fake.setToken(m, { priceUsd: "0.01", decimals: 6, liquidityUsd: 250_000 });
const { services, database } = openServices(
  inProcessEnv(join(dir, "fan.db"), fake.env(), {
    SIGNAL_RATE_LIMIT_PER_MINUTE: "1000000",
    SWAP_AGGREGATOR_REQUESTS_PER_MINUTE: "100000000",
  }),
);
const app = createApp(createAppDeps(services));
const user = await seedUser(services, "fan@bench.local", agents, ["signals"]);
if (history > 0) {
  const h = await seedUser(services, "history@bench.local", 1);
  seedTransactions(database.sqlite, h.agentIds[0] as string, history, Date.now() - 60_000);
}
await services.market.solPrice.refresh();
// FRAMES=1: no checkpoints during the runs, and the WAL frames (4 KiB pages) each run appended.
const countFrames = Boolean(process.env.FRAMES);
if (countFrames) database.sqlite.exec("PRAGMA wal_autocheckpoint = 0");
else if (!process.env.NO_CHECKPOINTER) services.walCheckpoints.start();
const header = WalIndexHeader.of(database.sqlite);
const frames: number[] = [];
// Agents may hold one open position per token: with more runs than FAN_OUT_TOKENS the later runs
// find every agent ineligible (no trades).
const count = database.sqlite.query<{ n: number }, [number]>("SELECT count(*) AS n FROM positions WHERE signal_id = ?");
const walls: number[] = [];
const cpus: number[] = [];
const runAll = async () => {
  for (let i = 0; i < runs; i++) {
    const f0 = header?.frames()?.last ?? 0;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const res = await postBuySignal(app, user.apiKey as string, FAN_OUT_TOKENS[i % FAN_OUT_TOKENS.length] as string);
    const { id } = (await res.json()) as { id: number };
    await services.signalQueue.idle();
    walls.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpus.push((c.user + c.system) / 1000);
    if (countFrames) frames.push((header?.frames()?.last ?? 0) - f0);
    const n = count.get(id)!.n;
    if (n !== agents && i < FAN_OUT_TOKENS.length) console.log(`run ${i}: ${n} positions`);
  }
};
// PROFILE=1: JavaScriptCore's sampling profiler over the runs only (not the seeding).
if (process.env.PROFILE) {
  const { profile } = await import("bun:jsc");
  const report = await profile(runAll, 200);
  console.log(report.functions.split("\n").slice(0, 60).join("\n"));
} else await runAll();
if (countFrames) console.log(`WAL frames per run: ${frames.join(" / ")}`);
console.log(
  `fan-out to ${agents}: wall ${walls.map((w) => Math.round(w)).join(" / ")} ms; CPU ${cpus.map((c) => Math.round(c)).join(" / ")} ms`,
);
await services.stop({ timeoutMs: 5_000 });
database.close();
await fake.stop();
rmSync(dir, { recursive: true, force: true });
