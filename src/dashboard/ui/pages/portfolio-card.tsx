import { get, query } from "../api.ts";
import { ErrorNote, useLoad } from "../components.tsx";
import { fmtSol, fmtUsd, plClass } from "../format.ts";
import type { ModeTotals, Portfolio } from "../types.ts";

// The overview's portfolio total (GET /portfolio): all agents together, one row per trading mode,
// because simulation SOL is virtual and never added to real SOL. "Today" starts at the viewer's
// local midnight. The Live row appears from the first live wallet assigned to an agent (before it
// holds or trades anything), or once live trades exist.

const localMidnight = () => {
  const d = new Date();
  d.setHours(0, 0, 0, 0);
  return d.toISOString();
};

const isEmpty = (m: ModeTotals) =>
  !m.wallets && Number(m.totalValueSol) === 0 && m.openPositions === 0 && m.closedTrades === 0;

function Money(props: { sol: string; usd: string | null; pl?: boolean }) {
  return (
    <span class={props.pl ? plClass(props.sol) : ""}>
      {fmtSol(props.sol)}
      <span class="muted small block">{fmtUsd(props.usd)}</span>
    </span>
  );
}

function ModeRow({ label, m }: { label: string; m: ModeTotals }) {
  return (
    <tr aria-label={`Portfolio ${label}`}>
      <th scope="row" data-label="">
        {label}
      </th>
      <td data-label="Total value">
        <Money sol={m.totalValueSol} usd={m.totalValueUsd} />
      </td>
      <td data-label="SOL">{fmtSol(m.solBalance)}</td>
      <td data-label="Open positions">
        {m.openPositions} · {fmtSol(m.positionsValueSol)}
      </td>
      <td data-label="Realized P/L">
        <Money sol={m.realizedProfitLossSol} usd={m.realizedProfitLossUsd} pl />
      </td>
      <td data-label="Unrealized P/L">
        <Money sol={m.unrealizedProfitLossSol} usd={m.unrealizedProfitLossUsd} pl />
      </td>
      <td data-label="Today">
        <span>
          <Money sol={m.today.realizedProfitLossSol} usd={m.today.realizedProfitLossUsd} pl />
          <span class="muted small block">{m.today.closedTrades} closed</span>
        </span>
      </td>
    </tr>
  );
}

export function PortfolioCard({ refresh }: { refresh: number }) {
  const { data, error } = useLoad(
    () => get<Portfolio>(`/portfolio${query({ todayStart: localMidnight() })}`),
    [refresh],
  );
  const rows: Array<[string, ModeTotals]> = data
    ? [
        ["Simulation", data.simulation],
        ["Live", data.live],
      ]
    : [];
  const shown = rows.filter(([label, m]) => label === "Simulation" || !isEmpty(m));
  return (
    <section class="card wide" aria-label="Portfolio">
      <header class="card-head">
        <h2>Portfolio</h2>
        {data && (
          <span class="muted small">
            {/* The SOL price is the overview's SOL price card (with its source and age), shown once. */}
            {data.agents} {data.agents === 1 ? "agent" : "agents"}
          </span>
        )}
      </header>
      <ErrorNote error={error} />
      {shown.length > 0 && (
        <div class="table-wrap">
          <table class="cards-on-phone portfolio">
            <thead>
              <tr>
                <th>
                  <span class="sr-only">Mode</span>
                </th>
                <th>Total value</th>
                <th>SOL</th>
                <th>Open positions</th>
                <th>Realized P/L</th>
                <th>Unrealized P/L</th>
                <th>Today (closed)</th>
              </tr>
            </thead>
            <tbody>
              {shown.map(([label, m]) => (
                <ModeRow key={label} label={label} m={m} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
