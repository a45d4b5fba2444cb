// First: extends zod with .openapi() before any module builds a schema the app documents.
import "@hono/zod-openapi";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { backtestBench } from "./backtest.ts";
import { copyLatency } from "./copy-latency.ts";
import { decisionsBench } from "./decisions.ts";
import { fanOut } from "./fan-out.ts";
import { footprint } from "./footprint.ts";
import { authenticatedRead, authenticatedReadUnderWrites, signalIngest } from "./http-throughput.ts";
import { type BenchOptions, type ServiceUnderTest, startServiceUnderTest } from "./lib/context.ts";
import { loadTool } from "./lib/load.ts";
import { describeMachine, machine } from "./lib/machine.ts";
import { readmeBlock, replaceBetweenMarkers } from "./lib/readme.ts";
import { type BenchRow, renderTable } from "./lib/stats.ts";
import { liveLatency } from "./live-latency.ts";
import { monitorTick } from "./monitor-tick.ts";
import { readDuringDrain } from "./read-during-drain.ts";
import { readScale } from "./read-scale.ts";
import { sizedFanOut } from "./sized-fan-out.ts";

// `npm run bench`: every figure next to the machine's own limit for the same work, measured in
// the same run, reported as a ratio (docs/performance.md). Prints a Markdown table and writes
// bench/results.json.
//
//   bun bench/run.ts [--quick] [--only read,ingest,decisions,fanout,sized,monitor,scale,footprint,events,backtest,live,copy] [--keep] [--update-readme] [--profile DIR]
//
// --quick: shorter load runs and smaller tables (a harness check, not figures to publish).
// --profile DIR: the service child writes a `bun --cpu-prof-md` profile into DIR when it stops.
// --keep: leave the temp directory (databases, service log) for inspection.
// --update-readme: replace the table between the bench markers of docs/performance.md (linked from README).

const ALL = [
  "read",
  "ingest",
  "decisions",
  "fanout",
  "sized",
  "monitor",
  "scale",
  "footprint",
  "events",
  "backtest",
  "live",
  "copy",
] as const;
type Name = (typeof ALL)[number];

const argv = process.argv.slice(2);
const quick = argv.includes("--quick");
const keep = argv.includes("--keep");
const updateReadme = argv.includes("--update-readme");
const profileArg = argv.indexOf("--profile");
const profileDir = profileArg >= 0 ? argv[profileArg + 1] : undefined;
const onlyArg = argv.find((a) => a.startsWith("--only"));
const onlyValue = onlyArg?.includes("=")
  ? onlyArg.split("=")[1]
  : onlyArg
    ? argv[argv.indexOf(onlyArg) + 1]
    : undefined;
const selected = new Set<Name>(onlyValue ? (onlyValue.split(",").map((s) => s.trim()) as Name[]) : ALL);
for (const n of selected) {
  if (!ALL.includes(n)) {
    console.error(`unknown benchmark ${n}; expected some of ${ALL.join(", ")}`);
    process.exit(2);
  }
}

const started = performance.now();
const dir = mkdtempSync(join(tmpdir(), "trading-agent-bench-"));
const notices: string[] = [];
const o: BenchOptions = {
  quick,
  dir,
  profileDir,
  log: (l) => console.log(l),
  notice: (l) => {
    notices.push(l);
    console.log(`notice: ${l}`);
  },
};
const m = machine();
console.log(`machine: ${describeMachine(m)}`);
console.log(`load generator: ${loadTool()}`);
if (quick) o.notice("--quick: short runs and smaller tables; do not publish these figures");

const rows: BenchRow[] = [];
const failures: string[] = [];
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;

async function step(name: string, fn: () => Promise<BenchRow[]>): Promise<void> {
  console.log(`\n[${elapsed()}] ${name}`);
  try {
    const r = await fn();
    rows.push(...r);
    for (const x of r.filter((y) => !Number.isFinite(y.ratio) && y.note?.includes("no ratio")))
      o.notice(`${x.name}: ${x.note}`);
    for (const x of r)
      console.log(
        `  ${x.name}: ${x.value.toFixed(2)} ${x.unit} vs ${x.baselineValue.toFixed(2)} → ${x.ratio.toFixed(3)}${x.met === false ? "  (target missed)" : ""}`,
      );
  } catch (err) {
    const msg = err instanceof Error ? (err.stack ?? err.message) : String(err);
    failures.push(`${name}: ${msg.split("\n")[0]}`);
    console.error(`  FAILED: ${msg}`);
  }
}

const needsService = ["read", "ingest", "fanout", "scale"].some((n) => selected.has(n as Name));
let sut: ServiceUnderTest | null = null;
try {
  if (needsService) {
    console.log(`\n[${elapsed()}] setting up the service under test`);
    sut = await startServiceUnderTest(o);
  }
  const s = sut as ServiceUnderTest;
  if (selected.has("read")) await step("1. authenticated read", () => authenticatedRead(o, s));
  if (selected.has("read"))
    await step("1b. authenticated read, database changing", () => authenticatedReadUnderWrites(o, s));
  if (selected.has("read")) await step("1c. authenticated read during a drain", () => readDuringDrain(o, s));
  if (selected.has("ingest")) await step("2. signal ingest", () => signalIngest(o, s));
  if (selected.has("fanout")) await step("3. fan-out", () => fanOut(o, s));
  if (selected.has("scale")) await step("5. scale of reads", () => readScale(o, s));
  if (sut) {
    await sut.stop();
    sut = null;
  }
  // Runs its own in-process service (see bench/events-latency.ts), so after the child is gone.
  if (selected.has("decisions")) await step("2b. decisions under a burst", () => decisionsBench(o));
  if (selected.has("sized")) await step("3b. sized fan-out at 60 requests/min", () => sizedFanOut(o));
  if (selected.has("events")) await step("SSE event latency", () => eventsLatency(o, null));
  if (selected.has("monitor")) await step("4. monitor tick", () => monitorTick(o));
  if (selected.has("footprint")) await step("6. footprint", () => footprint(o));
  if (selected.has("backtest")) await step("7. backtest", () => backtestBench(o));
  if (selected.has("live")) await step("8. live signal latency", () => liveLatency(o));
  if (selected.has("copy")) await step("9. copy-trading latency", () => copyLatency(o));
} finally {
  if (sut) await sut.stop().catch(() => {});
  if (!keep) rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
}

/** bench/events-latency.ts (SSE commit-to-write latency) is optional: included when present. */
async function eventsLatency(opts: BenchOptions, s: ServiceUnderTest | null): Promise<BenchRow[]> {
  const file = join(import.meta.dir, "events-latency.ts");
  if (!existsSync(file)) {
    opts.notice("bench/events-latency.ts is absent: SSE event latency skipped");
    return [];
  }
  const mod = (await import(file)) as Record<string, unknown>;
  const fn = (mod.eventsLatency ?? mod.default ?? mod.run) as
    | ((o: BenchOptions, s: ServiceUnderTest | null) => Promise<BenchRow[]>)
    | undefined;
  if (typeof fn !== "function") {
    opts.notice("bench/events-latency.ts exports no eventsLatency(options, service) function: skipped");
    return [];
  }
  return fn(opts, s);
}

const totalS = (performance.now() - started) / 1000;
const table = renderTable(rows);
console.log(`\n${table}\n`);
console.log(`machine: ${describeMachine(m)}; load: ${loadTool()}; total ${totalS.toFixed(0)} s`);
for (const n of notices) console.log(`notice: ${n}`);
const missed = rows.filter((r) => r.met === false);
if (missed.length > 0) console.log(`targets missed: ${missed.map((r) => r.name).join("; ")}`);
if (failures.length > 0) console.log(`failed: ${failures.join("; ")}`);

const results = {
  generatedAt: new Date().toISOString(),
  machine: m,
  loadGenerator: loadTool(),
  quick,
  durationS: Math.round(totalS),
  rows,
  notices,
  failures,
  table,
};
const out = join(import.meta.dir, "results.json");
writeFileSync(
  `${out}.tmp`,
  `${JSON.stringify(results, (_k, v) => (typeof v === "number" && !Number.isFinite(v) ? null : v), 2)}\n`,
);
renameSync(`${out}.tmp`, out);
console.log(`wrote ${out}`);
if (updateReadme) {
  if (quick || selected.size !== ALL.length)
    console.error("--update-readme needs a full run (no --quick, no --only): docs/performance.md left as it is");
  else {
    const readme = join(import.meta.dir, "..", "docs", "performance.md");
    const text = readFileSync(readme, "utf8");
    const updated = replaceBetweenMarkers(text, readmeBlock(results));
    if (updated === null)
      console.error("docs/performance.md has no <!-- bench:start --> / <!-- bench:end --> markers: left as it is");
    else {
      writeFileSync(readme, updated);
      console.log("updated the table in docs/performance.md");
    }
  }
}
process.exit(failures.length > 0 ? 1 : 0);
