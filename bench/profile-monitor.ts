import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../src/clock.ts";
import { startFakeMarket } from "../test/fakes/market.ts";
import { fakeMints, inProcessEnv, openServices, seedOpenPositions, seedUser } from "./lib/seed.ts";

// The monitor tick of bench/monitor-tick.ts (10,000 positions, 500 tokens, prices moving 1 % per
// tick) run `n` times in-process, for `bun --cpu-prof-md bench/profile-monitor.ts [n]`
// (docs/decisions.md "Performance", "Monitor tick"); not part of the run.

const n = Number(process.argv[2] ?? 40);
// WAL_AUTOCHECKPOINT=N: the same ticks with checkpoints in the commits at threshold N instead of
// in the worker thread serve() uses (docs/decisions.md "Monitor tick").
const autocheckpoint = process.env.WAL_AUTOCHECKPOINT;
const dir = mkdtempSync(join(tmpdir(), "trading-agent-monitor-"));
const fake = await startFakeMarket();
const clock = new ManualClock(Date.now());
const mints = fakeMints(500);
fake.setSolPrice(100);
for (const m of mints) fake.setToken(m, { priceUsd: "0.01", decimals: 6 });
const { services, database } = openServices(
  inProcessEnv(join(dir, "monitor.db"), fake.env(), { SWAP_AGGREGATOR_REQUESTS_PER_MINUTE: "100000000" }),
  { clock },
);
if (autocheckpoint) database.sqlite.run(`PRAGMA wal_autocheckpoint = ${Number(autocheckpoint)}`);
else services.walCheckpoints.start();
const user = await seedUser(services, "monitor@bench.local", 20);
seedOpenPositions(database.sqlite, user.agentIds, mints, "0.0001", "0.01", clock.now());
await services.market.solPrice.refresh();
// Time spent in the price lookup (HTTP to the fake market in this process), per tick.
let priceMs = 0;
const prices = services.market.tokenPrices;
const getPrices = prices.getPrices.bind(prices);
prices.getPrices = async (mints) => {
  const t0 = performance.now();
  try {
    return await getPrices(mints);
  } finally {
    priceMs += performance.now() - t0;
  }
};
// and in the positions read and the price write.
const phase = { read: 0, write: 0 };
const store = services.trading.positions;
const monitoredOpen = store.monitoredOpen.bind(store);
const recordPrices = store.recordPrices.bind(store);
store.monitoredOpen = () => {
  const t0 = performance.now();
  const r = monitoredOpen();
  phase.read += performance.now() - t0;
  return r;
};
store.recordPrices = (u, now) => {
  const t0 = performance.now();
  recordPrices(u, now);
  phase.write += performance.now() - t0;
};
const reads: number[] = [];
const writes: number[] = [];
const priceWalls: number[] = [];
const walls: number[] = [];
const cpus: number[] = [];
for (let i = 0; i < n; i++) {
  clock.advance(10_000);
  for (const m of mints) fake.setToken(m, { priceUsd: i % 2 === 0 ? "0.0101" : "0.01" });
  // Between ticks (10 s apart in production): the previous tick's checkpoint in the worker.
  services.walCheckpoints.poll();
  await services.walCheckpoints.idle();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  priceMs = 0;
  phase.read = 0;
  phase.write = 0;
  const r = await services.trading.monitor.tick();
  priceWalls.push(priceMs);
  reads.push(phase.read);
  writes.push(phase.write);
  walls.push(performance.now() - t0);
  const c = process.cpuUsage(c0);
  cpus.push((c.user + c.system) / 1000);
  if (r.actions > 0) console.log(`tick ${i}: ${r.actions} actions`);
}
const med = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
console.log(
  `ticks ${n}: wall median ${med(walls.slice(1))?.toFixed(1)} ms, cpu median ${med(cpus.slice(1))?.toFixed(1)} ms, price lookup ${med(priceWalls.slice(1))?.toFixed(1)} ms, positions read ${med(reads.slice(1))?.toFixed(1)} ms, price write ${med(writes.slice(1))?.toFixed(1)} ms`,
);
await services.stop({ timeoutMs: 5_000 });
database.close();
await fake.stop();
rmSync(dir, { recursive: true, force: true });
