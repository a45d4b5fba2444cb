import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorNote, Section } from "../components.tsx";
import type { Agent } from "../types.ts";

// Name and trading mode, and deleting the agent: irreversible, so the name must be typed first.

export function AgentSettings(props: { agent: Agent; onSaved: (a: Agent) => void; onDelete: () => Promise<void> }) {
  const { agent } = props;
  const [name, setName] = useState(agent.name);
  const [mode, setMode] = useState(agent.tradingMode);
  const [typed, setTyped] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [deleteError, setDeleteError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);

  return (
    <div class="stack">
      <Section title="Agent settings">
        <form
          class="row wrap"
          onSubmit={async (e) => {
            e.preventDefault();
            setError(null);
            setSaved(false);
            try {
              props.onSaved(await api<Agent>("PUT", `/agents/${agent.id}`, { name, tradingMode: mode }));
              setSaved(true);
            } catch (err) {
              setError(err);
            }
          }}
        >
          <label>
            Name
            <input value={name} maxLength={255} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <label>
            Trading mode
            <select value={mode} onChange={(e) => setMode(e.currentTarget.value as Agent["tradingMode"])}>
              <option value="simulation">simulation</option>
              <option value="live">live</option>
            </select>
          </label>
          <button type="submit" class="primary">
            Save settings
          </button>
          {saved && (
            <span class="notice" role="status">
              Saved.
            </span>
          )}
        </form>
        <ErrorNote error={error} />
      </Section>
      <Section title="Delete agent">
        <p>Deleting removes the agent, its positions, balance history and strategy. This cannot be undone.</p>
        <form
          class="row wrap"
          onSubmit={async (e) => {
            e.preventDefault();
            setDeleteError(null);
            try {
              await props.onDelete();
            } catch (err) {
              setDeleteError(err);
            }
          }}
        >
          <label>
            Type the agent's name to confirm
            <input value={typed} autocomplete="off" onInput={(e) => setTyped(e.currentTarget.value)} />
          </label>
          <button type="submit" class="danger" disabled={typed !== agent.name}>
            Delete agent
          </button>
        </form>
        <ErrorNote error={deleteError} />
      </Section>
    </div>
  );
}
