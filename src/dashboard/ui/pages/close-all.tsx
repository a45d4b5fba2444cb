import { useState } from "preact/hooks";
import { api, get } from "../api.ts";
import { ErrorNote } from "../components.tsx";
import type { Position } from "../types.ts";

// "Get out at once" (issue 41 item 6): the header's menu opens a confirmation that names the mode
// and how many positions it closes now, with "Pause entries first" (POST /trading/close-all with
// pause: true); nothing is sold before the confirm button. Simulation wallets start with sim_
// (SPEC "Wallets"), so the count per mode needs no other request than the open positions.

type CloseMode = "simulation" | "live" | "all";

interface CloseAllItem {
  positionId: string;
  tokenAddress: string;
  tokenSymbol: string;
  status: "closed" | "pending" | "already_closed" | "failed";
  error: string | null;
}

interface CloseAllAnswer {
  mode: CloseMode;
  paused: boolean;
  results: CloseAllItem[];
}

const MODE_WORDS: Record<CloseMode, string> = { all: "simulation and live", simulation: "simulation", live: "live" };

const inMode = (mode: CloseMode) => (p: Position) =>
  mode === "all" || p.walletAddress.startsWith("sim_") === (mode === "simulation");

const plural = (n: number) => `${n} position${n === 1 ? "" : "s"}`;

function outcome(a: CloseAllAnswer): string {
  const n = (s: CloseAllItem["status"]) => a.results.filter((r) => r.status === s).length;
  const parts = [`Closed ${n("closed")} of ${plural(a.results.length)}.`];
  if (n("pending")) parts.push(`${n("pending")} awaiting the chain.`);
  if (n("already_closed")) parts.push(`${n("already_closed")} already closed by another exit.`);
  if (n("failed")) parts.push(`${n("failed")} not closed.`);
  return `${a.paused ? `Entries paused in ${MODE_WORDS[a.mode]} mode. ` : ""}${parts.join(" ")}`;
}

/** The confirmation: mode, count, pause-first checkbox; the answer per position once done. */
function CloseAllConfirm(props: { positions: Position[]; onDone: () => void }) {
  const [mode, setMode] = useState<CloseMode>("all");
  const [pause, setPause] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [answer, setAnswer] = useState<CloseAllAnswer | null>(null);
  const count = props.positions.filter(inMode(mode)).length;
  if (answer) {
    return (
      <section class="card close-all-panel" role="status" aria-label="Close all result">
        <p>{outcome(answer)}</p>
        <ul>
          {answer.results
            .filter((r) => r.status === "failed" || r.status === "pending")
            .map((r) => (
              <li key={r.positionId}>
                {r.tokenSymbol || r.tokenAddress}: {r.error}
              </li>
            ))}
        </ul>
        <button type="button" onClick={props.onDone}>
          Done
        </button>
      </section>
    );
  }
  return (
    <section class="card close-all-panel" role="dialog" aria-label="Close all positions">
      <fieldset>
        <legend>Positions of</legend>
        {(["all", "simulation", "live"] as const).map((m) => (
          <label key={m} class="check">
            <input type="radio" name="close-all-mode" checked={mode === m} onChange={() => setMode(m)} />
            {m === "all" ? "All modes" : m === "simulation" ? "Simulation" : "Live"}
          </label>
        ))}
      </fieldset>
      <p>
        <strong>
          Close {plural(count)} ({MODE_WORDS[mode]})?
        </strong>{" "}
        Each is sold at market through the manual close, with its exit floor and fees.
      </p>
      <label class="check">
        <input type="checkbox" checked={pause} onChange={(e) => setPause(e.currentTarget.checked)} />
        Pause entries first (no new positions open in {MODE_WORDS[mode]} mode)
      </label>
      <div class="row">
        <button
          type="button"
          class="danger"
          disabled={busy || count === 0}
          onClick={async () => {
            setBusy(true);
            setError(null);
            try {
              setAnswer(await api<CloseAllAnswer>("POST", "/trading/close-all", { mode, pause }));
            } catch (err) {
              setError(err);
            } finally {
              setBusy(false);
            }
          }}
        >
          {busy ? "Closing…" : `Close ${plural(count)}`}
        </button>
        <button type="button" onClick={props.onDone} disabled={busy}>
          Cancel
        </button>
      </div>
      <ErrorNote error={error} />
    </section>
  );
}

/** The menu's entry: loads the open positions, then asks. */
export function CloseAllButton() {
  const [positions, setPositions] = useState<Position[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  if (positions) return <CloseAllConfirm positions={positions} onDone={() => setPositions(null)} />;
  return (
    <>
      <button
        type="button"
        onClick={async () => {
          setError(null);
          try {
            setPositions(await get<Position[]>("/agent-positions"));
          } catch (err) {
            setError(err);
          }
        }}
      >
        Close all positions…
      </button>
      <ErrorNote error={error} />
    </>
  );
}
