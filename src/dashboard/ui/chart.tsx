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
}

export function TimeChart(props: {
  title: string;
  times: number[];
  series: Series[];
  unit: string;
  /** Value text (legend and y axis); 4 decimals when absent. */
  format?: (v: number) => string;
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
            value: (_u: uPlot, v: number | null) => (v === null ? "–" : `${fmt(v)} ${props.unit}`),
          })),
        ],
        axes: [
          axis,
          props.format
            ? { ...axis, size: 90, values: (_u: uPlot, vs: number[]) => vs.map((v) => fmt(v)) }
            : { ...axis, size: 70 },
        ],
        scales: { x: { time: true } },
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
  }, [props.times, props.series, props.unit, props.format]);
  return <figure class="chart" ref={box} aria-label={props.title} />;
}
