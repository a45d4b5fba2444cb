import { useState } from "preact/hooks";
import { fmtSol, plClass } from "../format.ts";
import { href } from "../router.ts";
import type { Agent, Performance } from "../types.ts";
import { AutomationSwitch } from "./automation-switch.tsx";

// Many agents (more than the overview's cards hold: 32 cards were a 3,836 px wall): one row each,
// filtered by name and mode, sorted by any column (click its header; again for the other way).

/** One agent with its figures, as the overview loads them. */
export interface AgentLine {
  agent: Agent;
  performance: Performance | null;
  solBalance: string | null;
}

type Key = "name" | "mode" | "sol" | "open" | "realized" | "unrealized";

const COLUMNS: Array<[Key, string]> = [
  ["name", "Agent"],
  ["mode", "Mode"],
  ["sol", "SOL balance"],
  ["open", "Open positions"],
  ["realized", "Realized P/L"],
  ["unrealized", "Unrealized P/L"],
];

const num = (v: string | number | null | undefined) => (v === null || v === undefined ? -Infinity : Number(v));

function sortValue(r: AgentLine, key: Key): string | number {
  const p = r.performance;
  switch (key) {
    case "name":
      return r.agent.name.toLowerCase();
    case "mode":
      return r.agent.tradingMode;
    case "sol":
      return num(r.solBalance);
    case "open":
      return num(p?.openPositions);
    case "realized":
      return num(p?.realizedProfitLossSol);
    case "unrealized":
      return num(p?.unrealizedProfitLossSol);
  }
}

export function AgentTable({ rows, onChange }: { rows: AgentLine[]; onChange: (a: Agent) => void }) {
  const [text, setText] = useState("");
  const [mode, setMode] = useState("");
  const [sort, setSort] = useState<{ key: Key; desc: boolean }>({ key: "name", desc: false });
  const needle = text.trim().toLowerCase();
  const shown = rows
    .filter((r) => (!needle || r.agent.name.toLowerCase().includes(needle)) && (!mode || r.agent.tradingMode === mode))
    .sort((a, b) => {
      const x = sortValue(a, sort.key);
      const y = sortValue(b, sort.key);
      const c = x < y ? -1 : x > y ? 1 : a.agent.name.localeCompare(b.agent.name);
      return sort.desc ? -c : c;
    });
  return (
    <>
      <div class="row wrap filters">
        <label>
          Filter agents
          <input type="search" value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </label>
        <label>
          Show mode
          <select value={mode} onChange={(e) => setMode(e.currentTarget.value)}>
            <option value="">any</option>
            <option value="simulation">simulation</option>
            <option value="live">live</option>
          </select>
        </label>
        <span class="muted small" role="status">
          {shown.length} of {rows.length} agents
        </span>
      </div>
      <div class="table-wrap">
        <table class="cards-on-phone agents-table" aria-label="Agents">
          <thead>
            <tr>
              {COLUMNS.map(([key, label]) => (
                <th
                  key={key}
                  aria-sort={sort.key === key ? (sort.desc ? "descending" : "ascending") : undefined}
                  scope="col"
                >
                  <button
                    type="button"
                    class="sort"
                    onClick={() =>
                      setSort((s) => ({ key, desc: s.key === key ? !s.desc : key !== "name" && key !== "mode" }))
                    }
                  >
                    {label}
                    {sort.key === key ? (sort.desc ? " ▼" : " ▲") : ""}
                  </button>
                </th>
              ))}
              <th scope="col">Automation</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => {
              const p = r.performance;
              return (
                <tr key={r.agent.id} aria-label={`Agent ${r.agent.name}`}>
                  <td data-label="Agent">
                    <a href={href("agents", r.agent.id)}>{r.agent.name}</a>
                  </td>
                  <td data-label="Mode">
                    <span class={`badge ${r.agent.tradingMode}`}>{r.agent.tradingMode}</span>
                  </td>
                  <td data-label="SOL balance">{r.solBalance === null ? "–" : fmtSol(r.solBalance)}</td>
                  <td data-label="Open positions">{p?.openPositions ?? "–"}</td>
                  <td data-label="Realized P/L" class={plClass(p?.realizedProfitLossSol)}>
                    {p ? fmtSol(p.realizedProfitLossSol) : "–"}
                  </td>
                  <td data-label="Unrealized P/L" class={plClass(p?.unrealizedProfitLossSol)}>
                    {p ? fmtSol(p.unrealizedProfitLossSol) : "–"}
                  </td>
                  <td data-label="Automation">
                    <span class="switches">
                      <AutomationSwitch agent={r.agent} mode="simulation" onChange={onChange} compact />
                      <AutomationSwitch agent={r.agent} mode="live" onChange={onChange} compact />
                    </span>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}
