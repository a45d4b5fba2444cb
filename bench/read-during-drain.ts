import { openDatabase } from "../src/db/client.ts";
import { agentsRead, CONNECTIONS, type Compared, throughputRows, warmUp } from "./http-throughput.ts";
import { withBaseline } from "./lib/baseline.ts";
import { type BenchOptions, DRAIN_AGENTS, type ServiceUnderTest } from "./lib/context.ts";
import { cpuSecondsOf, runLoad } from "./lib/load.ts";
import { apiKeyIdOf, storePendingSignals } from "./lib/seed.ts";
import { type BenchRow, median } from "./lib/stats.ts";

// 1c. GET /agents while the signal queue drains a backlog (issue 35: "measured with the backlog
// drained, and once during a drain"). A backlog can no longer be built through the API: the
// queue decides a signal for 20 agents about as fast as the same thread accepts one, and refuses
// signals (503) once it lags. So each service round starts from a restart with a backlog, as after
// a crash: the service is stopped, BACKLOG signals for DRAIN_AGENTS agents with automation off are
// stored pending (the 27,000-33,000), and start-up recovery queues them all before the
// API opens. GET /agents is then read for a short warm-up and a measured round while the queue
// decides them; the queue's depth is read from /api/v1/health before and after the round, and a
// round that began without a backlog or whose backlog ran out early is named in the row's note.
// The baseline is the bare Bun.serve sending the same JSON, its rounds taken with the service idle.

const BACKLOG = 40_000;

interface QueueState {
  depth: number;
  lagSeconds: number;
}

async function queueState(url: string): Promise<QueueState> {
  const res = await fetch(`${url}/api/v1/health`);
  const body = (await res.json()) as { services: { queue: { depth?: number; lagSeconds?: number } } };
  return { depth: body.services.queue.depth ?? 0, lagSeconds: body.services.queue.lagSeconds ?? 0 };
}

/** Waits until the queue holds nothing (before a baseline round, and before the next benchmark). */
async function drained(url: string, timeoutMs = 180_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while ((await queueState(url)).depth > 0) {
    if (Date.now() > until) throw new Error("the signal queue did not drain within three minutes");
    await Bun.sleep(200);
  }
}

/** Stores `n` pending signals of the drain's user in the closed database, as the API stores them. */
function storeBacklog(s: ServiceUnderTest, n: number): void {
  const db = openDatabase(s.dbPath);
  try {
    storePendingSignals(db.sqlite, s.drain.userId, apiKeyIdOf(db.sqlite, s.drain.userId), n, "drain");
  } finally {
    db.close();
  }
}

export async function readDuringDrain(o: BenchOptions, s: ServiceUnderTest): Promise<BenchRow[]> {
  const { path, headers, count, bodyFile } = await agentsRead(o, s, "agents-drain.json");
  const backlog = o.quick ? 8_000 : BACKLOG;
  const rounds = o.quick ? 1 : 3;
  const durationS = o.quick ? 2 : 4;
  const during: Array<{ before: QueueState; after: QueueState }> = [];
  const c = await withBaseline(o, { BENCH_MODE: "get-json", BENCH_BODY_FILE: bodyFile }, async (baseUrl, child) => {
    const serviceSpec = { url: s.child.url + path, headers };
    const baselineSpec = { url: baseUrl + path, headers };
    await warmUp(o, serviceSpec, baselineSpec);
    const out: Compared = { service: [], baseline: [], baselineBusyCores: [] };
    for (let i = 0; i < rounds; i++) {
      await drained(s.child.url);
      const cpu0 = cpuSecondsOf(child.pid);
      const base = await runLoad({ ...baselineSpec, connections: CONNECTIONS, durationS });
      out.baselineBusyCores.push((cpuSecondsOf(child.pid) - cpu0) / base.durationS);
      out.baseline.push(base);
      await s.restart(() => storeBacklog(s, backlog));
      // The restarted service's JIT compiles the read path again: a second of reads not counted.
      await runLoad({ ...serviceSpec, connections: CONNECTIONS, durationS: 1 });
      const before = await queueState(s.child.url);
      out.service.push(await runLoad({ ...serviceSpec, connections: CONNECTIONS, durationS }));
      const after = await queueState(s.child.url);
      during.push({ before, after });
    }
    await drained(s.child.url);
    return out;
  });
  const rows = throughputRows(
    "read.agents-during-drain",
    `GET /agents, JWT, ${count} agents, while the queue drains a backlog of ${backlog.toLocaleString("en-US")} signals for ${DRAIN_AGENTS} agents`,
    "bare Bun.serve, same JSON",
    0.4,
    c,
  );
  const noBacklog = during.filter((d) => d.before.depth === 0).length;
  const ranOut = during.filter((d) => d.before.depth > 0 && d.after.depth === 0).length;
  const first = rows[0] as BenchRow;
  first.details = {
    ...first.details,
    backlog: during.map((d) => ({
      depthBefore: d.before.depth,
      lagSecondsBefore: d.before.lagSeconds,
      depthAfter: d.after.depth,
    })),
    medianBacklogAtStart: median(during.map((d) => d.before.depth)),
  };
  // No target of its own (row 1 carries the 0.40): it shows what a drain costs the readers.
  first.target = "";
  first.met = null;
  const notes = [
    first.note,
    noBacklog > 0 ? `${noBacklog} of ${rounds} rounds began with no backlog (not a drain)` : "",
    ranOut > 0 ? `the backlog ran out before the end of ${ranOut} of ${rounds} rounds` : "",
  ];
  first.note = notes.filter(Boolean).join("; ") || undefined;
  return rows;
}
