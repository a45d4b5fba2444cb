import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";

// A time-series line chart on uPlot (docs/decisions.md "Dashboard": ~50 KB minified, canvas,
// made for time series). Colours come from the page's CSS variables so the dark theme applies.

export interface Series {
  label: string;
  values: Array<number | null>;
  colorVar: string;
  /** Dash pattern in px (level lines); solid when absent. */
  dash?: number[];
  width?: number;
  /** Points only, no line (trade markers), drawn this large (px). */
  markers?: number;
}

/** A level outside the y range: drawn as a labelled marker on the chart's top or bottom edge. */
export interface EdgeMarker {
  label: string;
  colorVar: string;
  edge: "top" | "bottom";
}

export function TimeChart(props: {
  title: string;
  times: number[];
  series: Series[];
  unit: string;
  /** Value text (legend and y axis); 4 decimals when absent. */
  format?: (v: number) => string;
  /** A fixed y range (levels beyond it are clipped and shown by `edges`); fitted to all series when absent. */
  range?: [number, number];
  edges?: EdgeMarker[];
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const css = getComputedStyle(document.documentElement);
    const fg = css.getPropertyValue("--muted").trim() || "#999";
    const grid = css.getPropertyValue("--line").trim() || "#333";
    const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const fmt = props.format ?? ((v: number) => v.toFixed(4));
    const plot = new uPlot(
      {
        width: el.clientWidth || 600,
        height: 240,
        series: [
          {},
          ...props.series.map((s) => ({
            label: s.label,
            stroke: css.getPropertyValue(s.colorVar).trim() || "#4ea1ff",
            width: s.width ?? 2,
            // A level line is a dashed constant: points on it would only clutter.
            ...(s.dash ? { dash: s.dash, points: { show: false } } : {}),
            ...(s.markers
              ? {
                  paths: () => null,
                  points: {
                    show: true,
                    size: s.markers,
                    fill: css.getPropertyValue(s.colorVar).trim() || "#4ea1ff",
                  },
                }
              : { spanGaps: true }),
            value: (_u: uPlot, v: number | null) => (v === null ? "–" : `${fmt(v)} ${props.unit}`),
          })),
        ],
        axes: [
          axis,
          props.format
            ? { ...axis, size: 90, values: (_u: uPlot, vs: number[]) => vs.map((v) => fmt(v)) }
            : { ...axis, size: 70 },
        ],
        scales: { x: { time: true }, ...(props.range ? { y: { range: () => props.range as [number, number] } } : {}) },
        hooks: { draw: [(u: uPlot) => drawEdges(u, props.edges ?? [], css)] },
      },
      [props.times, ...props.series.map((s) => s.values)] as uPlot.AlignedData,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: 240 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [props.times, props.series, props.unit, props.format, props.range, props.edges]);
  return <figure class="chart" ref={box} aria-label={props.title} />;
}

/** Levels beyond the y range: a small triangle and its label on the top or bottom edge, at the right. */
function drawEdges(u: uPlot, edges: EdgeMarker[], css: CSSStyleDeclaration): void {
  const { ctx, bbox } = u;
  const pr = devicePixelRatio || 1;
  const count = { top: 0, bottom: 0 };
  ctx.save();
  ctx.font = `${11 * pr}px system-ui, sans-serif`;
  ctx.textAlign = "right";
  for (const e of edges) {
    const color = css.getPropertyValue(e.colorVar).trim() || "#999";
    const i = count[e.edge]++;
    const x = bbox.left + bbox.width - 6 * pr;
    const dir = e.edge === "top" ? -1 : 1;
    const y = e.edge === "top" ? bbox.top + (8 + i * 14) * pr : bbox.top + bbox.height - (8 + i * 14) * pr;
    ctx.fillStyle = color;
    ctx.beginPath();
    ctx.moveTo(x, y + dir * 5 * pr);
    ctx.lineTo(x - 5 * pr, y - dir * 3 * pr);
    ctx.lineTo(x + 5 * pr, y - dir * 3 * pr);
    ctx.closePath();
    ctx.fill();
    ctx.textBaseline = "middle";
    // On a panel-coloured box, so a label over the price line stays readable.
    const w = ctx.measureText(e.label).width;
    ctx.fillStyle = css.getPropertyValue("--panel").trim() || "#171b21";
    ctx.fillRect(x - 11 * pr - w, y - 7 * pr, w + 4 * pr, 14 * pr);
    ctx.fillStyle = color;
    ctx.fillText(e.label, x - 9 * pr, y);
  }
  ctx.restore();
}
