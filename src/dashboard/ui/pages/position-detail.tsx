import { useEffect, useMemo, useState } from "preact/hooks";
import { get, query } from "../api.ts";
import { type Series, TimeChart } from "../chart.tsx";
import { ErrorNote, ExplorerLink, Section, useLoad } from "../components.tsx";
import { fmtNum, fmtPct, fmtSol, fmtTime, fmtUsd, plClass, short } from "../format.ts";
import { onEvent } from "../live.ts";
import { href } from "../router.ts";
import type { Position, PriceBar } from "../types.ts";
import { price } from "./position-levels.tsx";

// One open position: its price since shortly before the buy (the recorded 1-minute bars of
// GET /tokens/:address/prices, closes in SOL, the price path the strategy lab replays) with its
// entry, peak, stop, take-profit and DCA levels drawn across, and the same levels listed. The
// levels come from the server (`levels`), so the lines are where the rules act.

const LEAD_MS = 30 * 60_000;
/** The prices route serves at most 31 days; an older position shows its last 30. */
const MAX_SPAN_MS = 30 * 86_400_000;

function chartOf(p: Position, bars: PriceBar[]): { times: number[]; series: Series[] } {
  const times = bars.map((b) => Date.parse(b.time) / 1000);
  const closes: Array<number | null> = bars.map((b) => Number(b.close));
  // The current price as the last point, so the line reaches now.
  times.push(Date.now() / 1000);
  closes.push(p.current.priceNative);
  const line = (label: string, value: number, colorVar: string, dash = [6, 4]): Series => ({
    label,
    values: times.map(() => value),
    colorVar,
    dash,
    width: 1.5,
  });
  const series: Series[] = [
    { label: "Price", values: closes, colorVar: "--accent" },
    line("Entry", p.purchase.priceNative, "--text", [2, 3]),
    line("Peak", p.stopLoss.peakPrice, "--muted", [2, 3]),
  ];
  const lv = p.levels;
  if (lv?.stopLossPrice != null) series.push(line("Stop", lv.stopLossPrice, "--loss"));
  for (const l of lv?.takeProfit.filter((x) => !x.hit).slice(0, 5) ?? []) {
    series.push(line(`TP ${l.level}`, l.price, "--gain"));
  }
  for (const l of lv?.dca.slice(0, 5) ?? []) series.push(line(`DCA ${l.order}`, l.price, "--warn"));
  return { times, series };
}

function LevelList({ p }: { p: Position }) {
  const lv = p.levels;
  return (
    <dl class="figures wide" aria-label="Levels">
      <dt>Entry (average)</dt>
      <dd>{price(p.purchase.priceNative)} SOL</dd>
      <dt>Current</dt>
      <dd>
        {price(p.current.priceNative)} SOL <span class="muted small">{fmtUsd(p.current.priceUsd)}</span>
      </dd>
      <dt>Peak</dt>
      <dd>{price(p.stopLoss.peakPrice)} SOL</dd>
      <dt>Stop-loss</dt>
      <dd>
        {lv?.stopLossPrice == null
          ? "off"
          : `${price(lv.stopLossPrice)} SOL (${fmtNum(p.stopLoss.percentage)} % below the peak)`}
      </dd>
      <dt>Take-profit</dt>
      <dd>
        {!lv || lv.takeProfit.length === 0
          ? "off"
          : lv.takeProfit.map((l) => (
              <span key={l.level} class={`block ${l.hit ? "hit" : ""}`}>
                Level {l.level}: {price(l.price)} SOL{l.hit ? " (hit)" : ""}
              </span>
            ))}
      </dd>
      <dt>DCA</dt>
      <dd>
        {!lv || lv.dca.length === 0
          ? lv && lv.dcaOrdersFilled > 0
            ? `${lv.dcaOrdersFilled} filled, none left`
            : "off"
          : lv.dca.map((l) => (
              <span key={l.order} class="block">
                Order {l.order}: {price(l.price)} SOL
              </span>
            ))}
        {lv && lv.dca.length > 0 && lv.dcaOrdersFilled > 0 && (
          <span class="muted small block">{lv.dcaOrdersFilled} filled</span>
        )}
      </dd>
    </dl>
  );
}

export function PositionDetail({ agentId, positionId }: { agentId: string; positionId: string }) {
  const [version, setVersion] = useState(0);
  const [openedAt] = useState(() => Date.now());
  const positions = useLoad(() => get<Position[]>(`/agents/${agentId}/positions`), [agentId, version]);
  const p = positions.data?.find((x) => x.id === positionId) ?? null;
  const start = p ? Math.max(Date.parse(p.createdAt) - LEAD_MS, openedAt - MAX_SPAN_MS) : 0;
  const bars = useLoad(
    () =>
      p
        ? get<PriceBar[]>(
            `/tokens/${encodeURIComponent(p.tokenAddress)}/prices${query({ startDate: new Date(start).toISOString(), interval: "1m" })}`,
          )
        : Promise.resolve([] as PriceBar[]),
    [p?.tokenAddress, start, version],
  );
  // A change of this position (peak, take-profit, DCA, close) reloads it (at most every 2 s).
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = onEvent((e) => {
      if (e.type.startsWith("position.") && e.data.positionId === positionId) {
        timer ??= setTimeout(() => {
          timer = undefined;
          setVersion((v) => v + 1);
        }, 2_000);
      }
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, [positionId]);
  const chart = useMemo(() => (p && bars.data ? chartOf(p, bars.data) : null), [p, bars.data]);

  const back = (
    <p>
      <a href={href("agents", agentId, "positions")}>← Open positions</a>
    </p>
  );
  if (positions.error) return <ErrorNote error={positions.error} />;
  if (!positions.data) return <p class="muted">Loading…</p>;
  if (!p) {
    return (
      <div class="stack">
        {back}
        <p class="muted">This position is closed or does not exist; closed positions are in History.</p>
      </div>
    );
  }
  return (
    <div class="stack">
      {back}
      <Section title={`Position ${p.tokenSymbol}`}>
        <p class="muted small">
          <code>{p.tokenAddress}</code>
          <ExplorerLink kind="token" id={p.tokenAddress} label={p.tokenSymbol || "Token"} /> · wallet{" "}
          <code>{short(p.walletAddress)}</code>
          <ExplorerLink kind="account" id={p.walletAddress} label="Wallet" /> · opened {fmtTime(p.createdAt)} ·{" "}
          {fmtNum(p.takeProfit.remainingAmount)} tokens · value {fmtSol(p.current.valueNative)} ·{" "}
          <span class={plClass(p.profitLoss.native)}>
            P/L {fmtSol(p.profitLoss.native)} ({fmtPct(p.profitLoss.percent)})
          </span>
        </p>
        <ErrorNote error={bars.error} />
        {bars.data && bars.data.length === 0 && (
          <p class="muted">No price bars recorded for this token in this period yet (one is recorded per minute).</p>
        )}
        {chart && bars.data && bars.data.length > 0 && (
          <TimeChart
            title={`${p.tokenSymbol} price (SOL)`}
            times={chart.times}
            series={chart.series}
            unit="SOL"
            format={price}
          />
        )}
        <LevelList p={p} />
      </Section>
    </div>
  );
}
