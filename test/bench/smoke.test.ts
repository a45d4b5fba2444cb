import { describe, expect, test } from "bun:test";
import { luaString, parseWrkOutput, wrkScript } from "../../bench/lib/load.ts";
import { END, replaceBetweenMarkers, START } from "../../bench/lib/readme.ts";
import {
  formatRatio,
  formatValue,
  median,
  percentile,
  ratio,
  renderTable,
  row,
  summarize,
} from "../../bench/lib/stats.ts";

// The benchmark (npm run bench) is not part of the test suite; this imports its pure helpers so a
// syntax or type break in bench/ shows up in `bun test`, and pins the arithmetic the table uses.

describe("bench helpers", () => {
  test("nearest-rank percentiles", () => {
    const xs = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(percentile(xs, 50)).toBe(5);
    expect(percentile(xs, 90)).toBe(9);
    expect(percentile(xs, 99)).toBe(10);
    expect(percentile(xs, 100)).toBe(10);
    expect(percentile(xs, 0)).toBe(1);
    expect(percentile([42], 99)).toBe(42);
    expect(Number.isNaN(percentile([], 50))).toBe(true);
    expect(() => percentile(xs, 101)).toThrow("percentile must be within 0..100, got 101");
    expect(median([3, 1, 2])).toBe(2);
    expect(summarize([1, 2, 3, 4])).toEqual({ n: 4, min: 1, p50: 2, p90: 4, p99: 4, max: 4, mean: 2.5 });
  });

  test("ratios and their formatting", () => {
    expect(ratio(20, 50)).toBe(0.4);
    expect(Number.isNaN(ratio(1, 0))).toBe(true);
    expect(Number.isNaN(ratio(Number.NaN, 1))).toBe(true);
    expect(formatRatio(0.4321)).toBe("0.43");
    expect(formatRatio(2.5)).toBe("2.50×");
    expect(formatRatio(12.34)).toBe("12.3×");
    expect(formatRatio(115.3)).toBe("115×");
    expect(formatRatio(Number.NaN)).toBe("n/a");
    expect(formatValue(1234.5, "req/s")).toBe("1,235 req/s");
    expect(formatValue(4.56789, "ms")).toBe("4.57 ms");
    expect(formatValue(0.5467, "ms")).toBe("0.547 ms");
  });

  test("a row computes its ratio and whether the target is met; the table escapes pipes", () => {
    const r = row({
      id: "x",
      name: "GET /a | b",
      unit: "req/s",
      value: 40,
      baselineName: "bare",
      baselineValue: 100,
      target: "≥ 0.40",
      check: (q) => q >= 0.4,
    });
    expect(r.ratio).toBe(0.4);
    expect(r.met).toBe(true);
    expect(
      row({ id: "y", name: "n", unit: "ms", value: 1, baselineName: "b", baselineValue: 1, target: "" }).met,
    ).toBeNull();
    const table = renderTable([r]);
    expect(table.split("\n")).toEqual([
      "| Benchmark | Ours | Baseline (machine limit) | Ratio | Target | Met |",
      "|---|---|---|---|---|---|",
      "| GET /a \\| b | 40.0 req/s | 100 req/s (bare) | 0.40 | ≥ 0.40 | yes |",
    ]);
  });

  test("wrk: the Lua script carries method, headers and body; the summary line parses", () => {
    expect(luaString('a"b\\c\n')).toBe('"a\\"b\\\\c\\n"');
    const script = wrkScript({ method: "POST", headers: { "x-api-key": "svc_1" }, body: '{"a":1}' });
    expect(script).toContain('wrk.method = "POST"');
    expect(script).toContain('wrk.headers["x-api-key"] = "svc_1"');
    expect(script).toContain('wrk.body = "{\\"a\\":1}"');
    const r = parseWrkOutput(
      'Running 4s test\nWRKJSON {"requests":8000,"duration_us":4000000,"connect":0,"read":0,"write":0,"status":3,"timeout":1,"p50":1500,"p90":2500,"p99":9000,"max":12000}\n',
    );
    expect(r).toEqual({
      tool: "wrk",
      requests: 8000,
      durationS: 4,
      rps: 2000,
      latencyMs: { p50: 1.5, p90: 2.5, p99: 9, max: 12 },
      errors: 4,
      non2xx: 3,
    });
    expect(() => parseWrkOutput("no summary")).toThrow("wrk printed no summary");
  });
});

test("README block: only the text between the markers is replaced", () => {
  const text = `# T\n\n## Performance\n\nintro\n\n${START}\nold table\n${END}\n\nafter\n`;
  expect(replaceBetweenMarkers(text, "new table")).toBe(
    `# T\n\n## Performance\n\nintro\n\n${START}\nnew table\n${END}\n\nafter\n`,
  );
  expect(replaceBetweenMarkers("no markers", "x")).toBeNull();
});

test("every benchmark module loads and exports its entry point", async () => {
  // run.ts runs the benchmark when imported; the modules it calls are checked instead.
  const mods = await Promise.all([
    import("../../bench/http-throughput.ts"),
    import("../../bench/read-during-drain.ts"),
    import("../../bench/fan-out.ts"),
    import("../../bench/monitor-tick.ts"),
    import("../../bench/read-scale.ts"),
    import("../../bench/footprint.ts"),
  ]);
  expect(mods.map((m) => Object.keys(m).sort())).toEqual([
    [
      "CONNECTIONS",
      "agentsRead",
      "authenticatedRead",
      "authenticatedReadUnderWrites",
      "durableInsertsPerSecond",
      "signalIngest",
      "throughputRows",
      "warmUp",
    ],
    ["readDuringDrain"],
    ["fanOut", "rawFanOutFloorMs"],
    ["monitorTick"],
    ["readScale"],
    ["footprint"],
  ]);
});
