import { useState } from "preact/hooks";
import type { PnlReport as Report, PnlReportRow as Row } from "../../../trading/pnl-report-shape.ts";
import { download, get, query } from "../api.ts";
import { ErrorNote, Section, useLoad } from "../components.tsx";
import { fmtSol, fmtUsd, plClass, short } from "../format.ts";
import type { Agent } from "../types.ts";

// Reports (issue 44 item 4; GET /reports/pnl, docs/decisions/operator-experience-v.md
// "Reports"): realized P/L by UTC day, ISO week or token, for one agent or the whole account, one
// mode at a time, as a table with its CSV. Each sale counts on its own day (a take-profit sale on
// its day, the close on its own).

const GROUPS = [
  { value: "day", label: "By day (UTC)", column: "Day" },
  { value: "week", label: "By week (ISO, from Monday)", column: "Week" },
  { value: "token", label: "By token", column: "Token" },
] as const;
type GroupBy = (typeof GROUPS)[number]["value"];

function label(r: Row, groupBy: GroupBy): string {
  if (groupBy === "token") return r.tokenSymbol || short(r.key);
  return groupBy === "week" ? `${r.key} (from ${r.periodStart})` : r.key;
}

export function ReportsPage() {
  const [groupBy, setGroupBy] = useState<GroupBy>("day");
  const [agentId, setAgentId] = useState("");
  const [mode, setMode] = useState("simulation");
  const [exportError, setExportError] = useState<unknown>(null);
  const agents = useLoad(() => get<Agent[]>("/agents"), []);
  const params = query({ groupBy, mode, agentId: agentId || undefined });
  const { data, error } = useLoad(() => get<Report>(`/reports/pnl${params}`), [params]);
  const column = GROUPS.find((g) => g.value === groupBy)?.column ?? "";
  const exportCsv = () => {
    setExportError(null);
    download(`/reports/pnl/export${params}`, `pnl-by-${groupBy}.csv`).catch(setExportError);
  };
  return (
    <Section
      title="Realized P/L"
      actions={
        <button type="button" onClick={exportCsv}>
          Export CSV
        </button>
      }
    >
      <div class="row">
        <select aria-label="Group by" value={groupBy} onChange={(e) => setGroupBy(e.currentTarget.value as GroupBy)}>
          {GROUPS.map((g) => (
            <option key={g.value} value={g.value}>
              {g.label}
            </option>
          ))}
        </select>
        <select aria-label="Agent" value={agentId} onChange={(e) => setAgentId(e.currentTarget.value)}>
          <option value="">All agents</option>
          {agents.data?.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name}
            </option>
          ))}
        </select>
        <select aria-label="Mode" value={mode} onChange={(e) => setMode(e.currentTarget.value)}>
          <option value="simulation">Simulation</option>
          <option value="live">Live</option>
        </select>
      </div>
      <p class="muted small">
        Each sale counts when it happened: a take-profit sale on its day, the close on its own. Fees are in, token
        account rent is not.
      </p>
      <ErrorNote error={error ?? exportError} />
      {data?.rows.length === 0 && <p class="muted">No sales yet.</p>}
      {data && data.rows.length > 0 && (
        <div class="table-wrap">
          <table aria-label="P/L report">
            <thead>
              <tr>
                <th>{column}</th>
                <th>Sales</th>
                <th>Realized P/L</th>
                <th>USD</th>
              </tr>
            </thead>
            <tbody>
              {data.rows.map((r) => (
                <tr key={r.key}>
                  <td title={groupBy === "token" ? r.key : undefined}>{label(r, groupBy)}</td>
                  <td>{r.sales}</td>
                  <td class={plClass(r.realizedProfitLossSol)}>{fmtSol(r.realizedProfitLossSol)}</td>
                  <td class={plClass(r.realizedProfitLossUsd)}>{fmtUsd(r.realizedProfitLossUsd)}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th>Total</th>
                <th>{data.total.sales}</th>
                <th class={plClass(data.total.realizedProfitLossSol)}>{fmtSol(data.total.realizedProfitLossSol)}</th>
                <th class={plClass(data.total.realizedProfitLossUsd)}>{fmtUsd(data.total.realizedProfitLossUsd)}</th>
              </tr>
            </tfoot>
          </table>
        </div>
      )}
    </Section>
  );
}
