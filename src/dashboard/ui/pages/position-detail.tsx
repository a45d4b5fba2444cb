import { useEffect, useMemo, useState } from "preact/hooks";
import { api, get, query } from "../api.ts";
import { type EdgeMarker, type Series, TimeChart } from "../chart.tsx";
import { ConfirmButton, ErrorNote, ExplorerLink, Section, useLoad } from "../components.tsx";
import { fmtNum, fmtPct, fmtSol, fmtTime, fmtUsd, heldFor, plClass, short } from "../format.ts";
import { onEvent } from "../live.ts";
import { href } from "../router.ts";
import type { Position, PriceBar, Transaction } from "../types.ts";
import { price } from "./position-levels.tsx";
import { SellButtons } from "./position-sell.tsx";

// One open position: its price since shortly before the buy (the recorded 1-minute bars of
// GET /tokens/:address/prices, closes in SOL, the price path the strategy lab replays) with its
// entry, peak, stop, take-profit and DCA levels drawn across, and the same levels listed. The
// levels come from the server (`levels`), so the lines are where the rules act.

const LEAD_MS = 30 * 60_000;
/** The prices route serves at most 31 days; an older position shows its last 30. */
const MAX_SPAN_MS = 30 * 86_400_000;

/** A trade of this position as a point on the chart: its per-token price in SOL. */
interface TradePoint {
  id: string;
  side: "BUY" | "SELL";
  time: number;
  price: number;
  sol: number;
  hash: string | null;
}

/** The agent's trades in this position's token since it opened (a BUY spends SOL, a SELL gets SOL). */
function tradePoints(p: Position, txs: Transaction[]): TradePoint[] {
  const opened = Date.parse(p.createdAt) - 60_000;
  const out: TradePoint[] = [];
  for (const t of txs) {
    const buy = t.transactionType === "BUY";
    if ((buy ? t.outputMint : t.inputMint) !== p.tokenAddress || Date.parse(t.transactionTime) < opened) continue;
    if (t.status === "failed") continue;
    const sol = Number(buy ? t.inputAmount : t.outputAmount);
    const tokens = Number(buy ? t.outputAmount : t.inputAmount);
    if (!(sol > 0 && tokens > 0)) continue;
    out.push({
      id: t.id,
      side: t.transactionType,
      time: Date.parse(t.transactionTime) / 1000,
      price: sol / tokens,
      sol,
      hash: t.transactionHash,
    });
  }
  return out.sort((a, b) => a.time - b.time);
}

interface Chart {
  times: number[];
  series: Series[];
  range: [number, number];
  edges: EdgeMarker[];
}

/**
 * The price path with the buys and sells on it, the y axis fitted to the price (path, entry,
 * trades) so the line is not flat; levels beyond that range are drawn as markers on its edge.
 */
function chartOf(p: Position, bars: PriceBar[], trades: TradePoint[]): Chart {
  const points: Array<{ t: number; close: number | null; buy: number | null; sell: number | null }> = bars.map((b) => ({
    t: Date.parse(b.time) / 1000,
    close: Number(b.close),
    buy: null,
    sell: null,
  }));
  // The current price as the last point, so the line reaches now.
  points.push({ t: Date.now() / 1000, close: p.current.priceNative, buy: null, sell: null });
  for (const tr of trades) {
    points.push({
      t: tr.time,
      close: null,
      buy: tr.side === "BUY" ? tr.price : null,
      sell: tr.side === "SELL" ? tr.price : null,
    });
  }
  points.sort((a, b) => a.t - b.t);
  const times = points.map((x) => x.t);
  const inRange = [
    ...points.flatMap((x) => [x.close, x.buy, x.sell]).filter((v): v is number => v !== null),
    p.purchase.priceNative,
  ].filter((v) => Number.isFinite(v) && v > 0);
  const lo0 = Math.min(...inRange);
  const hi0 = Math.max(...inRange);
  const pad = Math.max((hi0 - lo0) * 0.08, hi0 * 0.01);
  const range: [number, number] = [Math.max(0, lo0 - pad), hi0 + pad];

  const line = (label: string, value: number, colorVar: string, dash = [6, 4]): Series => ({
    label,
    values: times.map(() => value),
    colorVar,
    dash,
    width: 1.5,
  });
  const series: Series[] = [
    { label: "Price", values: points.map((x) => x.close), colorVar: "--accent" },
    line("Entry", p.purchase.priceNative, "--text", [2, 3]),
    line("Peak", p.stopLoss.peakPrice, "--muted", [2, 3]),
  ];
  const lv = p.levels;
  if (lv?.stopLossPrice != null) series.push(line("Stop", lv.stopLossPrice, "--loss"));
  for (const l of lv?.takeProfit.filter((x) => !x.hit).slice(0, 5) ?? []) {
    series.push(line(`TP ${l.level}`, l.price, "--gain"));
  }
  for (const l of lv?.dca.slice(0, 5) ?? []) series.push(line(`DCA ${l.order}`, l.price, "--warn"));
  const edges: EdgeMarker[] = [];
  for (const s of series.slice(1)) {
    const v = s.values[0];
    if (typeof v !== "number") continue;
    if (v > range[1]) edges.push({ label: `${s.label} ${price(v)} ↑`, colorVar: s.colorVar, edge: "top" });
    else if (v < range[0]) edges.push({ label: `${s.label} ${price(v)} ↓`, colorVar: s.colorVar, edge: "bottom" });
  }
  if (trades.some((t) => t.side === "BUY"))
    series.push({ label: "Buy", values: points.map((x) => x.buy), colorVar: "--gain", markers: 11 });
  if (trades.some((t) => t.side === "SELL"))
    series.push({ label: "Sell", values: points.map((x) => x.sell), colorVar: "--loss", markers: 11 });
  return { times, series, range, edges };
}

/** Which strategy the position's exit rules come from (an edit reaches open positions only when applied). */
function followedRules(c: NonNullable<Position["exitConfig"]>): string {
  if (c.source === "applied") return `The strategy as edited on ${fmtTime(c.since)} (applied to open positions)`;
  if (c.source === "opened") return `The strategy as it was when opened, ${fmtTime(c.since)}`;
  return "The agent's current strategy (opened before positions kept their own)";
}

function LevelList({ p }: { p: Position }) {
  const lv = p.levels;
  return (
    <dl class="figures wide" aria-label="Levels">
      <dt>Held for</dt>
      <dd title={fmtTime(p.purchase.transaction.time)}>{heldFor(p.purchase.transaction.time)}</dd>
      <dt>Entry (average)</dt>
      <dd>
        {price(p.purchase.priceNative)} SOL <span class="muted small">{fmtUsd(p.purchase.priceUsd)}</span>
      </dd>
      <dt>Current</dt>
      <dd>
        {price(p.current.priceNative)} SOL <span class="muted small">{fmtUsd(p.current.priceUsd)}</span>
      </dd>
      <dt>Peak</dt>
      <dd>{price(p.stopLoss.peakPrice)} SOL</dd>
      {p.exitConfig && (
        <>
          <dt>Rules</dt>
          <dd>{followedRules(p.exitConfig)}</dd>
        </>
      )}
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

/** The position's buys and sells, each with its explorer link. */
function TradeList({ trades }: { trades: TradePoint[] }) {
  if (trades.length === 0) return null;
  return (
    <ul class="plain small" aria-label="Trades of this position">
      {trades.map((t) => (
        <li key={t.id}>
          <span class={t.side === "BUY" ? "gain" : "loss"}>{t.side === "BUY" ? "▲ Buy" : "▼ Sell"}</span>{" "}
          {fmtSol(t.sol)} at {price(t.price)} SOL · {fmtTime(new Date(t.time * 1000).toISOString())}
          <ExplorerLink kind="tx" id={t.hash} label={`${t.side === "BUY" ? "Buy" : "Sell"} transaction`} />
        </li>
      ))}
    </ul>
  );
}

/** Sells the whole position after a confirmation. */
function CloseButton(props: { agentId: string; p: Position; onClosed: (text: string) => void }) {
  const { agentId, p, onClosed } = props;
  return (
    <ConfirmButton
      label="Close position"
      confirmLabel="Confirm close"
      question={`Sell all ${p.tokenSymbol}?`}
      danger
      onConfirm={async () => {
        const r = await api<{ profitLossSol: number; changePercent: number }>(
          "POST",
          `/agent-positions/${agentId}/${p.id}/close`,
          { reason: "manual" },
        );
        onClosed(`${p.tokenSymbol} closed: P/L ${fmtSol(r.profitLossSol)} (${fmtPct(r.changePercent)})`);
      }}
    />
  );
}

/** What the last sale or close said, as the page's status line. */
function Said({ text }: { text: string | null }) {
  return text ? (
    <p class="notice" role="status">
      {text}
    </p>
  ) : null;
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
  const txs = useLoad(
    () =>
      p
        ? get<Transaction[]>(
            `/agent-transactions${query({ agentId, startTime: new Date(Date.parse(p.createdAt) - 60_000).toISOString(), limit: 200 })}`,
          )
        : Promise.resolve([] as Transaction[]),
    [agentId, p?.createdAt, version],
  );
  // What the last sale or close said; the position is reloaded after it.
  const [closed, setClosed] = useState<string | null>(null);
  const done = (text: string) => {
    setClosed(text);
    setVersion((v) => v + 1);
  };
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
  const trades = useMemo(() => (p && txs.data ? tradePoints(p, txs.data) : []), [p, txs.data]);
  const chart = useMemo(() => (p && bars.data ? chartOf(p, bars.data, trades) : null), [p, bars.data, trades]);

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
        <Said text={closed} />
        <p class="muted">
          This position is closed or does not exist; closed positions are in{" "}
          <a href={href("agents", agentId, "history")}>History</a>.
        </p>
      </div>
    );
  }
  return (
    <div class="stack">
      {back}
      <Section
        title={`Position ${p.tokenSymbol}`}
        actions={
          <div class="row wrap">
            <SellButtons agentId={agentId} p={p} onSold={done} />
            <CloseButton agentId={agentId} p={p} onClosed={done} />
          </div>
        }
      >
        <Said text={closed} />
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
            range={chart.range}
            edges={chart.edges}
          />
        )}
        {chart && chart.edges.length > 0 && (
          <p class="muted small" role="note" aria-label="Levels beyond the chart">
            Beyond the chart: {chart.edges.map((e) => e.label).join(" · ")}
          </p>
        )}
        <TradeList trades={trades} />
        <LevelList p={p} />
      </Section>
    </div>
  );
}
