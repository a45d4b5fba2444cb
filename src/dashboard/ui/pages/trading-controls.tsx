import { useState } from "preact/hooks";
import { ErrorNote } from "../components.tsx";
import { fmtTime } from "../format.ts";
import { href } from "../router.ts";
import { type Mode, setPaused, tradingStatus } from "../trading-status.ts";
import { CloseAllButton } from "./close-all.tsx";

// What a person must see on every page before trusting the service with money (issue 34): a banner
// while live trading is enabled, a banner per tripped risk breaker or paused mode (with the action
// that ends it), and the header's switch that pauses or resumes entries per mode or all at once.
// Exits, stop-losses and take-profits keep running while paused; the banners say so.

const LABEL: Record<Mode, string> = { simulation: "Simulation", live: "Live" };
const MODES: Mode[] = ["simulation", "live"];

/** A button that runs one switch change and shows its error in place. */
function SwitchButton(props: { label: string; mode: Mode | "all"; paused: boolean; primary?: boolean }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <>
      <button
        type="button"
        class={props.primary ? "primary" : ""}
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(null);
          try {
            await setPaused(props.mode, props.paused);
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        {props.label}
      </button>
      <ErrorNote error={error} />
    </>
  );
}

/** The banners above every page: live trading on, tripped breakers, paused modes. */
export function TradingBanners() {
  const s = tradingStatus.value;
  if (!s) return null;
  return (
    <div class="banners">
      {s.liveTradingEnabled && (
        <section class="banner live" role="note" aria-label="Live trading enabled">
          <span>
            <strong>Live trading is enabled.</strong> Agents in live mode trade real SOL from their wallets.
            {s.live.paused ? " Live entries are paused." : ""}
          </span>
        </section>
      )}
      {MODES.map((mode) => {
        const m = s[mode];
        if (m.tripped) {
          return (
            <section key={mode} class="banner danger" role="alert" aria-label={`${LABEL[mode]} risk breaker tripped`}>
              <span>
                <strong>{LABEL[mode]} trading stopped by a risk limit</strong> at {fmtTime(m.tripped.at)}:{" "}
                {m.tripped.reason}. No buys in {mode} mode until you resume: new entries, copied buys and DCA orders are
                held. Stop-losses, take-profits, exit signals and manual closes keep running.{" "}
                <a href={href("risk-limits")}>Risk limits</a>
              </span>
              <SwitchButton label={`Resume ${mode} trading`} mode={mode} paused={false} primary />
            </section>
          );
        }
        if (m.paused) {
          return (
            <section key={mode} class="banner" role="status" aria-label={`${LABEL[mode]} trading paused`}>
              <span>
                <strong>{LABEL[mode]} trading is paused</strong>
                {m.pausedAt ? ` since ${fmtTime(m.pausedAt)}` : ""}: no buys — new entries, copied buys and DCA orders
                are held. Stop-losses, take-profits, exit signals and manual closes keep running.
              </span>
              <SwitchButton label={`Resume ${mode} trading`} mode={mode} paused={false} />
            </section>
          );
        }
        return null;
      })}
    </div>
  );
}

/** The header's switch: a summary of what runs, opening per-mode switches and pause/resume all. */
export function TradingSwitch() {
  const s = tradingStatus.value;
  const [error, setError] = useState<unknown>(null);
  if (!s) return null;
  const stopped = MODES.filter((m) => s[m].paused || s[m].tripped);
  const summary =
    stopped.length === 0
      ? "Trading on"
      : stopped.length === 2
        ? "Trading paused"
        : `${LABEL[stopped[0] as Mode]} paused`;
  return (
    <details class={`trading-switch ${stopped.length ? "paused" : ""}`}>
      <summary>{summary}</summary>
      <fieldset class="menu" aria-label="Trading switches">
        {MODES.map((mode) => {
          const on = !s[mode].paused && !s[mode].tripped;
          return (
            <label key={mode} class="check">
              <input
                type="checkbox"
                role="switch"
                aria-checked={on}
                checked={on}
                onChange={async (e) => {
                  const checked = e.currentTarget.checked;
                  setError(null);
                  try {
                    await setPaused(mode, !checked);
                  } catch (err) {
                    setError(err);
                  }
                }}
              />
              {LABEL[mode]} entries
            </label>
          );
        })}
        {stopped.length < 2 ? (
          <SwitchButton label="Pause all trading" mode="all" paused />
        ) : (
          <SwitchButton label="Resume all trading" mode="all" paused={false} />
        )}
        <p class="muted small">Paused: no buys (entries, copied buys, DCA). Stop-losses and closes run.</p>
        <CloseAllButton />
        <ErrorNote error={error} />
      </fieldset>
    </details>
  );
}
