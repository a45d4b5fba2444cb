import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ManualClock } from "../src/clock.ts";
import { startFakeMarket } from "../test/fakes/market.ts";
import type { BenchOptions } from "./lib/context.ts";
import { fakeMints, inProcessEnv, openServices, seedOpenPositions, seedUser } from "./lib/seed.ts";
import { type BenchRow, median, row } from "./lib/stats.ts";

// 4. Monitor tick: 10,000 open positions over 500 tokens, one PositionMonitor.tick() in this
// process (createServices on a seeded database, the production Jupiter adapter talking HTTP to
// the fake market). The clock is a ManualClock moved by the monitor interval between ticks, so
// every tick finds the 5 s price cache expired, as in production with a 10 s interval. Every
// token's price moves by 1 % between ticks (so every position's row is rewritten) without
// reaching a stop-loss: no trade fires, which is the steady state of a tick.
// Baseline: raw bun:sqlite reading the same open positions and writing the same price columns
// of all of them in one transaction — the I/O floor of a tick — on the same connection, so with
// the same checkpoint arrangement as the tick.

const AGENTS = 20;
const TOKENS = 500;

export async function monitorTick(o: BenchOptions): Promise<BenchRow[]> {
  const dir = join(o.dir, "monitor");
  mkdirSync(dir, { recursive: true });
  const fake = await startFakeMarket();
  const clock = new ManualClock(Date.now());
  const mints = fakeMints(TOKENS);
  fake.setSolPrice(100);
  for (const m of mints) fake.setToken(m, { priceUsd: "0.01", decimals: 6 });
  const env = inProcessEnv(join(dir, "monitor.db"), fake.env(), {
    // The keyed free tier (60 requests per minute) would pace 10 price batches over 9 s; the
    // benchmark measures our side of the tick.
    SWAP_AGGREGATOR_REQUESTS_PER_MINUTE: "100000000",
  });
  const { services, database } = openServices(env, { clock });
  try {
    const user = await seedUser(services, "monitor@bench.local", AGENTS);
    const positions = seedOpenPositions(database.sqlite, user.agentIds, mints, "0.0001", "0.01", clock.now());
    // SOL/USD from Hermes once, as the running stream would have it.
    await services.market.solPrice.refresh();

    // As serve() does: commits leave the WAL checkpoint to a worker thread
    // (src/db/wal-checkpointer.ts). Ticks are 10 s apart in production and the checkpointer looks
    // at the WAL every 250 ms, so the copy of one tick's pages runs between ticks; here each tick
    // waits for the previous one's checkpoint before its clock starts.
    const checkpoints = services.walCheckpoints;
    checkpoints.start();
    const betweenTicks = async () => {
      checkpoints.poll();
      await checkpoints.idle();
    };
    const monitor = services.trading.monitor;
    const ticks: Array<{ wallMs: number; cpuMs: number; priceRequests: number; priced: number; actions: number }> = [];
    const runs = o.quick ? 4 : 11;
    for (let i = 0; i < runs; i++) {
      clock.advance(10_000);
      for (const m of mints) fake.setToken(m, { priceUsd: i % 2 === 0 ? "0.0101" : "0.01" });
      const before = fake.requestsTo("jupiter.price").length;
      await betweenTicks();
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const report = await monitor.tick();
      const wallMs = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      ticks.push({
        wallMs,
        cpuMs: (cpu.user + cpu.system) / 1000,
        priceRequests: fake.requestsTo("jupiter.price").length - before,
        priced: report.priced,
        actions: report.actions,
      });
    }
    const steady = ticks.slice(1); // the first tick also takes the hourly balance snapshots and warms the JIT
    const wall = median(steady.map((t) => t.wallMs));
    const cpuMs = median(steady.map((t) => t.cpuMs));
    const requests = Math.max(...steady.map((t) => t.priceRequests));
    if (steady.some((t) => t.priced !== positions))
      o.notice(`monitor tick priced ${steady.map((t) => t.priced).join("/")} of ${positions} positions`);

    // The floor: read the open positions, write their price columns, one transaction. The values
    // change from run to run as the ticks' do: SQLite leaves a page untouched when a row is
    // rewritten with the same bytes, so rewriting the same values (as this floor first did) wrote
    // nothing after its first run — no WAL frames, no checkpoint — and was not the tick's I/O.
    const sq = database.sqlite;
    const floorRuns: number[] = [];
    for (let i = 0; i < 7; i++) {
      const now = new Date(clock.now() + (i + 1) * 10_000).toISOString();
      const [sol, usd] = i % 2 === 0 ? ["0.000101", "0.0101"] : ["0.0001", "0.01"];
      await betweenTicks();
      const t0 = performance.now();
      const open = sq
        .query<{ id: string; tokenAddress: string; entry: string; peak: string }, []>(
          "SELECT id, token_address AS tokenAddress, entry_price_sol AS entry, peak_price_sol AS peak FROM positions WHERE status = 'open'",
        )
        .all();
      const upd = sq.query<unknown, [string, string, string, string, string]>(
        "UPDATE positions SET last_price_sol = ?, last_price_usd = ?, peak_price_sol = ?, updated_at = ? WHERE id = ? AND status = 'open'",
      );
      sq.transaction(() => {
        for (const p of open) upd.run(sol, usd, p.peak, now, p.id);
      })();
      floorRuns.push(performance.now() - t0);
    }
    const floor = median(floorRuns);
    const first = ticks[0]!;
    return [
      row({
        id: "monitor.tick.wall",
        name: `Monitor tick: ${positions.toLocaleString("en-US")} positions, ${TOKENS} tokens (wall)`,
        unit: "ms",
        value: wall,
        baselineName: "raw SQLite read + update of the same rows",
        baselineValue: floor,
        target: "≤ 100 ms",
        check: (_q, v) => v <= 100,
        details: {
          ticks: ticks.map((t) => ({
            wallMs: Math.round(t.wallMs * 10) / 10,
            cpuMs: Math.round(t.cpuMs),
            priceRequests: t.priceRequests,
            actions: t.actions,
          })),
          firstTickMs: first.wallMs,
          floorRunsMs: floorRuns,
        },
      }),
      row({
        id: "monitor.tick.cpu",
        name: "Monitor tick: CPU time",
        unit: "ms",
        value: cpuMs,
        baselineName: "raw SQLite read + update (wall)",
        baselineValue: floor,
        target: "",
        note: "process CPU (user + system) of this process, which also runs the fake market answering the price requests",
      }),
      row({
        id: "monitor.tick.requests",
        name: "Monitor tick: price requests per tick",
        unit: "req",
        value: requests,
        baselineName: "⌈500 tokens ÷ 50 per request⌉",
        baselineValue: Math.ceil(TOKENS / 50),
        target: "≤ 10",
        check: (_q, v) => v <= 10,
      }),
    ];
  } finally {
    await services.stop({ timeoutMs: 5_000 });
    database.close();
    await fake.stop();
  }
}
