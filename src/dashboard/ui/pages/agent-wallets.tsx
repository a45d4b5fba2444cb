import { useState } from "preact/hooks";
import { api, get } from "../api.ts";
import { ConfirmButton, ErrorNote, ExplorerLink, Section, useLoad } from "../components.tsx";
import { fmtSol, fmtTime } from "../format.ts";
import type { Agent } from "../types.ts";

// Wallets: the agent's wallets, a live wallet from those loaded from the environment
// (WALLET_1, …), deposit checks and the simulation reset. /wallets/* allows 5 requests a minute,
// so this tab loads only when opened and never refreshes by itself.

interface WalletsView {
  agentWallets: Array<{ walletAddress: string; walletType: string; isAvailable: boolean; createdAt: string }>;
  availableWallets: Array<{ walletAddress: string; isAssigned: boolean }>;
}

export function AgentWallets({ agent }: { agent: Agent }) {
  const { data, error, reload } = useLoad(() => get<WalletsView>(`/wallets/agent/${agent.id}`), [agent.id]);
  const [choice, setChoice] = useState("");
  const [message, setMessage] = useState("");
  const [actionError, setActionError] = useState<unknown>(null);

  const run = async (fn: () => Promise<string>) => {
    setActionError(null);
    setMessage("");
    try {
      setMessage(await fn());
    } catch (err) {
      setActionError(err);
    }
  };

  const assign = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const r = await api<{ message: string }>("POST", "/wallets/assign", {
        agentId: agent.id,
        walletAddress: choice,
        walletType: "live",
      });
      reload();
      return r.message;
    });
  };

  const free = data?.availableWallets.filter((w) => !w.isAssigned) ?? [];
  return (
    <div class="stack">
      <Section
        title="Wallets"
        actions={
          <button type="button" onClick={reload}>
            Reload wallets
          </button>
        }
      >
        <ErrorNote error={error ?? actionError} />
        {message && (
          <p class="notice" role="status">
            {message}
          </p>
        )}
        <ul class="plain">
          {data?.agentWallets.map((w) => (
            <li key={w.walletAddress} class="wallet">
              <div>
                <span class={`badge ${w.walletType}`}>{w.walletType}</span> <code>{w.walletAddress}</code>
                <ExplorerLink kind="account" id={w.walletAddress} label={`Wallet ${w.walletAddress}`} />
                {!w.isAvailable && <span class="badge warn">not loaded</span>}
                <div class="muted small">assigned {fmtTime(w.createdAt)}</div>
              </div>
              <div class="row wrap">
                <button
                  type="button"
                  onClick={() =>
                    run(async () => {
                      const r = await api<{ depositsFound: number; newBalance: string }>(
                        "POST",
                        `/wallets/${encodeURIComponent(w.walletAddress)}/check-deposits`,
                      );
                      return `${r.depositsFound} deposit(s) found; balance ${fmtSol(r.newBalance)}`;
                    })
                  }
                >
                  Check deposits
                </button>
                {w.walletType === "simulation" && (
                  <ConfirmButton
                    label="Reset simulation"
                    confirmLabel="Confirm reset"
                    question="Back to the initial SOL; token balances and open positions go."
                    danger
                    onConfirm={() =>
                      run(async () => {
                        const r = await api<{ message: string }>(
                          "POST",
                          `/wallets/${encodeURIComponent(w.walletAddress)}/reset`,
                        );
                        return r.message;
                      })
                    }
                  />
                )}
              </div>
            </li>
          ))}
        </ul>
      </Section>
      <Section title="Assign a live wallet">
        {data && free.length === 0 ? (
          <p class="muted">No live wallet is free. Live wallets come from WALLET_1, WALLET_2, … in the environment.</p>
        ) : (
          <form class="row wrap" onSubmit={assign}>
            <label>
              Live wallet
              <select value={choice} onChange={(e) => setChoice(e.currentTarget.value)}>
                <option value="">choose…</option>
                {free.map((w) => (
                  <option key={w.walletAddress} value={w.walletAddress}>
                    {w.walletAddress}
                  </option>
                ))}
              </select>
            </label>
            <button type="submit" class="primary" disabled={!choice}>
              Assign live wallet
            </button>
          </form>
        )}
      </Section>
    </div>
  );
}
