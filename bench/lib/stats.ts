// Pure helpers of the benchmark: percentiles, ratios, number formatting and the result row.
// No I/O here, so test/bench/smoke.test.ts can import it cheaply.

/** One line of the table and of bench/results.json. */
export interface BenchRow {
  /** Stable key, e.g. "read.agents.throughput". */
  id: string;
  /** What is measured, as shown in the table. */
  name: string;
  unit: string;
  /** Our figure. */
  value: number;
  /** What the baseline is (the machine's limit for this work). */
  baselineName: string;
  baselineValue: number;
  /** value ÷ baselineValue. */
  ratio: number;
  /** Target in words, e.g. "≥ 0.40" or "≤ 10×, < 1 s"; empty when the row is informative only. */
  target: string;
  /** Whether the target was met; null when there is no target. */
  met: boolean | null;
  /** Extra figures (p99, request counts, errors...). */
  details?: Record<string, unknown>;
  note?: string;
}

/** Nearest-rank percentile of unsorted samples (p in 0..100). NaN for no samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const sorted = [...samples].sort((a, b) => a - b);
  if (p === 0) return sorted[0] as number;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, rank) - 1] as number;
}

export interface Summary {
  n: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(samples: readonly number[]): Summary {
  const n = samples.length;
  const mean = n === 0 ? Number.NaN : samples.reduce((a, b) => a + b, 0) / n;
  return {
    n,
    min: n === 0 ? Number.NaN : Math.min(...samples),
    p50: percentile(samples, 50),
    p90: percentile(samples, 90),
    p99: percentile(samples, 99),
    max: n === 0 ? Number.NaN : Math.max(...samples),
    mean,
  };
}

export const median = (samples: readonly number[]): number => percentile(samples, 50);

/** value ÷ baseline; NaN when either is missing or the baseline is zero. */
export function ratio(value: number, baseline: number): number {
  if (!Number.isFinite(value) || !Number.isFinite(baseline) || baseline === 0) return Number.NaN;
  return value / baseline;
}

/** A ratio for the table: "0.43" below 10, "12.3×"-style above (always with two significant digits at least). */
export function formatRatio(r: number): string {
  if (!Number.isFinite(r)) return "n/a";
  if (r >= 100) return `${Math.round(r)}×`;
  if (r >= 10) return `${r.toFixed(1)}×`;
  if (r >= 1) return `${r.toFixed(2)}×`;
  return r.toFixed(2);
}

/** A measured figure with its unit, rounded for reading (exact values stay in results.json). */
export function formatValue(v: number, unit: string): string {
  if (!Number.isFinite(v)) return "n/a";
  const digits = Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : Math.abs(v) >= 1 ? 2 : 3;
  const n = v.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return unit ? `${n} ${unit}` : n;
}

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return "n/a";
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** Renders rows as a Markdown table (printed to the terminal and pasted into docs/performance.md). */
export function renderTable(rows: readonly BenchRow[]): string {
  const header = ["Benchmark", "Ours", "Baseline (machine limit)", "Ratio", "Target", "Met"];
  const lines = rows.map((r) => [
    r.name,
    formatValue(r.value, r.unit),
    `${formatValue(r.baselineValue, r.unit)} (${r.baselineName})`,
    formatRatio(r.ratio),
    r.target || "—",
    r.met === null ? "—" : r.met ? "yes" : "**no**",
  ]);
  const esc = (s: string) => s.replace(/\|/g, "\\|");
  const out = [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`];
  for (const l of lines) out.push(`| ${l.map(esc).join(" | ")} |`);
  return out.join("\n");
}

/** Builds a row, computing ratio and `met` from a predicate over the row. */
export function row(
  r: Omit<BenchRow, "ratio" | "met"> & { check?: (ratio: number, value: number) => boolean },
): BenchRow {
  const { check, ...rest } = r;
  const q = ratio(r.value, r.baselineValue);
  return { ...rest, ratio: q, met: check ? Number.isFinite(q) && check(q, r.value) : null };
}
