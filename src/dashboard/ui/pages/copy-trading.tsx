import { useState } from "preact/hooks";
import { api, get, query } from "../api.ts";
import { ConfirmButton, ErrorNote, Section, useLoad } from "../components.tsx";
import { showFormError } from "../field-errors.ts";
import { fmtTime, short } from "../format.ts";
import { href } from "../router.ts";

// Copy trading (docs/decisions.md "Copy trading"): follow a wallet, pause, resume or remove it, and see
// its detected trades with what the agents did with each copied signal. The address field is plain
// text so the API's message explains a bad address next to it.

interface Watch {
  id: string;
  address: string;
  label: string;
  minSolAmount: number;
  signalStrength: number;
  copySells: boolean;
  enabled: boolean;
  lastSeenSignature: string | null;
  lastError: string | null;
  lagSeconds: number | null;
  createdAt: string;
}

interface DetectedTrade {
  signature: string;
  side: "buy" | "sell";
  tokenAddress: string;
  solAmount: string;
  blockTime: string;
  signalId: number | null;
  processing: {
    status: string;
    evaluations: Array<{ agentId: string; agentName: string; outcome: string; reason: string | null }>;
  } | null;
}

const FIELDS = ["address", "label", "minSolAmount", "signalStrength"];

function FollowForm({ onCreated }: { onCreated: () => void }) {
  const [address, setAddress] = useState("");
  const [label, setLabel] = useState("");
  const [minSol, setMinSol] = useState("0.1");
  const [strength, setStrength] = useState("3");
  const [copySells, setCopySells] = useState(false);
  const [errors, setErrors] = useState<Map<string, string[]>>(new Map());
  const [error, setError] = useState<unknown>(null);

  const follow = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setErrors(new Map());
    try {
      await api("POST", "/wallet-watches", {
        address: address.trim(),
        label,
        minSolAmount: Number(minSol),
        signalStrength: Number(strength),
        copySells,
      });
      setAddress("");
      setLabel("");
      onCreated();
    } catch (err) {
      showFormError(err, FIELDS, setErrors, setError);
    }
  };
  const addressErrors = errors.get("address");
  return (
    <form onSubmit={follow} aria-label="Follow a wallet">
      <div class={`field${addressErrors ? " invalid" : ""}`}>
        <label for="ct-address">Wallet address</label>
        <input
          id="ct-address"
          autoComplete="off"
          spellcheck={false}
          value={address}
          aria-invalid={addressErrors ? true : undefined}
          aria-describedby={addressErrors ? "ct-address-error" : undefined}
          onInput={(e) => setAddress(e.currentTarget.value)}
        />
        {addressErrors && (
          <span id="ct-address-error" class="field-error small">
            {addressErrors.join("; ")}
          </span>
        )}
      </div>
      <div class="row wrap">
        <label>
          Label
          <input maxLength={100} value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
        </label>
        <label>
          Minimum SOL per trade
          <input inputMode="decimal" value={minSol} onInput={(e) => setMinSol(e.currentTarget.value)} />
        </label>
        <label>
          Signal strength
          <select value={strength} onChange={(e) => setStrength(e.currentTarget.value)}>
            {["1", "2", "3", "4", "5"].map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label class="check">
          <input type="checkbox" checked={copySells} onChange={(e) => setCopySells(e.currentTarget.checked)} />
          Copy sells (agents holding the token close)
        </label>
      </div>
      <ErrorNote error={error} />
      <button type="submit" class="primary">
        Follow wallet
      </button>
    </form>
  );
}

function Trades({ watch }: { watch: Watch }) {
  const { data, error } = useLoad(
    () => get<DetectedTrade[]>(`/wallet-watches/${watch.id}/trades${query({ limit: 20 })}`),
    [watch.id, watch.lastSeenSignature],
  );
  if (error) return <ErrorNote error={error} />;
  if (!data) return null;
  if (data.length === 0) return <p class="muted small">No trades detected since it was followed.</p>;
  return (
    <div class="table-wrap">
      <table aria-label={`Detected trades of ${watch.label || watch.address}`}>
        <thead>
          <tr>
            <th>Time</th>
            <th>Side</th>
            <th>Token</th>
            <th>SOL</th>
            <th>Signal</th>
            <th>What the agents did</th>
          </tr>
        </thead>
        <tbody>
          {data.map((t) => (
            <tr key={t.signature}>
              <td>{fmtTime(t.blockTime)}</td>
              <td>{t.side}</td>
              <td title={t.tokenAddress}>{short(t.tokenAddress)}</td>
              <td>{t.solAmount}</td>
              <td>
                {t.signalId !== null ? <a href={href("signals", String(t.signalId))}>#{t.signalId}</a> : "not copied"}
              </td>
              <td>
                {t.processing === null
                  ? "—"
                  : t.processing.evaluations.length === 0
                    ? t.processing.status
                    : t.processing.evaluations
                        .map((e) => `${e.agentName}: ${e.outcome}${e.reason ? ` (${e.reason})` : ""}`)
                        .join("; ")}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function WatchCard({ watch, onChange }: { watch: Watch; onChange: () => void }) {
  const [error, setError] = useState<unknown>(null);
  const toggle = async () => {
    setError(null);
    try {
      await api("PUT", `/wallet-watches/${watch.id}`, { enabled: !watch.enabled });
      onChange();
    } catch (err) {
      setError(err);
    }
  };
  const name = watch.label || short(watch.address);
  return (
    <article class="card" aria-label={`Wallet ${name}`}>
      <header class="card-head">
        <h3>{name}</h3>
        <div class="row">
          <button type="button" onClick={() => void toggle()}>
            {watch.enabled ? "Pause" : "Resume"}
          </button>
          <ConfirmButton
            label="Remove"
            confirmLabel="Remove wallet"
            question={`Stop following ${name}?`}
            danger
            onConfirm={async () => {
              await api("DELETE", `/wallet-watches/${watch.id}`);
              onChange();
            }}
          />
        </div>
      </header>
      <p class="small">
        <code>{watch.address}</code> · {watch.enabled ? "following" : "paused"} · trades of at least{" "}
        {watch.minSolAmount} SOL · strength {watch.signalStrength} · sells {watch.copySells ? "copied" : "not copied"}
        {watch.lagSeconds !== null && <> · last copy {watch.lagSeconds.toFixed(1)} s after the block</>}
      </p>
      {watch.lastError && (
        <p class="warning" role="alert">
          {watch.lastError}
        </p>
      )}
      <ErrorNote error={error} />
      <Trades watch={watch} />
    </article>
  );
}

export function CopyTradingPage() {
  const { data, error, reload } = useLoad(() => get<Watch[]>("/wallet-watches"), []);
  return (
    <Section
      title="Copy trading"
      actions={
        <button type="button" onClick={reload}>
          Refresh
        </button>
      }
    >
      <p class="muted small">
        Follow a wallet: each of its buys becomes a signal (source <code>wallet:&lt;address&gt;</code>) that your
        automated agents trade under their own rules. Trades from before you follow (or resume) a wallet are never
        copied. The signal source report (Strategy lab) is each wallet's track record.
      </p>
      <FollowForm onCreated={reload} />
      <ErrorNote error={error} />
      {data?.length === 0 && <p class="muted">No wallets followed yet.</p>}
      <div class="stack">
        {data?.map((w) => (
          <WatchCard key={w.id} watch={w} onChange={reload} />
        ))}
      </div>
    </Section>
  );
}
