import { Database } from "bun:sqlite";
import { withBaseline } from "./lib/baseline.ts";
import type { BenchOptions, ServiceUnderTest } from "./lib/context.ts";
import { rssBytes, sampleRss } from "./lib/proc.ts";
import { type BenchRow, formatBytes, row, summarize } from "./lib/stats.ts";

// 5. Scale of reads: one agent with 1,000,000 transactions and 100,000 historical swaps.
//   - a filtered page: GET /agent-transactions?agentId&transactionType=BUY&limit=100, one request
//     at a time, p50/p99, against bun:sqlite running the same query on the same file;
//   - the CSV export of all 100,000 swaps: time per export against bun:sqlite reading the same
//     rows; and the service's RSS growth during it (sampled from /proc every 5 ms) against a bare
//     Bun.serve streaming as many bytes, "flat" meaning no more than twice the growth of an export
//     of a tenth of the rows (growth that follows the row count would be ten times).

export async function readScale(o: BenchOptions, s: ServiceUnderTest): Promise<BenchRow[]> {
  const agentId = s.history.agentId;
  const headers = { authorization: `Bearer ${s.history.token}` };
  const ro = new Database(s.dbPath, { readonly: true });
  ro.exec("PRAGMA busy_timeout = 5000");
  try {
    // --- filtered page
    const pageUrl = `${s.child.url}/api/v1/agent-transactions?agentId=${agentId}&transactionType=BUY&limit=100`;
    const n = o.quick ? 100 : 400;
    const get = async () => {
      const t0 = performance.now();
      const res = await fetch(pageUrl, { headers });
      const body = await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`page answered ${res.status}: ${new TextDecoder().decode(body)}`);
      return performance.now() - t0;
    };
    const first = await fetch(pageUrl, { headers }).then((r) => r.json() as Promise<unknown[]>);
    if (first.length !== 100) throw new Error(`page returned ${first.length} rows, expected 100`);
    for (let i = 0; i < 20; i++) await get();
    const pageMs: number[] = [];
    for (let i = 0; i < n; i++) pageMs.push(await get());
    const rawPage = ro.query(
      "SELECT * FROM agent_transactions WHERE agent_id = ? AND transaction_type = 'BUY' ORDER BY transaction_time DESC, rowid DESC LIMIT 100 OFFSET 0",
    );
    const rawPageMs: number[] = [];
    for (let i = 0; i < 20; i++) rawPage.all(agentId);
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      rawPage.all(agentId);
      rawPageMs.push(performance.now() - t0);
    }
    const page = summarize(pageMs);
    const rawP = summarize(rawPageMs);

    // --- CSV export
    const exportUrl = `${s.child.url}/api/v1/agent-historical-swaps/export?agentId=${agentId}`;
    const runs = o.quick ? 2 : 5;
    /** Downloads an export, sampling the serving process's RSS; growth is over its RSS just before. */
    const download = async (url: string, pid: number, reqHeaders: Record<string, string>) => {
      const before = rssBytes(pid);
      const sampler = sampleRss(pid, 5);
      const t0 = performance.now();
      const res = await fetch(url, { headers: reqHeaders });
      if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`);
      let bytes = 0;
      let lines = 0;
      for await (const chunk of res.body as ReadableStream<Uint8Array>) {
        bytes += chunk.byteLength;
        for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
      }
      const ms = performance.now() - t0;
      const peak = sampler.stop();
      return { ms, bytes, lines, peakRss: peak, growth: peak - before };
    };
    await Bun.sleep(500);
    const idleRss = rssBytes(s.child.pid);
    // "Flat" means independent of the row count: the newest tenth of the rows first, then all.
    const tenth = Math.floor(s.sizes.swaps / 10);
    const cut = ro
      .query<{ t: string }, [string, number]>(
        "SELECT sale_time AS t FROM historical_swaps WHERE agent_id = ? ORDER BY sale_time DESC, rowid DESC LIMIT 1 OFFSET ?",
      )
      .get(agentId, tenth - 1)!.t;
    const small = await download(`${exportUrl}&startSaleTime=${encodeURIComponent(cut)}`, s.child.pid, headers);
    const exports: Array<Awaited<ReturnType<typeof download>>> = [];
    for (let i = 0; i < runs; i++) exports.push(await download(exportUrl, s.child.pid, headers));
    const rows = exports[0]!.lines - 1;
    if (rows !== s.sizes.swaps) o.notice(`export returned ${rows} rows, expected ${s.sizes.swaps}`);
    const rawExport = ro.query("SELECT * FROM historical_swaps WHERE agent_id = ? ORDER BY sale_time DESC, rowid DESC");
    const rawExportMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      let k = 0;
      for (const _r of rawExport.iterate(agentId)) k++;
      rawExportMs.push(performance.now() - t0);
      if (k !== s.sizes.swaps) throw new Error(`raw export read ${k} rows`);
    }
    // Memory baseline: a bare Bun.serve streaming as many bytes the same way.
    const csvBytes = exports[0]!.bytes;
    const bare = await withBaseline(
      o,
      {
        BENCH_MODE: "stream-csv",
        BENCH_LINES: String(rows + 1),
        BENCH_LINE_BYTES: String(Math.round(csvBytes / (rows + 1))),
      },
      async (url, child) => {
        await Bun.sleep(300);
        const first = await download(`${url}/export`, child.pid, {});
        return first;
      },
    );
    const exp = summarize(exports.map((e) => e.ms));
    const rawE = summarize(rawExportMs);
    const growth = exports[0]!.growth;
    const mib = (b: number) => b / 1048576;
    const label = `${(s.sizes.transactions / 1e6).toLocaleString("en-US")}M transactions`;

    return [
      row({
        id: "scale.transactions.page.p50",
        name: `Filtered page of 100 (BUY) among ${label}: p50`,
        unit: "ms",
        value: page.p50,
        baselineName: "raw SQLite, same query",
        baselineValue: rawP.p50,
        target: "",
        details: { service: page, raw: rawP },
      }),
      row({
        id: "scale.transactions.page.p99",
        name: `Filtered page of 100 (BUY) among ${label}: p99`,
        unit: "ms",
        value: page.p99,
        baselineName: "raw SQLite, same query",
        baselineValue: rawP.p99,
        target: "",
      }),
      row({
        id: "scale.swaps.export.p50",
        name: `CSV export of ${s.sizes.swaps.toLocaleString("en-US")} historical swaps: p50`,
        unit: "ms",
        value: exp.p50,
        baselineName: "raw SQLite reading the same rows",
        baselineValue: rawE.p50,
        target: "",
        details: {
          service: exp,
          raw: rawE,
          bytes: csvBytes,
          runs: exports.map((e) => ({ ms: Math.round(e.ms), growthMiB: Math.round(mib(e.growth)) })),
        },
      }),
      row({
        id: "scale.swaps.export.p99",
        name: `CSV export of ${s.sizes.swaps.toLocaleString("en-US")} historical swaps: p99 (n=${runs})`,
        unit: "ms",
        value: exp.p99,
        baselineName: "raw SQLite reading the same rows",
        baselineValue: rawE.p99,
        target: "",
      }),
      row({
        id: "scale.swaps.export.rss",
        name: `CSV export: service RSS growth while streaming ${formatBytes(csvBytes)} (idle ${formatBytes(idleRss)})`,
        unit: "MiB",
        value: mib(growth),
        baselineName: "bare Bun.serve streaming the same bytes",
        baselineValue: mib(bare.growth),
        target: `flat: ≤ 2× the ${tenth.toLocaleString("en-US")}-row export's`,
        check: () => growth <= 2 * Math.max(small.growth, 8 * 1048576),
        details: {
          idleRssBytes: idleRss,
          growthBytes: growth,
          tenthRowsGrowthBytes: small.growth,
          bareGrowthBytes: bare.growth,
          csvBytes,
          peakRssAcrossRunsBytes: Math.max(...exports.map((e) => e.peakRss)),
        },
        note: `growth ${formatBytes(small.growth)} for ${tenth.toLocaleString("en-US")} rows, ${formatBytes(growth)} for ${rows.toLocaleString("en-US")}`,
      }),
    ];
  } finally {
    ro.close();
  }
}
