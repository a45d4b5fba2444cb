import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ConfirmButton } from "../components.tsx";
import type { Agent } from "../types.ts";

// The agent page's Buy form (issue 44 item 5): a token and a SOL amount, a confirmation naming
// the agent's mode, then POST /agents/:id/buy — the same checks as an automated entry (pause,
// limits, screening, floor); a refusal shows the rule's reason.

export function ManualBuy({ agent, onBought }: { agent: Agent; onBought: () => void }) {
  const [token, setToken] = useState("");
  const [sol, setSol] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const ready = token.trim() !== "" && Number(sol) > 0;
  return (
    <form class="card stack" aria-label="Buy by hand" onSubmit={(e) => e.preventDefault()}>
      <h2>Buy by hand</h2>
      <p class="muted">The same checks as an automated entry: the pause, the risk limits, the token screening.</p>
      <div class="row wrap">
        <label>
          Token address
          <input value={token} onInput={(e) => setToken(e.currentTarget.value)} spellcheck={false} />
        </label>
        <label>
          Amount (SOL)
          <input inputMode="decimal" value={sol} onInput={(e) => setSol(e.currentTarget.value)} />
        </label>
      </div>
      {ready && (
        <ConfirmButton
          label="Buy"
          confirmLabel="Confirm buy"
          question={`Buy ${sol} SOL of ${token.trim()} with ${agent.name} in ${agent.tradingMode} mode?`}
          onConfirm={async (key) => {
            setDone(null);
            // The confirmation's key: a retry after a timeout answers the first buy, never buys twice.
            const r = await api<{ status: string }>(
              "POST",
              `/agents/${agent.id}/buy`,
              { tokenAddress: token.trim(), amountSol: Number(sol) },
              { "Idempotency-Key": key },
            );
            setDone(
              r.status === "opened" ? `Bought ${sol} SOL of ${token.trim()}.` : "Sent: the buy awaits the chain.",
            );
            onBought();
          }}
        />
      )}
      {done && (
        <p class="notice" role="status">
          {done}
        </p>
      )}
    </form>
  );
}
