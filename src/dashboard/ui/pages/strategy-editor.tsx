import { useEffect, useState } from "preact/hooks";
import { ApiError, api, get } from "../api.ts";
import { ConfirmButton, ErrorNote, Section } from "../components.tsx";
import {
  CONFIG_FIELDS,
  CONFIG_GROUPS,
  type ConfigField,
  getPath,
  guessField,
  isListKind,
  leafPaths,
  messagesByField,
  setPath,
} from "../config-fields.ts";
import { TokenPicker } from "../token-picker.tsx";

// The strategy editor: one labelled input per configuration field with its default, unit and
// range; Save sends the whole form as {config}; the API's validation messages (`details`) are
// shown next to the field they name. "Reset to defaults" sends {config: null}.

export type Config = Record<string, unknown>;
/** Form values as typed (strings for numbers and lists, booleans for switches). */
export type Draft = Record<string, string | boolean>;

// toDraft, fromDraft and FieldInput are shared with the strategy lab's variant editor.
export function toDraft(config: Config, fields: ConfigField[]): Draft {
  const d: Draft = {};
  for (const f of fields) {
    const v = getPath(config, f.path);
    if (f.kind === "boolean") d[f.path] = v === true;
    else if (isListKind(f.kind)) d[f.path] = Array.isArray(v) ? v.join("\n") : "";
    else d[f.path] = v === null || v === undefined ? "" : String(v);
  }
  return d;
}

/** Numbers that do not parse are sent as typed, so the API's own message explains them. */
export function fromDraft(draft: Draft, fields: ConfigField[]): Config {
  const out: Config = {};
  for (const f of fields) {
    const raw = draft[f.path];
    let value: unknown = raw;
    if (isListKind(f.kind)) {
      value = String(raw)
        .split(/[\s,]+/)
        .filter(Boolean);
    } else if (f.kind === "number" || f.kind === "integer" || f.kind === "nullableNumber") {
      const text = String(raw).trim();
      value =
        text === "" ? (f.kind === "nullableNumber" ? null : text) : Number.isFinite(Number(text)) ? Number(text) : text;
    }
    setPath(out, f.path, value);
  }
  return out;
}

const fieldsFor = (config: Config): ConfigField[] => {
  const known = new Set(CONFIG_FIELDS.map((f) => f.path));
  const extra = leafPaths(config)
    .filter((p) => !known.has(p))
    .map((p) => guessField(p, getPath(config, p)));
  return [...CONFIG_FIELDS, ...extra];
};

const showDefault = (v: unknown) =>
  v === null ? "none" : Array.isArray(v) ? (v.length ? v.join(", ") : "none") : String(v);
const inputId = (path: string, prefix = "cfg") => `${prefix}-${path.replace(/\./g, "-")}`;

export function FieldInput(props: {
  field: ConfigField;
  value: string | boolean;
  errors?: string[];
  onChange: (v: string | boolean) => void;
  /** Distinguishes the ids when several editors share a page (the strategy lab's variants). */
  idPrefix?: string;
}) {
  const { field: f, value, errors } = props;
  const id = inputId(f.path, props.idPrefix);
  // Token lists are picked by symbol (TokenPicker); the table's unit describes the stored form.
  const picked = f.kind === "tokenList" && /Tokens$/.test(f.path);
  const unit = picked ? "by symbol or mint address" : f.unit;
  const hint = [f.default !== undefined ? `Default ${showDefault(f.default)}` : "", unit ?? "", f.range ?? ""]
    .filter(Boolean)
    .join(" · ");
  const describedBy = `${id}-hint${errors ? ` ${id}-error` : ""}`;
  const common = { id, "aria-describedby": describedBy, "aria-invalid": errors ? true : undefined };
  let input: preact.JSX.Element;
  if (f.kind === "boolean") {
    input = (
      <input
        type="checkbox"
        {...common}
        checked={value === true}
        onChange={(e) => props.onChange(e.currentTarget.checked)}
      />
    );
  } else if (f.kind === "choice") {
    input = (
      <select {...common} value={String(value)} onChange={(e) => props.onChange(e.currentTarget.value)}>
        {(f.choices ?? []).map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
    );
  } else if (picked) {
    input = (
      <TokenPicker
        id={id}
        label={f.label}
        value={String(value)}
        describedBy={describedBy}
        onChange={(v) => props.onChange(v)}
      />
    );
  } else if (isListKind(f.kind)) {
    input = (
      <textarea {...common} rows={3} value={String(value)} onInput={(e) => props.onChange(e.currentTarget.value)} />
    );
  } else {
    input = (
      <input
        {...common}
        type="text"
        inputMode="decimal"
        value={String(value)}
        placeholder={f.kind === "nullableNumber" ? "none" : undefined}
        onInput={(e) => props.onChange(e.currentTarget.value)}
      />
    );
  }
  return (
    <div class={`field ${f.kind === "boolean" ? "inline" : ""} ${picked ? "tokens" : ""} ${errors ? "invalid" : ""}`}>
      <label for={id}>{f.label}</label>
      {input}
      <small id={`${id}-hint`} class="muted">
        {hint}
      </small>
      {errors && (
        <small id={`${id}-error`} class="field-error" role="alert">
          {errors.join("; ")}
        </small>
      )}
    </div>
  );
}

/** " Applied to N open positions." after a save sent with applyToOpenPositions. */
const appliedNote = (r: { appliedToOpenPositions?: number }) =>
  r.appliedToOpenPositions === undefined
    ? ""
    : ` Applied to ${r.appliedToOpenPositions} open position${r.appliedToOpenPositions === 1 ? "" : "s"}.`;

function ApplyToOpenBox({ checked, onChange }: { checked: boolean; onChange: (v: boolean) => void }) {
  return (
    <label class="check">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.currentTarget.checked)} />
      Apply to open positions too
      <span class="muted small block">
        Open positions keep the stop-loss, take-profit, DCA and age limit they were opened with unless this is ticked;
        new positions always take the saved strategy.
      </span>
    </label>
  );
}

export function StrategyEditor({ agentId }: { agentId: string }) {
  const [fields, setFields] = useState<ConfigField[]>([]);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [errors, setErrors] = useState<Map<string, string[]>>(new Map());
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState("");
  // Off by default: open positions keep the exit rules they were opened with (issue 44 item 2).
  const [toOpen, setToOpen] = useState(false);

  const adopt = (config: Config) => {
    const fs = fieldsFor(config);
    setFields(fs);
    setDraft(toDraft(config, fs));
    setErrors(new Map());
  };

  useEffect(() => {
    get<{ config: Config }>(`/agents/${agentId}/config`).then((r) => adopt(r.config), setError);
  }, [agentId]);

  const save = async (e: Event) => {
    e.preventDefault();
    if (!draft) return;
    setError(null);
    setSaved("");
    try {
      const r = await api<{ config: Config; appliedToOpenPositions?: number }>("PUT", `/agents/${agentId}/config`, {
        config: fromDraft(draft, fields),
        applyToOpenPositions: toOpen,
      });
      adopt(r.config);
      setSaved(`Strategy saved.${appliedNote(r)}`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 400 && Array.isArray(err.details)) {
        const byField = messagesByField(
          err.details,
          fields.map((f) => f.path),
        );
        setErrors(byField);
        setError(new ApiError(400, err.message, byField.get("")));
      } else setError(err);
    }
  };

  if (!draft) return <ErrorNote error={error} />;
  return (
    <Section
      title="Strategy"
      actions={
        <ConfirmButton
          label="Reset to defaults"
          confirmLabel="Confirm reset"
          question="Replace the whole strategy with the defaults?"
          onConfirm={async () => {
            const r = await api<{ config: Config; appliedToOpenPositions?: number }>(
              "PUT",
              `/agents/${agentId}/config`,
              { config: null, applyToOpenPositions: toOpen },
            );
            adopt(r.config);
            setSaved(`Strategy reset to defaults.${appliedNote(r)}`);
          }}
        />
      }
    >
      <form onSubmit={save} aria-label="Strategy">
        {CONFIG_GROUPS.map(([group, title]) => {
          const inGroup = fields.filter((f) => (group ? f.path.startsWith(`${group}.`) : !f.path.includes(".")));
          if (inGroup.length === 0) return null;
          return (
            <fieldset key={group}>
              <legend>{title}</legend>
              {inGroup.map((f) => (
                <FieldInput
                  key={f.path}
                  field={f}
                  value={draft[f.path] ?? ""}
                  errors={errors.get(f.path)}
                  onChange={(v) => setDraft({ ...draft, [f.path]: v })}
                />
              ))}
            </fieldset>
          );
        })}
        {fields.some((f) => !CONFIG_GROUPS.some(([g]) => (g ? f.path.startsWith(`${g}.`) : !f.path.includes(".")))) && (
          <fieldset>
            <legend>Other</legend>
            {fields
              .filter((f) => !CONFIG_GROUPS.some(([g]) => (g ? f.path.startsWith(`${g}.`) : !f.path.includes("."))))
              .map((f) => (
                <FieldInput
                  key={f.path}
                  field={f}
                  value={draft[f.path] ?? ""}
                  errors={errors.get(f.path)}
                  onChange={(v) => setDraft({ ...draft, [f.path]: v })}
                />
              ))}
          </fieldset>
        )}
        <ApplyToOpenBox checked={toOpen} onChange={setToOpen} />
        <ErrorNote error={error} />
        {saved && (
          <p class="notice" role="status">
            {saved}
          </p>
        )}
        <button type="submit" class="primary">
          Save strategy
        </button>
      </form>
    </Section>
  );
}
