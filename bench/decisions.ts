import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startFakeMarket } from "../test/fakes/market.ts";
import type { BenchOptions } from "./lib/context.ts";
import { apiKeyIdOf, BONK, inProcessEnv, openServices, seedUser, storePendingSignals } from "./lib/seed.ts";
import { type BenchRow, row } from "./lib/stats.ts";

// Decisions under a burst (issue 35; docs/decisions/under-load.md): 30,000 signals stored as
// POST /trading-signals stores them (pending), then handed to the queue at once, as start-up
// recovery hands a backlog over, and decided by the real processor for 20 agents with automation
// off (every agent refuses at the first rule: the cheapest decision, and the one most agents make).
// Figure: decided signals/s and agent-decisions/s from the hand-over to an idle queue.
// Floor, in the same run on the same connection and schema: raw bun:sqlite writing the same
// evaluation rows (20 per signal, 100 rows per prepared statement) and the signal's processed
// status, 500 signals per transaction.

const AGENTS = 20;

export async function decisionsBench(o: BenchOptions): Promise<BenchRow[]> {
  const signalsN = o.quick ? 5_000 : 30_000;
  const dir = join(o.dir, "decisions");
  mkdirSync(dir, { recursive: true });
  const fake = await startFakeMarket();
  const env = inProcessEnv(join(dir, "decisions.db"), fake.env(), {
    // A burst stored before the clock starts is not stale, and nothing here is refused for lag.
    SIGNAL_MAX_AGE_SECONDS: "86400",
    SIGNAL_QUEUE_MAX_LAG_SECONDS: "3600",
  });
  const { services, database } = openServices(env);
  const sqlite = database.sqlite;
  try {
    const user = await seedUser(services, "decisions@bench.local", AGENTS, ["signals"]);
    for (const id of user.agentIds) services.agents.update(user.userId, id, { automatedTradingSimulation: false });
    const keyId = apiKeyIdOf(sqlite, user.userId);
    const store = (n: number) => storePendingSignals(sqlite, user.userId, keyId, n, "bench");
    // Warm-up (JIT, statement cache), not counted.
    store(500);
    services.signalIntake.recover(services.signals);
    await services.signalQueue.idle();

    store(signalsN);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const handed = services.signalIntake.recover(services.signals).resume.length;
    await services.signalQueue.idle();
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const undecided = sqlite
      .query<{ n: number }, []>(
        "SELECT count(*) AS n FROM trading_signals WHERE processing_status IN ('pending','processing')",
      )
      .get()!.n;
    if (handed !== signalsN || undecided !== 0)
      throw new Error(`decisions bench: ${handed} handed over, ${undecided} left undecided`);
    const decided = signalsN / seconds;
    o.log(
      `  service: ${signalsN} signals × ${AGENTS} agents in ${seconds.toFixed(2)} s (cpu ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s)`,
    );

    const floor = rawFloor(sqlite, user.userId, keyId, user.agentIds, signalsN);
    o.log(`  floor: ${floor.toFixed(0)} signals/s`);
    const details = { signals: signalsN, agents: AGENTS, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
    return [
      row({
        id: "decisions.signals",
        name: `Decisions: burst of ${signalsN.toLocaleString("en-US")} signals, ${AGENTS} agents (automation off)`,
        unit: "signals/s",
        value: decided,
        baselineName: "raw SQLite writing the same evaluation rows",
        baselineValue: floor,
        target: "≥ 5,000 signals/s",
        check: () => decided >= 5_000,
        details,
      }),
      row({
        id: "decisions.agent-decisions",
        name: "Decisions: agent-decisions",
        unit: "decisions/s",
        value: decided * AGENTS,
        baselineName: "raw SQLite writing the same evaluation rows",
        baselineValue: floor * AGENTS,
        target: "≥ 100,000 decisions/s",
        check: () => decided * AGENTS >= 100_000,
        details,
      }),
    ];
  } finally {
    await services.stop();
    database.close();
    await fake.stop();
  }
}

/** Signals/s of raw prepared statements writing what a decision writes, 500 signals per commit. */
function rawFloor(
  sqlite: ReturnType<typeof openServices>["database"]["sqlite"],
  userId: string,
  keyId: string,
  agentIds: string[],
  n: number,
): number {
  const now = new Date().toISOString();
  const insertSignal = sqlite.query<{ id: number }, [string, string, string, string, string]>(
    `INSERT INTO trading_signals (user_id, api_key_id, token_address, symbol, signal_type, activation_reason, signal_strength, source, processing_status, created_at, updated_at)
     VALUES (?, ?, ?, 'BONK', 'buy', NULL, 4, 'bench', 'pending', ?, ?) RETURNING id`,
  );
  const ids: number[] = [];
  sqlite.transaction(() => {
    for (let i = 0; i < n; i++) ids.push(insertSignal.get(userId, keyId, BONK, now, now)!.id);
  })();
  // 100 rows per prepared statement (5 signals × 20 agents), as fast as raw SQLite takes them.
  const perStatement = Math.floor(100 / agentIds.length) || 1;
  const values = (k: number) => Array.from({ length: k }, () => "(?, ?, 0, ?, 'skipped', ?)").join(",");
  const evaluations = sqlite.prepare(
    `INSERT OR REPLACE INTO signal_evaluations (signal_id, agent_id, eligible, reason, outcome, created_at) VALUES ${values(perStatement * agentIds.length)}`,
  );
  const processed = sqlite.prepare(
    "UPDATE trading_signals SET processing_status = 'processed', processed_at = ? WHERE id = ?",
  );
  const reason = "automation: Automated trading is disabled for simulation mode";
  const t0 = performance.now();
  for (let i = 0; i < ids.length; i += 500) {
    sqlite.transaction(() => {
      const batch = ids.slice(i, i + 500);
      for (let j = 0; j + perStatement <= batch.length; j += perStatement) {
        const params: Array<string | number> = [];
        for (const id of batch.slice(j, j + perStatement)) for (const a of agentIds) params.push(id, a, reason, now);
        evaluations.run(...params);
      }
      for (const id of batch) processed.run(now, id);
    })();
  }
  return n / ((performance.now() - t0) / 1000);
}
