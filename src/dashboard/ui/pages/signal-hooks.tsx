import { useState } from "preact/hooks";
import { api, get } from "../api.ts";
import { ConfirmButton, ErrorNote, Section, useLoad } from "../components.tsx";
import { fmtTime } from "../format.ts";
import { href } from "../router.ts";
import { SecretOnce } from "../secret-once.tsx";

// Signal hooks (issue 42 item 5; README "Receiving TradingView alerts"): create one (its URL is in
// the creation answer only: shown once with a copy button, beside the ready TradingView message),
// each hook's last deliveries, revoke.

interface Hook {
  id: string;
  name: string;
  source: string;
  allowedIps: string[];
  tokens: Record<string, string>;
  createdAt: string;
}

interface Delivery {
  receivedAt: string;
  status: number;
  error: string | null;
  duplicate: boolean;
  signal: { id: number; symbol: string | null; signalType: string; signalStrength: number } | null;
}

/** The alert message to paste into TradingView (the server's TRADINGVIEW_MESSAGE). */
const TRADINGVIEW_MESSAGE =
  '{"symbol": "{{ticker}}", "signalType": "buy", "signalStrength": "4", "timestamp": "{{timenow}}", "activationReason": "{{strategy.order.comment}}"}';

const listOf = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

/** `BONKUSDT=Dez…` per line (or `BONKUSDT Dez…`) → the tokens map. */
function tokensOf(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const [symbol, mint] = line.split(/[=\s]+/).filter(Boolean);
    if (symbol && mint) out[symbol] = mint;
  }
  return out;
}

function CopyField(props: { label: string; text: string; copyLabel: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="stack">
      <label>
        {props.label}
        <textarea readOnly rows={3} value={props.text} onFocus={(e) => e.currentTarget.select()} />
      </label>
      <div class="row">
        <button
          type="button"
          onClick={async () => {
            await navigator.clipboard?.writeText(props.text).catch(() => {});
            setCopied(true);
          }}
        >
          {copied ? "Copied" : props.copyLabel}
        </button>
      </div>
    </div>
  );
}

function CreateHook({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState("");
  const [ips, setIps] = useState("tradingview");
  const [tokens, setTokens] = useState("");
  const [created, setCreated] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const body = { name, allowedIps: listOf(ips), tokens: tokensOf(tokens) };
      const r = await api<{ url: string }>("POST", "/signal-hooks", body);
      // Without PUBLIC_BASE_URL the server answers a path: this dashboard's origin is the best guess.
      setCreated(r.url.startsWith("/") ? `${location.origin}${r.url}` : r.url);
      setName("");
      onCreated();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Section title="Create a signal hook">
      {created && (
        <div class="stack">
          <SecretOnce label="Hook URL" secret={created} copyLabel="Copy URL" onDone={() => setCreated(null)} />
          <CopyField label="TradingView alert message" text={TRADINGVIEW_MESSAGE} copyLabel="Copy message" />
        </div>
      )}
      <form onSubmit={create}>
        <label>
          Hook name
          <input value={name} required onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Allowed addresses (tradingview, addresses, CIDRs; empty: any)
          <input value={ips} onInput={(e) => setIps(e.currentTarget.value)} />
        </label>
        <label>
          Tokens (one SYMBOL=mint a line; alerts name the symbol)
          <textarea rows={3} value={tokens} onInput={(e) => setTokens(e.currentTarget.value)} />
        </label>
        <ErrorNote error={error} />
        <button type="submit" class="primary">
          Create hook
        </button>
      </form>
    </Section>
  );
}

function answerOf(d: Delivery): string {
  if (d.duplicate) return `${d.status} repeat`;
  return d.error ? `${d.status} ${d.error}` : String(d.status);
}

function HookCard({ hook, onRevoked }: { hook: Hook; onRevoked: () => void }) {
  const { data, error, reload } = useLoad(
    () => get<Delivery[]>(`/signal-hooks/${hook.id}/deliveries?limit=10`),
    [hook.id],
  );
  const symbols = Object.keys(hook.tokens);
  return (
    <article class="card stack" aria-label={`Hook ${hook.name}`}>
      <div class="row wrap">
        <strong>{hook.name}</strong>
        <span class="muted small">source {hook.source}</span>
        <span class="muted small">from {hook.allowedIps.length ? hook.allowedIps.join(", ") : "any address"}</span>
        <span class="muted small">
          {symbols.length ? `tokens ${symbols.join(", ")}` : "no tokens: send tokenAddress"}
        </span>
      </div>
      <ErrorNote error={error} />
      {data?.length === 0 && <p class="muted">No deliveries yet.</p>}
      {data && data.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Time</th>
                <th>Answer</th>
                <th>Signal</th>
              </tr>
            </thead>
            <tbody>
              {data.map((d) => (
                <tr key={d.receivedAt + d.status}>
                  <td class="small">{fmtTime(d.receivedAt)}</td>
                  <td>{answerOf(d)}</td>
                  <td>
                    {d.signal ? (
                      <a href={href("signals", String(d.signal.id))}>
                        {`${d.signal.signalType} ${d.signal.symbol ?? ""} strength ${d.signal.signalStrength}`}
                      </a>
                    ) : (
                      "—"
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="row">
        <button type="button" onClick={reload}>
          Refresh deliveries
        </button>
        <ConfirmButton
          label="Revoke"
          confirmLabel="Confirm revoke"
          question={`Revoke hook ${hook.name}? Its URL stops working at once.`}
          danger
          onConfirm={async () => {
            await api("DELETE", `/signal-hooks/${hook.id}`);
            onRevoked();
          }}
        />
      </div>
    </article>
  );
}

export function SignalHooksPage() {
  const { data, error, reload } = useLoad(() => get<Hook[]>("/signal-hooks"), []);
  return (
    <div class="stack">
      <CreateHook onCreated={reload} />
      <Section title="Signal hooks">
        <ErrorNote error={error} />
        {data?.length === 0 && <p class="muted">No signal hooks yet.</p>}
        {data?.map((h) => (
          <HookCard key={h.id} hook={h} onRevoked={reload} />
        ))}
      </Section>
    </div>
  );
}
