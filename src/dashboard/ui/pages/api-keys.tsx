import { useState } from "preact/hooks";
import { api, get } from "../api.ts";
import { CheckboxGroup, ConfirmButton, ErrorNote, Section, useLoad } from "../components.tsx";
import { fmtTime } from "../format.ts";

// API keys. The raw key is in the creation answer only: it is shown once, with
// a copy button, and forgotten when the page changes.

const SCOPES = ["full_access", "signals", "agents", "positions", "balances", "transactions", "history"] as const;
const SCOPE_OPTIONS = SCOPES.map((s) => [s, s] as const);

interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  lastUsedAt: string | null;
  createdAt: string;
}

function NewKey({ keyText, onDone }: { keyText: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="notice" role="status">
      <p>Copy this key now. It is shown only once.</p>
      <label>
        New API key
        <input readOnly value={keyText} onFocus={(e) => e.currentTarget.select()} />
      </label>
      <div class="row">
        <button
          type="button"
          onClick={async () => {
            await navigator.clipboard?.writeText(keyText).catch(() => {});
            setCopied(true);
          }}
        >
          {copied ? "Copied" : "Copy key"}
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

export function ApiKeysPage() {
  const { data, error, reload } = useLoad(() => get<ApiKey[]>("/api-keys"), []);
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<string[]>(["signals"]);
  const [created, setCreated] = useState<string | null>(null);
  const [createError, setCreateError] = useState<unknown>(null);

  const create = async (e: Event) => {
    e.preventDefault();
    setCreateError(null);
    try {
      const r = await api<{ key: string }>("POST", "/api-keys", { name, scopes });
      setCreated(r.key);
      setName("");
      reload();
    } catch (err) {
      setCreateError(err);
    }
  };

  return (
    <div class="stack">
      <Section title="Create an API key">
        {created && <NewKey keyText={created} onDone={() => setCreated(null)} />}
        <form onSubmit={create}>
          <label>
            Key name
            <input value={name} required onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <fieldset>
            <legend>Scopes</legend>
            <CheckboxGroup options={SCOPE_OPTIONS} selected={scopes} onChange={setScopes} />
          </fieldset>
          <ErrorNote error={createError} />
          <button type="submit" class="primary">
            Create key
          </button>
        </form>
      </Section>
      <Section title="API keys">
        <ErrorNote error={error} />
        {data?.length === 0 && <p class="muted">No API keys yet.</p>}
        {data && data.length > 0 && (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Prefix</th>
                  <th>Scopes</th>
                  <th>Last used</th>
                  <th>Created</th>
                  <th>
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.map((k) => (
                  <tr key={k.id} aria-label={`API key ${k.name}`}>
                    <td>{k.name}</td>
                    <td>
                      <code>{k.prefix}…</code>
                    </td>
                    <td>{k.scopes.join(", ")}</td>
                    <td class="small">{k.lastUsedAt ? fmtTime(k.lastUsedAt) : "never"}</td>
                    <td class="small">{fmtTime(k.createdAt)}</td>
                    <td>
                      <ConfirmButton
                        label="Delete"
                        confirmLabel="Confirm delete"
                        question={`Delete key ${k.name}?`}
                        danger
                        onConfirm={async () => {
                          await api("DELETE", `/api-keys/${k.id}`);
                          reload();
                        }}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
    </div>
  );
}
