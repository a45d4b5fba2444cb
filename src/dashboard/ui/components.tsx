import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ApiError, newRequestKey } from "./api.ts";
import { DEFAULT_EXPLORER, type ExplorerKind, explorerHref } from "./explorer.ts";
import { tradingStatus } from "./trading-status.ts";

// Small building blocks. Every input has a visible label and every action is a button with text,
// so keyboards, screen readers and browser tests find them by role and name.

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const details = error instanceof ApiError && Array.isArray(error.details) ? (error.details as unknown[]) : [];
  return (
    <div class="error" role="alert">
      {message}
      {details.length > 0 && (
        <ul>
          {details.map((d) => (
            <li key={String(d)}>{typeof d === "string" ? d : JSON.stringify(d)}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Section(props: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card" aria-label={props.title}>
      <header class="card-head">
        <h2>{props.title}</h2>
        {props.actions && <div class="row">{props.actions}</div>}
      </header>
      {props.children}
    </section>
  );
}

/**
 * A button that asks before acting: the first press shows "Confirm …" and "Cancel" in place;
 * only the confirmation runs the action.
 */
export function ConfirmButton(props: {
  label: string;
  confirmLabel: string;
  question: string;
  /** `requestKey`: made when the question opens, the same for each retry of this confirmation. */
  onConfirm: (requestKey: string) => Promise<unknown>;
  danger?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const [requestKey, setRequestKey] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  if (!asking) {
    return (
      <button
        type="button"
        class={props.danger ? "danger" : ""}
        onClick={() => {
          setRequestKey(newRequestKey());
          setAsking(true);
        }}
      >
        {props.label}
      </button>
    );
  }
  return (
    <fieldset class="confirm" aria-label={props.question}>
      <span>{props.question}</span>
      <button
        type="button"
        class="danger"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(null);
          try {
            await props.onConfirm(requestKey);
            setAsking(false);
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        {props.confirmLabel}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
      <ErrorNote error={error} />
    </fieldset>
  );
}

/** Loads data on mount and when `deps` change; `reload` fetches again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

/** A row of checkboxes choosing a subset of `options` ([value, label] pairs), in the order clicked. */
export function CheckboxGroup(props: {
  options: ReadonlyArray<readonly [string, string]>;
  selected: readonly string[];
  onChange: (next: string[]) => void;
}) {
  const { selected, onChange } = props;
  return (
    <div class="row wrap">
      {props.options.map(([value, label]) => (
        <label key={value} class="check">
          <input
            type="checkbox"
            checked={selected.includes(value)}
            onChange={(e) =>
              onChange(e.currentTarget.checked ? [...selected, value] : selected.filter((v) => v !== value))
            }
          />
          {label}
        </label>
      ))}
    </div>
  );
}

const WHAT: Record<ExplorerKind, string> = { tx: "Transaction", account: "Wallet", token: "Token" };

/**
 * The explorer's page of `id` at the service's EXPLORER_URL; null: no link (simulated id, links
 * off, or the service has not said yet: no link to Solscan flashes up where links are turned off).
 */
export function explorerLink(kind: ExplorerKind, id: string | null | undefined): string | null {
  const status = tradingStatus.value;
  // On the demo market every token, wallet and transaction is made up: no explorer knows them.
  if (status?.demoMarket) return null;
  return status ? explorerHref(kind, id, status.explorerUrl ?? DEFAULT_EXPLORER) : null;
}

/** A small "↗" link to the explorer; `label` names the thing for screen readers and tests. */
export function ExplorerLink(props: { kind: ExplorerKind; id: string | null | undefined; label?: string }) {
  const link = explorerLink(props.kind, props.id);
  if (!link) return null;
  const host = new URL(link).host;
  return (
    <a
      class="explorer"
      href={link}
      target="_blank"
      rel="noopener noreferrer"
      aria-label={`${props.label ?? WHAT[props.kind]} on ${host}`}
      title={`Open on ${host}`}
    >
      ↗
    </a>
  );
}
