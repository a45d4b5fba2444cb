import { useEffect, useMemo, useState } from "preact/hooks";
import { ApiError, api, download, get } from "../api.ts";
import { type Series, TimeChart } from "../chart.tsx";
import { ErrorNote, Section, useLoad } from "../components.tsx";
import { CONFIG_FIELDS, CONFIG_GROUPS, type ConfigField, messagesByField, setPath } from "../config-fields.ts";
import { fmtNum, fmtSol, fmtTime, plClass } from "../format.ts";
import { navigate, route } from "../router.ts";
import { type Config, type Draft, FieldInput, fromDraft, toDraft } from "./strategy-editor.tsx";
import { type Selection, SignalSelection, signalsOf } from "./strategy-lab-signals.tsx";

// The strategy lab: variants (a name and the strategy editor's fields, only
// the changed ones sent), a signal selection, Run → POST /backtests, the run polled every 2 s
// while queued or running, then the variants compared in a table and their equity curves in one
// chart. #/lab/<id> opens a backtest; the recent ones are listed below.

interface VariantResult {
  name: string;
  trades?: number;
  winRate?: number;
  profitLossSol?: string;
  returnPercent?: number;
  maxDrawdownPercent?: number;
  profitFactor?: number | null;
  averageHoldMinutes?: number;
  exposure?: number;
  equity?: Array<{ time: string; valueSol: string }>;
}
interface Backtest {
  id: string;
  name: string;
  status: "queued" | "running" | "done" | "failed";
  progress: number;
  error: string | null;
  createdAt: string;
  initialSol: number;
  variants: VariantResult[];
}
type BacktestItem = Omit<Backtest, "variants"> & { variants: number };

const DEFAULTS: Config = {};
for (const f of CONFIG_FIELDS) setPath(DEFAULTS, f.path, f.default);
const DEFAULT_DRAFT = toDraft(DEFAULTS, [...CONFIG_FIELDS]);
const COLORS = ["--accent", "--gain", "--loss", "--warn", "--focus", "--muted"];
const POLL_MS = 2000;

interface VariantDraft {
  key: number;
  name: string;
  draft: Draft;
}
let nextKey = 1;
const newVariant = (name: string): VariantDraft => ({ key: nextKey++, name, draft: { ...DEFAULT_DRAFT } });

/** Only the fields changed from the defaults: the API merges them over the defaults. */
function changedConfig(draft: Draft): Config {
  const changed = CONFIG_FIELDS.filter((f) => draft[f.path] !== DEFAULT_DRAFT[f.path]);
  return fromDraft(draft, [...changed]);
}

function VariantEditor(props: {
  v: VariantDraft;
  index: number;
  errors: Map<string, string[]>;
  onChange: (v: VariantDraft) => void;
  onRemove?: () => void;
}) {
  const { v, index } = props;
  const prefix = `lab${v.key}`;
  const changed = CONFIG_FIELDS.filter((f) => v.draft[f.path] !== DEFAULT_DRAFT[f.path]).length;
  return (
    <fieldset class="variant" aria-label={`Variant ${index + 1}`}>
      <legend>Variant {index + 1}</legend>
      <div class="row">
        <div class="field">
          <label for={`${prefix}-name`}>Variant {index + 1} name</label>
          <input
            id={`${prefix}-name`}
            value={v.name}
            maxLength={100}
            onInput={(e) => props.onChange({ ...v, name: e.currentTarget.value })}
          />
        </div>
        {props.onRemove && (
          <button type="button" onClick={props.onRemove}>
            Remove variant {index + 1}
          </button>
        )}
      </div>
      <details open={props.errors.size > 0}>
        <summary>Configuration ({changed === 0 ? "defaults" : `${changed} changed`})</summary>
        {CONFIG_GROUPS.map(([group, title]) => {
          const inGroup = CONFIG_FIELDS.filter((f) => (group ? f.path.startsWith(`${group}.`) : !f.path.includes(".")));
          return (
            <fieldset key={group}>
              <legend>{title}</legend>
              {inGroup.map((f: ConfigField) => (
                <FieldInput
                  key={f.path}
                  field={f}
                  idPrefix={prefix}
                  value={v.draft[f.path] ?? ""}
                  errors={props.errors.get(f.path)}
                  onChange={(x) => props.onChange({ ...v, draft: { ...v.draft, [f.path]: x } })}
                />
              ))}
            </fieldset>
          );
        })}
      </details>
    </fieldset>
  );
}

function Results({ bt }: { bt: Backtest }) {
  const chart = useMemo(() => {
    const times = [...new Set(bt.variants.flatMap((v) => (v.equity ?? []).map((p) => Date.parse(p.time) / 1000)))].sort(
      (a, b) => a - b,
    );
    const series: Series[] = bt.variants.map((v, i) => {
      // Equity is sampled per trade: carry each variant's last value forward on the shared axis.
      const at = new Map((v.equity ?? []).map((p) => [Date.parse(p.time) / 1000, Number(p.valueSol)]));
      let last: number | null = null;
      return {
        label: v.name,
        colorVar: COLORS[i % COLORS.length]!,
        values: times.map((t) => {
          last = at.get(t) ?? last;
          return last;
        }),
      };
    });
    return { times, series };
  }, [bt]);
  const pct = (v: number | undefined) => (v === undefined ? "–" : `${fmtNum(v * 100, 1)} %`);
  return (
    <>
      <div class="table-wrap">
        <table aria-label="Variant comparison">
          <thead>
            <tr>
              <th>Variant</th>
              <th>Trades</th>
              <th>Win rate</th>
              <th>P/L</th>
              <th>Return</th>
              <th>Max drawdown</th>
              <th>Profit factor</th>
              <th>Avg hold</th>
              <th>Exposure</th>
            </tr>
          </thead>
          <tbody>
            {bt.variants.map((v) => (
              <tr key={v.name} aria-label={`Variant ${v.name}`}>
                <td>{v.name}</td>
                <td>{v.trades ?? "–"}</td>
                <td>{pct(v.winRate)}</td>
                <td class={plClass(v.profitLossSol)}>{fmtSol(v.profitLossSol)}</td>
                <td class={plClass(v.returnPercent)}>{fmtNum(v.returnPercent, 2)} %</td>
                <td>{fmtNum(v.maxDrawdownPercent, 2)} %</td>
                <td>{v.profitFactor === null ? "–" : fmtNum(v.profitFactor, 2)}</td>
                <td>{fmtNum(v.averageHoldMinutes, 1)} min</td>
                <td>{pct(v.exposure)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {chart.times.length > 0 && (
        <TimeChart title="Equity curves (SOL)" times={chart.times} series={chart.series} unit="SOL" />
      )}
      <button
        type="button"
        onClick={() => void download(`/backtests/${bt.id}/trades?format=csv`, "backtest-trades.csv")}
      >
        Export trades CSV
      </button>
    </>
  );
}

function BacktestView({ id, onFinished }: { id: string; onFinished: () => void }) {
  const [bt, setBt] = useState<Backtest | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = () =>
      get<Backtest>(`/backtests/${id}`).then(
        (b) => {
          if (!live) return;
          setBt(b);
          if (b.status === "queued" || b.status === "running") timer = setTimeout(poll, POLL_MS);
          else onFinished();
        },
        (err) => live && setError(err),
      );
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [id]);
  if (error) return <ErrorNote error={error} />;
  if (!bt) return <p class="muted">Loading…</p>;
  return (
    <Section title={`Backtest: ${bt.name}`}>
      <p role="status">
        Status: <strong>{bt.status}</strong>
        {(bt.status === "queued" || bt.status === "running") && (
          <>
            {" "}
            <progress value={bt.progress} max={1} aria-label="Backtest progress" /> {fmtNum(bt.progress * 100, 0)} %
          </>
        )}
      </p>
      {bt.status === "failed" && <ErrorNote error={new Error(bt.error ?? "The backtest failed")} />}
      {bt.status === "done" && <Results bt={bt} />}
    </Section>
  );
}

function RecentBacktests({ version }: { version: number }) {
  const { data, error } = useLoad(() => get<BacktestItem[]>("/backtests?limit=20"), [route.value.join("/"), version]);
  if (error) return <ErrorNote error={error} />;
  if (!data || data.length === 0) return null;
  return (
    <Section title="Recent backtests">
      <ul class="plain">
        {data.map((b) => (
          <li key={b.id}>
            <a href={`#/lab/${b.id}`}>{b.name}</a>{" "}
            <span class="muted">
              {b.status} · {b.variants} variants · {fmtTime(b.createdAt)}
            </span>
          </li>
        ))}
      </ul>
    </Section>
  );
}

/** A 400's details "variants.<i>.config: <field> ..." → that variant's messages by field. */
function variantErrors(details: unknown[], count: number): Map<number, Map<string, string[]>> {
  const byVariant = new Map<number, Map<string, string[]>>();
  for (let i = 0; i < count; i++) {
    const prefix = `variants.${i}.config: `;
    const mine = details.filter((d): d is string => typeof d === "string" && d.startsWith(prefix));
    if (mine.length > 0)
      byVariant.set(
        i,
        messagesByField(
          mine.map((d) => d.slice(prefix.length)),
          CONFIG_FIELDS.map((f) => f.path),
        ),
      );
  }
  return byVariant;
}

export function StrategyLabPage({ id }: { id?: string }) {
  const [name, setName] = useState("Strategy comparison");
  const [initialSol, setInitialSol] = useState("10");
  const [sel, setSel] = useState<Selection>({ source: "", signalType: "", minStrength: "", from: "", to: "" });
  const [variants, setVariants] = useState<VariantDraft[]>(() => [newVariant("Defaults")]);
  const [errors, setErrors] = useState<Map<number, Map<string, string[]>>>(new Map());
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [version, setVersion] = useState(0);

  const run = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setErrors(new Map());
    setBusy(true);
    try {
      const r = await api<{ id: string }>("POST", "/backtests", {
        name,
        initialSol: Number(initialSol),
        signals: signalsOf(sel),
        variants: variants.map((v) => ({ name: v.name, config: changedConfig(v.draft) })),
      });
      navigate("lab", r.id);
    } catch (err) {
      if (err instanceof ApiError && err.status === 400 && Array.isArray(err.details))
        setErrors(variantErrors(err.details, variants.length));
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="stack">
      <h1>Strategy lab</h1>
      {id && <BacktestView key={id} id={id} onFinished={() => setVersion((n) => n + 1)} />}
      <Section title="New backtest">
        <form onSubmit={run} aria-label="New backtest">
          <SignalSelection
            name={name}
            onName={setName}
            initialSol={initialSol}
            onInitialSol={setInitialSol}
            sel={sel}
            onSel={setSel}
          />
          {variants.map((v, i) => (
            <VariantEditor
              key={v.key}
              v={v}
              index={i}
              errors={errors.get(i) ?? new Map()}
              onChange={(nv) => setVariants(variants.map((x) => (x.key === v.key ? nv : x)))}
              onRemove={variants.length > 1 ? () => setVariants(variants.filter((x) => x.key !== v.key)) : undefined}
            />
          ))}
          <ErrorNote error={error} />
          <div class="row">
            <button
              type="button"
              disabled={variants.length >= 50}
              onClick={() => setVariants([...variants, newVariant(`Variant ${variants.length + 1}`)])}
            >
              Add variant
            </button>
            <button type="submit" class="primary" disabled={busy}>
              Run backtest
            </button>
          </div>
        </form>
      </Section>
      <RecentBacktests version={version} />
    </div>
  );
}
