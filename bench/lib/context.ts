import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { type FakeMarket, startFakeMarket } from "../../test/fakes/market.ts";
import { type Child, freePort, spawnServer } from "./proc.ts";
import {
  BENCH_JWT_SECRET,
  BENCH_PASSWORD,
  BONK,
  openServices,
  type SeedUser,
  seedHistoricalSwaps,
  seedTransactions,
  seedUser,
} from "./seed.ts";

// The service under test: one database seeded in this process, then `bun src/main.ts serve` as a
// child process on 127.0.0.1, wired to the fake market (test/fakes) running in this process.

export const ROOT = resolve(import.meta.dir, "../..");
export const BUN = process.execPath;

export interface BenchOptions {
  /** Shorter runs (CI smoke of the harness): figures are noisier. */
  quick: boolean;
  dir: string;
  log(line: string): void;
  notice(line: string): void;
  /** `--profile DIR`: the service child runs with `bun --cpu-prof-md` and writes its profile there on exit. */
  profileDir?: string;
}

interface Sizes {
  readerAgents: number;
  fanOut: number[];
  fanOutRuns: number;
  transactions: number;
  swaps: number;
}

const sizesFor = (quick: boolean): Sizes =>
  quick
    ? { readerAgents: 20, fanOut: [100, 1000], fanOutRuns: 1, transactions: 100_000, swaps: 10_000 }
    : { readerAgents: 20, fanOut: [100, 1000], fanOutRuns: 3, transactions: 1_000_000, swaps: 100_000 };

/** Tokens the fan-out signals buy: one per run, so every agent is eligible again (one open position per token). */
/** Agents of the drain's user (bench/read-during-drain.ts). */
export const DRAIN_AGENTS = 20;

export const FAN_OUT_TOKENS = [
  BONK,
  "EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm",
  "JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN",
  "7GCihgDB8fe6KNjn2MYtkzZcRjQy3t9GHdC8uHYmW2hr",
];

export interface ServiceUnderTest {
  fake: FakeMarket;
  child: Child;
  /** Stops the service (gracefully), runs `between` on the closed database, starts it again on the same port. */
  restart(between?: () => void | Promise<void>): Promise<void>;
  dbPath: string;
  env: Record<string, string>;
  logFile: string;
  reader: SeedUser;
  ingest: SeedUser;
  /** DRAIN_AGENTS agents with automation off and a signals key: the backlog of bench/read-during-drain.ts. */
  drain: SeedUser;
  fan: Map<number, SeedUser>;
  history: SeedUser & { agentId: string };
  sizes: Sizes;
  stop(): Promise<void>;
}

/** The child's environment: production defaults except what the benchmark must raise (docs/performance.md). */
export function serviceEnv(fake: FakeMarket, dir: string, port: number): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: String(port),
    DATABASE_PATH: join(dir, "bench.db"),
    LOG_LEVEL: "info",
    JWT_SECRET: BENCH_JWT_SECRET,
    ADMIN_EMAIL: "admin@bench.local",
    ADMIN_PASSWORD: BENCH_PASSWORD,
    ALLOW_REGISTRATION: "true",
    // Raised for the run: the ingest load comes from one key, and the fan-out quotes 1,000 agents.
    SIGNAL_RATE_LIMIT_PER_MINUTE: "1000000",
    LOGIN_RATE_LIMIT_PER_MINUTE: "100000",
    SWAP_AGGREGATOR_REQUESTS_PER_MINUTE: "100000000",
    // The monitor loop would otherwise tick over the fan-out's positions in the middle of other
    // measurements; the monitor is measured on its own (monitor tick).
    MONITOR_INTERVAL_SECONDS: "86400",
    ...fake.env(),
    SOLANA_RPC_URL: "",
  };
}

export async function startServiceUnderTest(o: BenchOptions): Promise<ServiceUnderTest> {
  const sizes = sizesFor(o.quick);
  const dir = join(o.dir, "service");
  mkdirSync(dir, { recursive: true });
  const fake = await startFakeMarket();
  fake.setSolPrice(100);
  FAN_OUT_TOKENS.forEach((mint, i) => {
    fake.setToken(mint, {
      symbol: `TK${i}`,
      priceUsd: "0.01",
      decimals: 6,
      liquidityUsd: 250_000,
      marketCapUsd: 3_000_000,
    });
  });
  const port = freePort();
  const env = serviceEnv(fake, dir, port);

  // 1. Seed through the service's own code, then close the database before the service opens it.
  const t0 = performance.now();
  const { services, database } = openServices(env);
  let reader: SeedUser, ingest: SeedUser, drain: SeedUser, history: SeedUser & { agentId: string };
  const fan = new Map<number, SeedUser>();
  try {
    reader = await seedUser(services, "reader@bench.local", sizes.readerAgents);
    ingest = await seedUser(services, "ingest@bench.local", 0, ["signals"]);
    // The drain's agents (bench/read-during-drain.ts): automation off, so each refuses every
    // signal at its first rule, as in the load test and bench/decisions.ts.
    drain = await seedUser(services, "drain@bench.local", DRAIN_AGENTS, ["signals"]);
    for (const id of drain.agentIds) services.agents.update(drain.userId, id, { automatedTradingSimulation: false });
    for (const n of sizes.fanOut) fan.set(n, await seedUser(services, `fan${n}@bench.local`, n, ["signals"]));
    const h = await seedUser(services, "history@bench.local", 1);
    history = { ...h, agentId: h.agentIds[0] as string };
    o.log(
      `  seeded users and ${sizes.readerAgents + DRAIN_AGENTS + sizes.fanOut.reduce((a, b) => a + b, 0) + 1} agents through the domain services (${Math.round(performance.now() - t0)} ms)`,
    );
    const t1 = performance.now();
    const end = Date.now() - 60_000;
    seedTransactions(database.sqlite, history.agentId, sizes.transactions, end);
    seedHistoricalSwaps(database.sqlite, history.agentId, sizes.swaps, end);
    o.log(
      `  seeded ${sizes.transactions.toLocaleString("en-US")} transactions and ${sizes.swaps.toLocaleString("en-US")} historical swaps with raw INSERTs (${Math.round(performance.now() - t1)} ms)`,
    );
  } finally {
    await services.stop({ timeoutMs: 5_000 });
    database.close();
  }

  // 2. The service as a real process.
  const logFile = join(dir, "service.log");
  const spawn = () =>
    spawnServer({
      cmd: [
        BUN,
        ...(o.profileDir ? ["--cpu-prof-md", `--cpu-prof-dir=${o.profileDir}`] : []),
        join(ROOT, "src/main.ts"),
        "serve",
      ],
      env,
      cwd: dir,
      port,
      readyPath: "/api/v1/health/live",
      logFile,
    });
  let child = await spawn();
  o.log(
    `  service pid ${child.pid} listening on ${child.url} (ready in ${Math.round(child.readyMs)} ms; log ${logFile})`,
  );
  return {
    fake,
    get child() {
      return child;
    },
    async restart(between?: () => void | Promise<void>) {
      await child.stop();
      await between?.();
      child = await spawn();
    },
    dbPath: env.DATABASE_PATH as string,
    env,
    logFile,
    reader,
    ingest,
    drain,
    fan,
    history,
    sizes,
    async stop() {
      await child.stop();
      await fake.stop();
    },
  };
}
