import { useEffect, useState } from "preact/hooks";
import { api, get } from "../api.ts";
import { ErrorNote, useLoad } from "../components.tsx";
import { href, navigate } from "../router.ts";
import type { Agent } from "../types.ts";
import { AgentHistory } from "./agent-history.tsx";
import { AgentPerformance } from "./agent-performance.tsx";
import { AgentPositions } from "./agent-positions.tsx";
import { AgentSettings } from "./agent-settings.tsx";
import { AgentWallets } from "./agent-wallets.tsx";
import { AutomationSwitch } from "./automation-switch.tsx";
import { ManualBuy } from "./manual-buy.tsx";
import { PositionDetail } from "./position-detail.tsx";
import { StrategyEditor } from "./strategy-editor.tsx";

// Agent, one tab at a time so a phone screen shows one thing well and the
// rate-limited wallet routes are called only when their tab is open.

const TABS = [
  ["positions", "Positions"],
  ["history", "History"],
  ["performance", "Performance"],
  ["strategy", "Strategy"],
  ["wallets", "Wallets"],
  ["settings", "Settings"],
] as const;

export function AgentPage({ id, tab, sub }: { id: string; tab: string; sub?: string }) {
  const { data, error } = useLoad(() => get<Agent>(`/agents/${id}`), [id]);
  const [agent, setAgent] = useState<Agent | null>(null);
  // A manual buy remounts the positions tab so the new position shows.
  const [bought, setBought] = useState(0);
  useEffect(() => setAgent(data ?? null), [data]);
  if (error) return <ErrorNote error={error} />;
  if (!agent) return <p class="muted">Loading…</p>;
  return (
    <div class="stack">
      <header class="card-head">
        <h1>{agent.name}</h1>
        <span class={`badge ${agent.tradingMode}`}>{agent.tradingMode}</span>
      </header>
      <div class="row wrap">
        <AutomationSwitch agent={agent} mode="simulation" onChange={setAgent} />
        <AutomationSwitch agent={agent} mode="live" onChange={setAgent} />
      </div>
      <ManualBuy agent={agent} onBought={() => setBought((n) => n + 1)} />
      <nav class="tabs" aria-label="Agent sections">
        {TABS.map(([key, label]) => (
          <a key={key} href={href("agents", id, key)} aria-current={tab === key ? "page" : undefined}>
            {label}
          </a>
        ))}
      </nav>
      {tab === "positions" &&
        (sub ? <PositionDetail agentId={id} positionId={sub} /> : <AgentPositions key={bought} agentId={id} />)}
      {tab === "history" && <AgentHistory agentId={id} />}
      {tab === "performance" && <AgentPerformance agentId={id} />}
      {tab === "strategy" && <StrategyEditor agentId={id} />}
      {tab === "wallets" && <AgentWallets agent={agent} />}
      {tab === "settings" && (
        <AgentSettings
          agent={agent}
          onSaved={setAgent}
          onDelete={async () => {
            await api("DELETE", `/agents/${id}`);
            navigate();
          }}
        />
      )}
    </div>
  );
}
