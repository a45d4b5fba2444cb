import { Database } from "bun:sqlite";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../src/db/client.ts";
import { withBaseline } from "./lib/baseline.ts";
import type { BenchOptions, ServiceUnderTest } from "./lib/context.ts";
import { cpuSecondsOf, type LoadResult, type LoadSpec, runLoad, SATURATED_CORES } from "./lib/load.ts";
import { BONK } from "./lib/seed.ts";
import { type BenchRow, median, row } from "./lib/stats.ts";

// 1. Authenticated read and 2. signal ingest: the service against a bare Bun.serve process doing
// the least the same request needs, loaded by wrk with the same connections and duration,
// alternating rounds so that drift on the machine hits both alike. A ratio is only printed when
// wrk saturated the baseline: the baseline process's CPU time over each round (from /proc) must
// be at least SATURATED_CORES of a core; otherwise the baseline was waiting for requests, the
// generator set the pace, and the row says so instead of giving a ratio (issue 35).

export const CONNECTIONS = 32;

export interface Compared {
  service: LoadResult[];
  baseline: LoadResult[];
  /** Cores the baseline process used during each of its rounds (CPU seconds ÷ round length). */
  baselineBusyCores: number[];
}

async function compare(
  o: BenchOptions,
  serviceSpec: Omit<LoadSpec, "durationS" | "connections">,
  baselineSpec: Omit<LoadSpec, "durationS" | "connections">,
  baselinePid: number,
): Promise<Compared> {
  const rounds = o.quick ? 1 : 3;
  const durationS = o.quick ? 2 : 4;
  await warmUp(o, serviceSpec, baselineSpec);
  const out: Compared = { service: [], baseline: [], baselineBusyCores: [] };
  for (let i = 0; i < rounds; i++) {
    const cpu0 = cpuSecondsOf(baselinePid);
    const base = await runLoad({ ...baselineSpec, connections: CONNECTIONS, durationS });
    out.baselineBusyCores.push((cpuSecondsOf(baselinePid) - cpu0) / base.durationS);
    out.baseline.push(base);
    out.service.push(await runLoad({ ...serviceSpec, connections: CONNECTIONS, durationS }));
  }
  return out;
}

/**
 * Warm-up, not counted: JIT, connection pools, SQLite's page cache. Three seconds each: after one,
 * the service's JIT threads were still compiling the request path through the first round
 * (a tenth of its CPU on this machine), so that round measured the compiler as well.
 */
export async function warmUp(
  o: BenchOptions,
  serviceSpec: Omit<LoadSpec, "durationS" | "connections">,
  baselineSpec: Omit<LoadSpec, "durationS" | "connections">,
): Promise<void> {
  const durationS = o.quick ? 1 : 3;
  await runLoad({ ...baselineSpec, connections: CONNECTIONS, durationS });
  await runLoad({ ...serviceSpec, connections: CONNECTIONS, durationS });
}

const med = (rs: LoadResult[], f: (r: LoadResult) => number) => median(rs.map(f));

export function throughputRows(
  id: string,
  label: string,
  baselineName: string,
  target: number,
  c: Compared,
): BenchRow[] {
  const rps = med(c.service, (r) => r.rps);
  const baseRps = med(c.baseline, (r) => r.rps);
  const errors = c.service.reduce((a, r) => a + r.errors, 0);
  const busy = median(c.baselineBusyCores);
  const saturated = busy >= SATURATED_CORES;
  const details = {
    tool: c.service[0]?.tool,
    connections: CONNECTIONS,
    rounds: c.service.length,
    serviceRps: c.service.map((r) => Math.round(r.rps)),
    baselineRps: c.baseline.map((r) => Math.round(r.rps)),
    serviceLatencyMs: { p50: med(c.service, (r) => r.latencyMs.p50), p99: med(c.service, (r) => r.latencyMs.p99) },
    baselineLatencyMs: { p50: med(c.baseline, (r) => r.latencyMs.p50), p99: med(c.baseline, (r) => r.latencyMs.p99) },
    serviceErrors: errors,
    baselineBusyCores: c.baselineBusyCores.map((b) => Math.round(b * 100) / 100),
  };
  const notes = [
    errors > 0 ? `${errors} failed or non-2xx responses during the run` : "",
    saturated
      ? ""
      : `no ratio: wrk did not saturate the baseline (it used ${busy.toFixed(2)} of a core, needs ${SATURATED_CORES}); the load generator or a busy machine set the pace`,
  ].filter(Boolean);
  const note = notes.length ? notes.join("; ") : undefined;
  const refused = (r: BenchRow): BenchRow => (saturated ? r : { ...r, ratio: Number.NaN, met: null });
  return [
    row({
      id: `${id}.throughput`,
      name: `${label}: throughput`,
      unit: "req/s",
      value: rps,
      baselineName,
      baselineValue: baseRps,
      target: `≥ ${target.toFixed(2)}`,
      check: (q) => q >= target && errors === 0,
      details,
      note,
    }),
    row({
      id: `${id}.p99`,
      name: `${label}: p99 latency at ${CONNECTIONS} connections`,
      unit: "ms",
      value: details.serviceLatencyMs.p99,
      baselineName,
      baselineValue: details.baselineLatencyMs.p99,
      target: "",
      details: { p50: details.serviceLatencyMs.p50, baselineP50: details.baselineLatencyMs.p50 },
    }),
  ].map(refused);
}

/**
 * The reader's GET /api/v1/agents as the service answers it now, written to `fileName` for the
 * baseline to send the same bytes.
 */
export async function agentsRead(o: BenchOptions, s: ServiceUnderTest, fileName: string) {
  const path = "/api/v1/agents";
  const headers = { authorization: `Bearer ${s.reader.token}` };
  const res = await fetch(s.child.url + path, { headers });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${text}`);
  const bodyFile = join(o.dir, fileName);
  writeFileSync(bodyFile, text);
  return { path, headers, text, count: (JSON.parse(text) as unknown[]).length, bodyFile };
}

/** 1. GET /api/v1/agents with a JWT (20 agents) vs a bare Bun.serve sending the same JSON. */
export async function authenticatedRead(o: BenchOptions, s: ServiceUnderTest): Promise<BenchRow[]> {
  const { path, headers, text, count, bodyFile } = await agentsRead(o, s, "agents.json");
  const c = await withBaseline(o, { BENCH_MODE: "get-json", BENCH_BODY_FILE: bodyFile }, (baseUrl, child) =>
    compare(o, { url: s.child.url + path, headers }, { url: baseUrl + path, headers }, child.pid),
  );
  const rows = throughputRows("read.agents", `GET /agents, JWT, ${count} agents`, "bare Bun.serve, same JSON", 0.4, c);
  (rows[0] as BenchRow).details!.responseBytes = text.length;
  return rows;
}

/**
 * 1b. The same read while another connection commits 20 times a second (a signal bot, the
 * monitor): every commit changes the database's change stamp, so kept answers are dropped and
 * most requests run the handler. The writes touch no row the answer reads.
 */
export async function authenticatedReadUnderWrites(o: BenchOptions, s: ServiceUnderTest): Promise<BenchRow[]> {
  const writer = new Database(s.dbPath);
  writer.exec("PRAGMA busy_timeout = 5000");
  writer.exec("CREATE TABLE IF NOT EXISTS bench_ticks (n INTEGER NOT NULL)");
  const tick = writer.query("INSERT INTO bench_ticks (n) VALUES (?)");
  let n = 0;
  const timer = setInterval(() => tick.run(++n), 50);
  try {
    const rows = await authenticatedRead(o, s);
    return rows.map((r) => ({
      ...r,
      id: r.id.replace("read.agents", "read.agents-under-writes"),
      name: r.name.replace("GET /agents, JWT", "GET /agents, JWT, 20 commits/s by another connection"),
      details: { ...r.details, commits: n },
    }));
  } finally {
    clearInterval(timer);
    writer.close();
  }
}

/** 2. POST /api/v1/trading-signals with an API key vs a bare Bun.serve parsing the JSON body. */
export async function signalIngest(o: BenchOptions, s: ServiceUnderTest): Promise<BenchRow[]> {
  const path = "/api/v1/trading-signals";
  const body = JSON.stringify({
    tokenAddress: BONK,
    symbol: "BONK",
    signalType: "buy",
    signalStrength: 4,
    source: "bench",
  });
  const headers = { "content-type": "application/json", "x-api-key": s.ingest.apiKey as string };
  const probe = await fetch(s.child.url + path, { method: "POST", headers, body });
  if (probe.status !== 201) throw new Error(`POST ${path} answered ${probe.status}: ${await probe.text()}`);
  await probe.arrayBuffer();
  const c = await withBaseline(o, { BENCH_MODE: "accept-json" }, (baseUrl, child) =>
    compare(
      o,
      { url: s.child.url + path, method: "POST", headers, body },
      { url: baseUrl + path, method: "POST", headers, body },
      child.pid,
    ),
  );
  const rows = throughputRows(
    "ingest.signals",
    "POST /trading-signals, API key",
    "bare Bun.serve, JSON body parsed",
    0.25,
    c,
  );
  (rows[0] as BenchRow).note = [
    rows[0]?.note,
    "the signals' owner has no agents: this is intake (auth, limit, validation, insert, queue), not trading",
  ]
    .filter(Boolean)
    .join("; ");
  const commit = durableInsertsPerSecond(o.dir);
  rows.push(
    row({
      id: "ingest.signals.vs-commit",
      name: "POST /trading-signals vs one durable insert per request",
      unit: "req/s",
      value: (rows[0] as BenchRow).value,
      baselineName: "raw SQLite, 1 INSERT + commit each",
      baselineValue: commit,
      target: "",
      note: "concurrent signals share one commit (group commit); each writes its row, the key's use count and its processed status",
    }),
  );
  return rows;
}

/**
 * The machine's limit for a request that must be durable before it answers: single-row INSERTs
 * of a signal, each its own transaction, on a fresh database with the service's schema and PRAGMAs.
 */
export function durableInsertsPerSecond(dir: string, n = 3000): number {
  const db = openDatabase(join(dir, "commit-floor.db"));
  try {
    const now = new Date().toISOString();
    const user = crypto.randomUUID();
    db.sqlite
      .query(
        "INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES (?, 'floor@bench.local', 'x', ?, ?)",
      )
      .run(user, now, now);
    const ins = db.sqlite.query(
      `INSERT INTO trading_signals (user_id, api_key_id, token_address, symbol, signal_type, activation_reason, signal_strength, source, processing_status, created_at, updated_at)
       VALUES (?, 'k', ?, 'BONK', 'buy', NULL, 4, 'bench', 'pending', ?, ?)`,
    );
    for (let i = 0; i < 200; i++) ins.run(user, BONK, now, now);
    const t0 = performance.now();
    for (let i = 0; i < n; i++) ins.run(user, BONK, now, now);
    return n / ((performance.now() - t0) / 1000);
  } finally {
    db.close();
  }
}
