import { useEffect, useState } from "preact/hooks";
import { ApiError, api, get } from "../api.ts";
import { ErrorNote, Section, useLoad } from "../components.tsx";
import { ago, fmtSol, fmtTime, fmtUsd, plClass } from "../format.ts";
import { onEvent } from "../live.ts";
import { rememberAgents, rememberTokens } from "../names.ts";
import { href, navigate } from "../router.ts";
import { type Agent, type Balance, type Performance, SOL_MINT, type SolPrice } from "../types.ts";
import { type AgentLine, AgentTable } from "./agent-table.tsx";
import { AutomationSwitch } from "./automation-switch.tsx";
import { FirstSteps } from "./first-steps.tsx";
import { LiveFeed } from "./live-feed.tsx";
import { PortfolioCard } from "./portfolio-card.tsx";
import { PortfolioHistoryCard } from "./portfolio-history.tsx";
import { DisabledWebhooksWarning } from "./webhook-warning.tsx";

// Overview: the portfolio total, every agent with its switches and figures, the
// SOL price, the data sources and a live feed of signals and trades.

/** Up to this many agents show as cards; more as a table that sorts and filters. */
const CARDS_UP_TO = 8;

async function loadAgents(): Promise<AgentLine[]> {
  const agents = await get<Agent[]>("/agents");
  rememberAgents(agents);
  return Promise.all(
    agents.map(async (agent) => {
      const [performance, balances] = await Promise.all([
        get<Performance>(`/agents/${agent.id}/performance`).catch(() => null),
        get<Balance[]>(`/agent-balances?agentId=${agent.id}`).catch(() => [] as Balance[]),
      ]);
      rememberTokens(balances.map((b) => ({ tokenAddress: b.tokenAddress, symbol: b.tokenSymbol })));
      // The SOL of the wallet the agent trades with now (simulation wallets start with sim_).
      const sim = agent.tradingMode === "simulation";
      const sol = balances.find((b) => b.tokenAddress === SOL_MINT && b.walletAddress.startsWith("sim_") === sim);
      return { agent, performance, solBalance: sol?.balance ?? null };
    }),
  );
}

function CreateAgent({ onCreated }: { onCreated: (a: Agent) => void }) {
  const [name, setName] = useState("");
  const [mode, setMode] = useState("simulation");
  const [error, setError] = useState<unknown>(null);
  return (
    <form
      class="row wrap"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(null);
        try {
          const agent = await api<Agent>("POST", "/agents", { name, tradingMode: mode });
          setName("");
          onCreated(agent);
        } catch (err) {
          setError(err);
        }
      }}
    >
      <label>
        Agent name
        <input value={name} maxLength={255} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Trading mode
        <select value={mode} onChange={(e) => setMode(e.currentTarget.value)}>
          <option value="simulation">simulation</option>
          <option value="live">live</option>
        </select>
      </label>
      <button type="submit" class="primary">
        Create agent
      </button>
      <ErrorNote error={error} />
    </form>
  );
}

function AgentCard({ row, onChange }: { row: AgentLine; onChange: (a: Agent) => void }) {
  const { agent, performance: p } = row;
  return (
    <article class="agent card" aria-label={`Agent ${agent.name}`}>
      <header class="card-head">
        <h3>
          <a href={href("agents", agent.id)}>{agent.name}</a>
        </h3>
        <span class={`badge ${agent.tradingMode}`}>{agent.tradingMode}</span>
      </header>
      <div class="row wrap">
        <AutomationSwitch agent={agent} mode="simulation" onChange={onChange} />
        <AutomationSwitch agent={agent} mode="live" onChange={onChange} />
      </div>
      <dl class="figures">
        <dt>SOL balance</dt>
        <dd>{row.solBalance === null ? "–" : fmtSol(row.solBalance)}</dd>
        <dt>Open positions</dt>
        <dd>{p?.openPositions ?? "–"}</dd>
        <dt>Realized P/L</dt>
        <dd class={plClass(p?.realizedProfitLossSol)}>{p ? fmtSol(p.realizedProfitLossSol) : "–"}</dd>
        <dt>Unrealized P/L</dt>
        <dd class={plClass(p?.unrealizedProfitLossSol)}>{p ? fmtSol(p.unrealizedProfitLossSol) : "–"}</dd>
      </dl>
    </article>
  );
}

/** SOL/USD; while the feed is down, since when (the answer's unavailableSince, or a 502's details). */
function SolPriceCard() {
  const { data, error, reload } = useLoad(() => get<SolPrice>("/price-feeds/sol-usd"), []);
  const [live, setLive] = useState<SolPrice | null>(null);
  useEffect(() => onEvent((e) => e.type === "price.sol" && setLive(e.data as unknown as SolPrice)), []);
  const price = live ?? data;
  const details = error instanceof ApiError ? (error.details as { unavailableSince?: unknown } | undefined) : undefined;
  const since = price
    ? price.unavailableSince
    : typeof details?.unavailableSince === "string"
      ? details.unavailableSince
      : null;
  return (
    <Section
      title="SOL price"
      actions={
        <button type="button" onClick={reload}>
          Refresh price
        </button>
      }
    >
      {price ? (
        <p class="big">
          {fmtUsd(price.price)} {price.isStale && <span class="badge warn">stale</span>}
          <span class="muted small">
            {" "}
            {price.source} · {fmtTime(price.lastUpdated)}
          </span>
        </p>
      ) : (
        <>
          <p class="big muted">Price unavailable</p>
          <ErrorNote error={error} />
        </>
      )}
      {since && (
        <p class="warn-text" role="status" aria-label="SOL price unavailable since">
          No fresh SOL price since {fmtTime(since)} ({ago(since)}).
        </p>
      )}
    </Section>
  );
}

/** Readable names of GET /data-sources/status's keys; an unknown key shows as sent. */
const SOURCE_LABELS: Record<string, string> = {
  priceNetwork: "Price network",
  solPriceFeed: "SOL price feed",
  swapAggregator: "Swap aggregator",
  marketData: "Market data",
  liquidityChecks: "Liquidity checks",
  signalGeneration: "Signal generation",
  solanaRpc: "Solana RPC",
  solanaConfirmRpc: "Solana confirm node",
  jitoBlockEngine: "Jito block engine",
};

function DataSourcesCard() {
  const { data, error } = useLoad(
    () => get<Record<string, { configured: boolean; reachable?: boolean | null }>>("/data-sources/status"),
    [],
  );
  // Replication (docs/backups.md) is in /health only when REPLICA_URL is set.
  const health = useLoad(
    () => get<{ services: Record<string, { status: string; state?: string; lagSeconds?: number }> }>("/health"),
    [],
  );
  const replication = health.data?.services.replication;
  return (
    <Section title="Data sources">
      <ErrorNote error={error} />
      <ul class="plain">
        {replication && (
          <li key="replication" class="row">
            <span>backups (replication)</span>
            <span class={`badge ${replication.status === "healthy" ? "ok" : "warn"}`}>{replication.state}</span>
            {(replication.lagSeconds ?? 0) > 0 && <span class="badge">{`${replication.lagSeconds} s behind`}</span>}
          </li>
        )}
        {Object.entries(data ?? {}).map(([name, s]) => (
          <li key={name} class="row" aria-label={SOURCE_LABELS[name] ?? name}>
            <span>{SOURCE_LABELS[name] ?? name}</span>
            <span class={`badge ${s.configured ? "ok" : ""}`}>{s.configured ? "configured" : "not configured"}</span>
            {s.reachable !== undefined && s.configured && (
              <span class={`badge ${s.reachable === true ? "ok" : s.reachable === false ? "warn" : ""}`}>
                {s.reachable === null ? "not tried" : s.reachable ? "reachable" : "unreachable"}
              </span>
            )}
          </li>
        ))}
      </ul>
    </Section>
  );
}

export function OverviewPage() {
  const [refresh, setRefresh] = useState(0);
  const { data, error } = useLoad(loadAgents, [refresh]);
  const [rows, setRows] = useState<AgentLine[]>([]);
  useEffect(() => setRows(data ?? []), [data]);
  // Figures change with trades: reload (at most every 2 s) when a trade or position event arrives.
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = onEvent((e) => {
      if (e.type.startsWith("position.") || e.type.startsWith("trade.")) {
        timer ??= setTimeout(() => {
          timer = undefined;
          setRefresh((n) => n + 1);
        }, 2_000);
      }
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, []);
  const replace = (a: Agent) => setRows((rs) => rs.map((r) => (r.agent.id === a.id ? { ...r, agent: a } : r)));
  return (
    <div class="grid">
      <DisabledWebhooksWarning />
      <PortfolioCard refresh={refresh} />
      <PortfolioHistoryCard refresh={refresh} />
      <Section title="Agents">
        <CreateAgent onCreated={(a) => navigate("agents", a.id)} />
        <ErrorNote error={error} />
        {data && rows.length === 0 && !error && <p class="muted">No agents yet.</p>}
        {rows.length > CARDS_UP_TO ? (
          <AgentTable rows={rows} onChange={replace} />
        ) : (
          <div class="cards">
            {rows.map((r) => (
              <AgentCard key={r.agent.id} row={r} onChange={replace} />
            ))}
          </div>
        )}
      </Section>
      {data && data.length === 0 && rows.length === 0 && <FirstSteps />}
      <div class="stack">
        <SolPriceCard />
        <DataSourcesCard />
        <LiveFeed />
      </div>
    </div>
  );
}
