import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorNote } from "../components.tsx";
import type { Agent } from "../types.ts";

// An agent's automation switch for one mode (PUT /agents/:id), on the overview's cards and table
// and the agent's page.

export function AutomationSwitch(props: {
  agent: Agent;
  mode: "simulation" | "live";
  onChange: (a: Agent) => void;
  /** A table cell's short label ("Sim", "Live"); the switch keeps its full name. */
  compact?: boolean;
}) {
  const name = props.mode === "simulation" ? "Simulation automation" : "Live automation";
  const field = props.mode === "simulation" ? "automatedTradingSimulation" : "automatedTradingLive";
  const [error, setError] = useState<unknown>(null);
  return (
    <label class="check">
      <input
        type="checkbox"
        role="switch"
        aria-checked={props.agent[field]}
        aria-label={props.compact ? name : undefined}
        checked={props.agent[field]}
        onChange={async (e) => {
          const checked = e.currentTarget.checked;
          setError(null);
          try {
            props.onChange(await api<Agent>("PUT", `/agents/${props.agent.id}`, { [field]: checked }));
          } catch (err) {
            setError(err);
          }
        }}
      />
      {props.compact ? (props.mode === "simulation" ? "Sim" : "Live") : name}
      <ErrorNote error={error} />
    </label>
  );
}
