import { fmtNum } from "../format.ts";
import type { Position } from "../types.ts";

// The rules' price levels of a position as the server reports them (`levels`, computed by the
// rule functions themselves): the positions table shows the stop, the next take-profit level and
// the next DCA order; the position page lists them all. "off" when the rule is disabled.

export const price = (v: number) => fmtNum(v, 10);

export function StopLevel({ p }: { p: Position }) {
  if (!p.levels) return <>–</>;
  return <>{p.levels.stopLossPrice === null ? "off" : price(p.levels.stopLossPrice)}</>;
}

export function TakeProfitLevel({ p }: { p: Position }) {
  const tp = p.levels?.takeProfit;
  if (!tp) return <>–</>;
  if (tp.length === 0) return <>off</>;
  const next = tp.find((l) => !l.hit);
  if (!next) return <span class="muted">all {tp.length} hit</span>;
  return (
    <>
      {price(next.price)}
      <span class="muted small block">
        level {next.level} of {tp.length}
      </span>
    </>
  );
}

export function DcaLevel({ p }: { p: Position }) {
  const levels = p.levels;
  if (!levels) return <>–</>;
  const next = levels.dca[0];
  if (!next)
    return <>{levels.dcaOrdersFilled > 0 ? <span class="muted">{levels.dcaOrdersFilled} filled</span> : "off"}</>;
  return (
    <>
      {price(next.price)}
      <span class="muted small block">order {next.order}</span>
    </>
  );
}
