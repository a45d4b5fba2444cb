import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CONNECTIONS, type Compared, throughputRows, warmUp } from "./http-throughput.ts";
import { withBaseline } from "./lib/baseline.ts";
import type { BenchOptions, ServiceUnderTest } from "./lib/context.ts";
import { cpuSecondsOf, type LoadSpec, runLoad } from "./lib/load.ts";
import { BONK } from "./lib/seed.ts";
import { type BenchRow, median } from "./lib/stats.ts";

// 1c. GET /agents while the signal queue drains a backlog (issue 35: "measured with the backlog
// drained, and once during a drain"). Before each service round, wrk posts signals for 20 agents
// with automation off (ServiceUnderTest.drain) as fast as the service takes them; the round then
// reads GET /agents while the queue decides that backlog. The queue's depth is read from
// /api/v1/health before and after the round: a round whose backlog ran out before its end says
// so in the details. The baseline is the bare Bun.serve sending the same JSON, as in row 1,
// alternating with the service's rounds.

const BURST_S = 2;

interface QueueState {
  depth: number;
  lagSeconds: number;
}

async function queueState(url: string): Promise<QueueState> {
  const res = await fetch(`${url}/api/v1/health`);
  const body = (await res.json()) as { services: { queue: { depth?: number; lagSeconds?: number } } };
  return { depth: body.services.queue.depth ?? 0, lagSeconds: body.services.queue.lagSeconds ?? 0 };
}

/** Waits until the queue holds nothing (between rounds, and before the next benchmark). */
async function drained(url: string, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while ((await queueState(url)).depth > 0) {
    if (Date.now() > until) throw new Error("the signal queue did not drain within two minutes");
    await Bun.sleep(200);
  }
}

export async function readDuringDrain(o: BenchOptions, s: ServiceUnderTest): Promise<BenchRow[]> {
  const path = "/api/v1/agents";
  const headers = { authorization: `Bearer ${s.reader.token}` };
  const res = await fetch(s.child.url + path, { headers });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${text}`);
  const count = (JSON.parse(text) as unknown[]).length;
  const bodyFile = join(o.dir, "agents-drain.json");
  writeFileSync(bodyFile, text);
  const burst: Omit<LoadSpec, "connections" | "durationS"> = {
    url: `${s.child.url}/api/v1/trading-signals`,
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": s.drain.apiKey as string },
    body: JSON.stringify({ tokenAddress: BONK, symbol: "BONK", signalType: "buy", signalStrength: 4, source: "drain" }),
  };
  const rounds = o.quick ? 1 : 3;
  const durationS = o.quick ? 2 : 4;
  const during: Array<{ before: QueueState; after: QueueState; posted: number }> = [];
  const c = await withBaseline(o, { BENCH_MODE: "get-json", BENCH_BODY_FILE: bodyFile }, async (baseUrl, child) => {
    const serviceSpec = { url: s.child.url + path, headers };
    const baselineSpec = { url: baseUrl + path, headers };
    await warmUp(o, serviceSpec, baselineSpec);
    const out: Compared = { service: [], baseline: [], baselineBusyCores: [] };
    for (let i = 0; i < rounds; i++) {
      // The last round's backlog must be gone before the baseline's round: the service deciding
      // it meanwhile would take the baseline's CPU and flatter the ratio.
      await drained(s.child.url);
      const cpu0 = cpuSecondsOf(child.pid);
      const base = await runLoad({ ...baselineSpec, connections: CONNECTIONS, durationS });
      out.baselineBusyCores.push((cpuSecondsOf(child.pid) - cpu0) / base.durationS);
      out.baseline.push(base);
      const posted = await runLoad({ ...burst, connections: CONNECTIONS, durationS: BURST_S });
      const before = await queueState(s.child.url);
      out.service.push(await runLoad({ ...serviceSpec, connections: CONNECTIONS, durationS }));
      const after = await queueState(s.child.url);
      during.push({ before, after, posted: posted.requests - posted.non2xx });
    }
    await drained(s.child.url);
    return out;
  });
  const rows = throughputRows(
    "read.agents-during-drain",
    `GET /agents, JWT, ${count} agents, while the queue drains a burst of signals for 20 agents`,
    "bare Bun.serve, same JSON",
    0.4,
    c,
  );
  const ranOut = during.filter((d) => d.after.depth === 0).length;
  const first = rows[0] as BenchRow;
  first.details = {
    ...first.details,
    backlog: during.map((d) => ({ posted: d.posted, depthBefore: d.before.depth, depthAfter: d.after.depth })),
    medianBacklogAtStart: median(during.map((d) => d.before.depth)),
  };
  // The measurement: a read while the agents decide. No target of its own (row 1 carries
  // the 0.40); it shows what a drain costs the readers.
  first.target = "";
  first.met = null;
  const notes = [first.note, ranOut > 0 ? `the backlog ran out before the end of ${ranOut} of ${rounds} rounds` : ""];
  first.note = notes.filter(Boolean).join("; ") || undefined;
  return rows;
}
