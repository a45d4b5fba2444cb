import { useEffect, useState } from "preact/hooks";
import { api, get } from "../api.ts";
import { ConfirmButton, ErrorNote, ExplorerLink, Section } from "../components.tsx";
import { fmtNum, fmtPct, fmtSol, fmtTime, fmtUsd, plClass, short } from "../format.ts";
import { onEvent } from "../live.ts";
import { href } from "../router.ts";
import type { Position } from "../types.ts";
import { DcaLevel, StopLevel, TakeProfitLevel } from "./position-levels.tsx";

// Open positions with the rules' levels (stop, next take-profit, next DCA order; the token links
// to the position's chart), kept current by the event stream: a position event of this agent refetches the
// list (coalesced), and the SOL price tick refreshes prices at most every 15 s. No polling loop:
// an idle agent costs no requests.

const PRICE_REFRESH_MS = 15_000;

export function AgentPositions({ agentId }: { agentId: string }) {
  const [positions, setPositions] = useState<Position[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [closed, setClosed] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    let pending: ReturnType<typeof setTimeout> | undefined;
    let lastLoad = 0;
    const load = () => {
      lastLoad = Date.now();
      get<Position[]>(`/agents/${agentId}/positions`).then(
        (p) => {
          if (!live) return;
          setPositions(p);
          setError(null);
        },
        (err) => live && setError(err),
      );
    };
    const soon = () => {
      pending ??= setTimeout(() => {
        pending = undefined;
        load();
      }, 150);
    };
    load();
    const off = onEvent((e) => {
      if (e.type.startsWith("position.") && e.data.agentId === agentId) soon();
      else if (e.type === "price.sol" && Date.now() - lastLoad > PRICE_REFRESH_MS) soon();
    });
    return () => {
      live = false;
      off();
      clearTimeout(pending);
    };
  }, [agentId]);

  const close = async (p: Position) => {
    const r = await api<{ profitLossSol: number; changePercent: number }>(
      "POST",
      `/agent-positions/${agentId}/${p.id}/close`,
      { reason: "manual" },
    );
    setClosed(`${p.tokenSymbol} closed: P/L ${fmtSol(r.profitLossSol)} (${fmtPct(r.changePercent)})`);
    setPositions((ps) => ps?.filter((x) => x.id !== p.id) ?? null);
  };

  return (
    <Section title="Open positions">
      <ErrorNote error={error} />
      {closed && (
        <p class="notice" role="status">
          {closed}
        </p>
      )}
      {positions?.length === 0 && <p class="muted">No open positions.</p>}
      <div class="table-wrap">
        {positions && positions.length > 0 && (
          <table class="cards-on-phone">
            <PositionsHead />
            <tbody>
              {positions.map((p) => (
                <tr key={p.id} aria-label={`Position ${p.tokenSymbol}`}>
                  <td data-label="Token" title={p.tokenAddress}>
                    <a href={href("agents", agentId, "positions", p.id)} title="Chart and levels">
                      <strong>{p.tokenSymbol || short(p.tokenAddress)}</strong>
                    </a>
                    <ExplorerLink kind="token" id={p.tokenAddress} label={p.tokenSymbol || "Token"} />
                    {p.takeProfit.levelsHit > 0 && <span class="badge">TP {p.takeProfit.levelsHit}</span>}
                  </td>
                  <td data-label="Amount">{fmtNum(p.takeProfit.remainingAmount)}</td>
                  <td data-label="Entry (SOL)">{fmtNum(p.purchase.priceNative, 10)}</td>
                  <td data-label="Price (SOL)">{fmtNum(p.current.priceNative, 10)}</td>
                  <td data-label="Value">
                    {fmtSol(p.current.valueNative)}
                    <div class="muted small">{fmtUsd(p.current.valueUsd)}</div>
                  </td>
                  <td data-label="P/L" class={plClass(p.profitLoss.native)}>
                    {fmtSol(p.profitLoss.native)}
                    <div class="small">{fmtPct(p.profitLoss.percent)}</div>
                  </td>
                  <td data-label="Stop (SOL)" class="levels">
                    <StopLevel p={p} />
                  </td>
                  <td data-label="Take-profit (SOL)" class="levels">
                    <TakeProfitLevel p={p} />
                  </td>
                  <td data-label="DCA (SOL)" class="levels">
                    <DcaLevel p={p} />
                  </td>
                  <td data-label="Opened" class="small">
                    {fmtTime(p.createdAt)}
                  </td>
                  <td data-label="">
                    <ConfirmButton
                      label="Close"
                      confirmLabel="Confirm close"
                      question={`Sell all ${p.tokenSymbol}?`}
                      onConfirm={() => close(p)}
                      danger
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </Section>
  );
}

function PositionsHead() {
  return (
    <thead>
      <tr>
        <th>Token</th>
        <th>Amount</th>
        <th>Entry (SOL)</th>
        <th>Price (SOL)</th>
        <th>Value</th>
        <th>P/L</th>
        <th>Stop (SOL)</th>
        <th>Take-profit (SOL)</th>
        <th>DCA (SOL)</th>
        <th>Opened</th>
        <th>
          <span class="sr-only">Actions</span>
        </th>
      </tr>
    </thead>
  );
}
