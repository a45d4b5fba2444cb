import { useMemo } from "preact/hooks";
import { get } from "../api.ts";
import { TimeChart } from "../chart.tsx";
import { ErrorNote, Section, useLoad } from "../components.tsx";
import { fmtNum, fmtPct, fmtSol, fmtUsd, plClass } from "../format.ts";
import type { Performance } from "../types.ts";

interface Snapshot {
  timestamp: string;
  solBalance: string;
  totalValueSol: string;
  totalValueUsd: string | null;
}

function BalanceChart({ agentId }: { agentId: string }) {
  const { data, error } = useLoad(() => get<Snapshot[]>(`/agents/${agentId}/balance-history?limit=1000`), [agentId]);
  const chart = useMemo(() => {
    const rows = data ?? [];
    return {
      times: rows.map((r) => Date.parse(r.timestamp) / 1000),
      series: [
        { label: "Total value", values: rows.map((r) => Number(r.totalValueSol)), colorVar: "--accent" },
        { label: "SOL balance", values: rows.map((r) => Number(r.solBalance)), colorVar: "--gain" },
      ],
    };
  }, [data]);
  return (
    <Section title="Balance history">
      <ErrorNote error={error} />
      {data && data.length === 0 && (
        <p class="muted">No snapshots yet: one is taken after every trade and every hour.</p>
      )}
      {data && data.length > 0 && (
        <TimeChart title="Balance history (SOL)" times={chart.times} series={chart.series} unit="SOL" />
      )}
    </Section>
  );
}

export function AgentPerformance({ agentId }: { agentId: string }) {
  const { data: p, error } = useLoad(() => get<Performance>(`/agents/${agentId}/performance`), [agentId]);
  return (
    <div class="stack">
      <Section title="Performance">
        <ErrorNote error={error} />
        {p && (
          <dl class="figures wide">
            <dt>Closed trades</dt>
            <dd>{p.totalTrades}</dd>
            <dt>Wins / losses</dt>
            <dd>
              {p.wins} / {p.losses}
            </dd>
            <dt>Win rate</dt>
            {/* No closed trade: no rate to show (0 % would read as "every trade lost"). */}
            <dd>{p.totalTrades === 0 ? "–" : `${fmtNum(p.winRate, 2)} %`}</dd>
            <dt>Realized P/L</dt>
            <dd class={plClass(p.realizedProfitLossSol)}>
              {fmtSol(p.realizedProfitLossSol)} ({fmtUsd(p.realizedProfitLossUsd)})
            </dd>
            <dt>Unrealized P/L</dt>
            <dd class={plClass(p.unrealizedProfitLossSol)}>
              {fmtSol(p.unrealizedProfitLossSol)} ({fmtUsd(p.unrealizedProfitLossUsd)})
            </dd>
            <dt>Open positions</dt>
            <dd>{p.openPositions}</dd>
            <dt>Best trade</dt>
            <dd>
              {p.bestTrade
                ? `${p.bestTrade.tokenSymbol} ${fmtSol(p.bestTrade.profitLossSol)} (${fmtPct(p.bestTrade.changePercent)})`
                : "–"}
            </dd>
            <dt>Worst trade</dt>
            <dd>
              {p.worstTrade
                ? `${p.worstTrade.tokenSymbol} ${fmtSol(p.worstTrade.profitLossSol)} (${fmtPct(p.worstTrade.changePercent)})`
                : "–"}
            </dd>
          </dl>
        )}
      </Section>
      <BalanceChart agentId={agentId} />
    </div>
  );
}
