import { useEffect, useState } from "preact/hooks";
import { api, get } from "../api.ts";
import { ErrorNote, Section, useLoad } from "../components.tsx";
import { fmtNum, fmtSol, fmtTime } from "../format.ts";
import { onEvent } from "../live.ts";
import type { Mode } from "../trading-status.ts";

// Risk limits (`#/risk-limits`, GET/PUT /api/v1/risk-limits): per trading mode, the account-wide
// caps over all agents, each shown beside where the account stands now. An empty field is off
// (null); the API checks the bounds and its message appears under the form.

interface Limits {
  maxOpenPositions: number | null;
  maxExposureSol: number | null;
  dailyLossLimitSol: number | null;
}
interface ModeRisk extends Limits {
  tripped: { reason: string; at: string } | null;
  usage: { openPositions: number; exposureSol: number; dailyLossSol: number };
}
type RiskLimits = Record<Mode, ModeRisk>;

const FIELDS: Array<{ key: keyof Limits; label: string; usage: (u: ModeRisk["usage"]) => string }> = [
  { key: "maxOpenPositions", label: "max open positions", usage: (u) => `${u.openPositions} open now` },
  { key: "maxExposureSol", label: "max exposure (SOL)", usage: (u) => `${fmtSol(u.exposureSol)} in positions now` },
  {
    key: "dailyLossLimitSol",
    label: "daily loss limit (SOL)",
    usage: (u) => (u.dailyLossSol > 0 ? `${fmtSol(u.dailyLossSol)} lost in the window` : "no loss in the window"),
  },
];

type Draft = Record<Mode, Record<keyof Limits, string>>;

const toDraft = (r: RiskLimits): Draft => {
  const one = (m: ModeRisk) => ({
    maxOpenPositions: m.maxOpenPositions === null ? "" : String(m.maxOpenPositions),
    maxExposureSol: m.maxExposureSol === null ? "" : String(m.maxExposureSol),
    dailyLossLimitSol: m.dailyLossLimitSol === null ? "" : String(m.dailyLossLimitSol),
  });
  return { simulation: one(r.simulation), live: one(r.live) };
};

const fromDraft = (d: Record<keyof Limits, string>): Limits => {
  const n = (v: string) => (v.trim() === "" ? null : Number(v));
  return {
    maxOpenPositions: n(d.maxOpenPositions),
    maxExposureSol: n(d.maxExposureSol),
    dailyLossLimitSol: n(d.dailyLossLimitSol),
  };
};

export function RiskLimitsPage() {
  const { data, error, reload } = useLoad(() => get<RiskLimits>("/risk-limits"), []);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [saveError, setSaveError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (data) setDraft(toDraft(data));
  }, [data]);
  useEffect(() => onEvent((e) => e.type === "risk.tripped" && reload()), []);
  return (
    <div class="stack risk-limits">
      <Section title="Risk limits">
        <p class="muted">
          Caps over all your agents, per trading mode. An entry that would break one is refused (rule{" "}
          <code>risk_limit</code>); a daily loss over its limit stops new entries in that mode until you resume. Exits
          and stop-losses are never held back. Leave a field empty to turn that limit off.
        </p>
        <p class="muted">
          Both modes start with the same limits: 10 open positions, 5 SOL in positions and a 1 SOL daily loss, so a
          simulation stops where live would. Change or lift them here.
        </p>
        <ErrorNote error={error} />
        {data && draft && (
          <form
            onSubmit={async (e) => {
              e.preventDefault();
              setSaveError(null);
              setSaved(false);
              try {
                const next = await api<RiskLimits>("PUT", "/risk-limits", {
                  simulation: fromDraft(draft.simulation),
                  live: fromDraft(draft.live),
                });
                setDraft(toDraft(next));
                setSaved(true);
                reload();
              } catch (err) {
                setSaveError(err);
              }
            }}
          >
            {(["simulation", "live"] as const).map((mode) => (
              <fieldset key={mode} aria-label={`${mode} limits`}>
                <legend>
                  {mode === "simulation" ? "Simulation" : "Live"}
                  {data[mode].tripped && (
                    <span class="badge live">
                      tripped {fmtTime(data[mode].tripped?.at)}: {data[mode].tripped?.reason}
                    </span>
                  )}
                </legend>
                {FIELDS.map((f) => (
                  <label key={f.key}>
                    {`${mode === "simulation" ? "Simulation" : "Live"} ${f.label}`}
                    <input
                      type="number"
                      step="any"
                      inputMode="decimal"
                      placeholder="off"
                      value={draft[mode][f.key]}
                      onInput={(e) => {
                        const v = e.currentTarget.value;
                        setSaved(false);
                        setDraft((d) => (d ? { ...d, [mode]: { ...d[mode], [f.key]: v } } : d));
                      }}
                    />
                    <span class="muted small">{f.usage(data[mode].usage)}</span>
                  </label>
                ))}
              </fieldset>
            ))}
            <div class="row wrap">
              <button type="submit" class="primary">
                Save risk limits
              </button>
              {saved && <span role="status">Risk limits saved.</span>}
            </div>
            <ErrorNote error={saveError} />
          </form>
        )}
        {data && (
          <p class="muted small">
            Daily loss now: simulation {fmtNum(data.simulation.usage.dailyLossSol)} SOL, live{" "}
            {fmtNum(data.live.usage.dailyLossSol)} SOL (negative = a gain).
          </p>
        )}
      </Section>
    </div>
  );
}
