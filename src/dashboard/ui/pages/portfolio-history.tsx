import { useMemo, useState } from "preact/hooks";
import { get } from "../api.ts";
import { type Series, TimeChart } from "../chart.tsx";
import { ErrorNote, Section, useLoad } from "../components.tsx";

// The overview's account P/L over time (GET /portfolio/history; docs/decisions/portfolio-history.md):
// one line per mode that has points, marked to market every 5 minutes by the service, in SOL.
// P/L (realized + unrealized) or the account's total value, over the last day, week or month.

interface Point {
  at: string;
  totalValueSol: string;
  profitLossSol: string;
}
interface History {
  points: Point[];
}

const RANGES = [
  { label: "24 h", ms: 86_400_000 },
  { label: "7 d", ms: 7 * 86_400_000 },
  { label: "30 d", ms: 30 * 86_400_000 },
] as const;
const MODES = [
  { mode: "simulation", label: "Simulation", colorVar: "--accent" },
  { mode: "live", label: "Live", colorVar: "--warn" },
] as const;

async function loadHistory(rangeMs: number): Promise<Record<string, Point[]>> {
  const from = new Date(Date.now() - rangeMs).toISOString();
  const answers = await Promise.all(
    MODES.map((m) => get<History>(`/portfolio/history?mode=${m.mode}&from=${encodeURIComponent(from)}`)),
  );
  return Object.fromEntries(MODES.map((m, i) => [m.mode, answers[i]?.points ?? []]));
}

/** Both modes on one time axis: the union of their slots, null where a mode has no point. */
function toChart(data: Record<string, Point[]>, field: "profitLossSol" | "totalValueSol") {
  const times = [...new Set(Object.values(data).flatMap((ps) => ps.map((p) => Date.parse(p.at) / 1000)))].sort(
    (a, b) => a - b,
  );
  const series: Series[] = [];
  for (const m of MODES) {
    const points = data[m.mode] ?? [];
    if (points.length === 0) continue;
    const at = new Map(points.map((p) => [Date.parse(p.at) / 1000, Number(p[field])]));
    series.push({ label: m.label, colorVar: m.colorVar, values: times.map((t) => at.get(t) ?? null) });
  }
  return { times, series };
}

export function PortfolioHistoryCard({ refresh }: { refresh: number }) {
  const [range, setRange] = useState<number>(RANGES[0].ms);
  const [field, setField] = useState<"profitLossSol" | "totalValueSol">("profitLossSol");
  const { data, error } = useLoad(() => loadHistory(range), [range, refresh]);
  const chart = useMemo(() => toChart(data ?? {}, field), [data, field]);
  return (
    <Section title="Account P/L over time">
      <div class="row">
        <select aria-label="Figure" value={field} onChange={(e) => setField(e.currentTarget.value as typeof field)}>
          <option value="profitLossSol">P/L (realized + unrealized)</option>
          <option value="totalValueSol">Total value</option>
        </select>
        <select aria-label="Range" value={range} onChange={(e) => setRange(Number(e.currentTarget.value))}>
          {RANGES.map((r) => (
            <option key={r.label} value={r.ms}>
              {r.label}
            </option>
          ))}
        </select>
      </div>
      <ErrorNote error={error} />
      {data && chart.series.length === 0 && (
        <p class="muted">No points yet: the account is marked to market every 5 minutes.</p>
      )}
      {chart.series.length > 0 && (
        <TimeChart title="Account P/L over time (SOL)" times={chart.times} series={chart.series} unit="SOL" />
      )}
    </Section>
  );
}
