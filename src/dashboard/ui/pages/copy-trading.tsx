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
  maxSolPerTrade: number;
  maxOpenPositions: number;
  dailySolBudget: number;
  createdAt: string;
}

interface Group {
  id: string;
  name: string;
  addresses: string[];
  windowSeconds: number;
  minWallets: number;
  signalStrength: number;
  enabled: boolean;
}

const IGNORED: Record<string, string> = {
  not_signed: "ignored: the wallet did not sign it",
  not_a_swap: "ignored: its SOL went to another wallet, not through a DEX swap",
};

interface DetectedTrade {
  signature: string;
  side: "buy" | "sell";
  tokenAddress: string;
  solAmount: string;
  blockTime: string;
  signalId: number | null;
  ignoredReason: "not_signed" | "not_a_swap" | null;
  processing: {
    status: string;
    evaluations: Array<{ agentId: string; agentName: string; outcome: string; reason: string | null }>;
  } | null;
}

const FIELDS = [
  "address",
  "label",
  "minSolAmount",
  "signalStrength",
  "maxSolPerTrade",
  "maxOpenPositions",
  "dailySolBudget",
];

function FollowForm({ onCreated }: { onCreated: () => void }) {
  const [address, setAddress] = useState("");
  const [label, setLabel] = useState("");
  const [minSol, setMinSol] = useState("0.1");
  const [strength, setStrength] = useState("3");
  const [copySells, setCopySells] = useState(false);
  const [maxSol, setMaxSol] = useState("0.1");
  const [maxOpen, setMaxOpen] = useState("1");
  const [budget, setBudget] = useState("0.5");
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
        maxSolPerTrade: Number(maxSol),
        maxOpenPositions: Number(maxOpen),
        dailySolBudget: Number(budget),
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
      <div class="row wrap">
        <label>
          Max SOL per copied buy
          <input inputMode="decimal" value={maxSol} onInput={(e) => setMaxSol(e.currentTarget.value)} />
        </label>
        <label>
          Max open copied positions
          <input inputMode="numeric" value={maxOpen} onInput={(e) => setMaxOpen(e.currentTarget.value)} />
        </label>
        <label>
          Daily SOL budget
          <input inputMode="decimal" value={budget} onInput={(e) => setBudget(e.currentTarget.value)} />
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
                {t.signalId !== null ? (
                  <a href={href("signals", String(t.signalId))}>#{t.signalId}</a>
                ) : t.ignoredReason ? (
                  IGNORED[t.ignoredReason]
                ) : (
                  "not copied"
                )}
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
      <p class="small">
        Limits per agent: at most {watch.maxSolPerTrade} SOL a copied buy · {watch.maxOpenPositions} open copied
        position{watch.maxOpenPositions === 1 ? "" : "s"} · {watch.dailySolBudget} SOL a day
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

function Groups() {
  const { data, error, reload } = useLoad(() => get<Group[]>("/wallet-watch-groups"), []);
  const [name, setName] = useState("");
  const [addresses, setAddresses] = useState("");
  const [windowSeconds, setWindowSeconds] = useState("600");
  const [minWallets, setMinWallets] = useState("2");
  const [formError, setFormError] = useState<unknown>(null);
  const create = async (e: Event) => {
    e.preventDefault();
    setFormError(null);
    try {
      await api("POST", "/wallet-watch-groups", {
        name: name.trim(),
        addresses: addresses.split(/[\s,]+/).filter(Boolean),
        windowSeconds: Number(windowSeconds),
        minWallets: Number(minWallets),
      });
      setName("");
      setAddresses("");
      reload();
    } catch (err) {
      setFormError(err);
    }
  };
  return (
    <section aria-label="Wallet groups">
      <h3>Groups</h3>
      <p class="muted small">
        One signal (source <code>group:&lt;name&gt;</code>) when enough wallets of a group buy the same token within the
        window. Each wallet of a group needs its own watch above.
      </p>
      <form onSubmit={create} aria-label="Create a group">
        <div class="row wrap">
          <label>
            Group name
            <input value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <label>
            Window (seconds)
            <input inputMode="numeric" value={windowSeconds} onInput={(e) => setWindowSeconds(e.currentTarget.value)} />
          </label>
          <label>
            Wallets that must buy
            <input inputMode="numeric" value={minWallets} onInput={(e) => setMinWallets(e.currentTarget.value)} />
          </label>
        </div>
        <label>
          Group members (one address per line)
          <textarea rows={3} value={addresses} onInput={(e) => setAddresses(e.currentTarget.value)} />
        </label>
        <ErrorNote error={formError} />
        <button type="submit">Create group</button>
      </form>
      <ErrorNote error={error} />
      {data?.length === 0 && <p class="muted small">No groups yet.</p>}
      <ul>
        {data?.map((g) => (
          <li key={g.id} aria-label={`Group ${g.name}`}>
            <strong>{g.name}</strong>: {g.minWallets} of {g.addresses.length} wallets within {g.windowSeconds} s ·
            strength {g.signalStrength}{" "}
            <ConfirmButton
              label="Delete"
              confirmLabel="Delete group"
              question={`Delete group ${g.name}?`}
              danger
              onConfirm={async () => {
                await api("DELETE", `/wallet-watch-groups/${g.id}`);
                reload();
              }}
            />
          </li>
        ))}
      </ul>
    </section>
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
      <Groups />
    </Section>
  );
}
