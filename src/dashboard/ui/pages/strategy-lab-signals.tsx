import { localToIso } from "../format.ts";

// The strategy lab's signal selection: the form's first fieldset and the request's `signals`.

export type Selection = { source: string; signalType: string; minStrength: string; from: string; to: string };

/** The request's signal selection: only what the user filled in. */
export function signalsOf(sel: Selection): Record<string, unknown> {
  const signals: Record<string, unknown> = {};
  if (sel.source.trim()) signals.source = sel.source.trim();
  if (sel.signalType.trim()) signals.signalType = sel.signalType.trim();
  if (sel.minStrength) signals.minStrength = Number(sel.minStrength);
  if (sel.from) signals.startDate = localToIso(sel.from);
  if (sel.to) signals.endDate = localToIso(sel.to);
  return signals;
}

/** The backtest's name, starting balance and which of the caller's signals it replays. */
export function SignalSelection(props: {
  name: string;
  onName: (v: string) => void;
  initialSol: string;
  onInitialSol: (v: string) => void;
  sel: Selection;
  onSel: (sel: Selection) => void;
}) {
  const { sel, onSel } = props;
  return (
    <fieldset>
      <legend>Signals</legend>
      <div class="field">
        <label for="lab-name">Backtest name</label>
        <input id="lab-name" value={props.name} maxLength={255} onInput={(e) => props.onName(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="lab-sol">Initial SOL</label>
        <input
          id="lab-sol"
          inputMode="decimal"
          value={props.initialSol}
          onInput={(e) => props.onInitialSol(e.currentTarget.value)}
        />
      </div>
      {(
        [
          ["source", "Source", "any"],
          ["signalType", "Signal type", "any"],
        ] as const
      ).map(([k, label, ph]) => (
        <div class="field" key={k}>
          <label for={`lab-${k}`}>{label}</label>
          <input
            id={`lab-${k}`}
            value={sel[k]}
            placeholder={ph}
            onInput={(e) => onSel({ ...sel, [k]: e.currentTarget.value })}
          />
        </div>
      ))}
      <div class="field">
        <label for="lab-strength">Minimum strength</label>
        <select
          id="lab-strength"
          value={sel.minStrength}
          onChange={(e) => onSel({ ...sel, minStrength: e.currentTarget.value })}
        >
          <option value="">any</option>
          {[1, 2, 3, 4, 5].map((n) => (
            <option key={n} value={String(n)}>
              {n}
            </option>
          ))}
        </select>
      </div>
      {(
        [
          ["from", "From"],
          ["to", "To"],
        ] as const
      ).map(([k, label]) => (
        <div class="field" key={k}>
          <label for={`lab-${k}`}>{label}</label>
          <input
            id={`lab-${k}`}
            type="datetime-local"
            value={sel[k]}
            onInput={(e) => onSel({ ...sel, [k]: e.currentTarget.value })}
          />
        </div>
      ))}
    </fieldset>
  );
}
