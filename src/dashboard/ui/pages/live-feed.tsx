import { useEffect } from "preact/hooks";
import { ExplorerLink, Section } from "../components.tsx";
import { loadStoredFeed } from "../feed-history.ts";
import { fmtNum, fmtSol, short } from "../format.ts";
import { feedKey, recentEvents, type ServiceEvent } from "../live.ts";
import { agentNames, tokenSymbols } from "../names.ts";
import { href } from "../router.ts";

// The overview's live feed: the latest signals, trades and position changes, each naming its agent
// and token. After a reload it starts from the stream's replay (live.ts), and after a restart of
// the service from storage (feed-history.ts), so the last events are still there. Names: the event's own `agentName` / `tokenSymbol` when the server sends them,
// otherwise looked up from what the page has loaded (names.ts); an unknown id shows shortened.

const str = (v: unknown) => (typeof v === "string" && v ? v : null);

function tokenOf(d: Record<string, unknown>): string {
  const address = str(d.tokenAddress) ?? "";
  return str(d.tokenSymbol) ?? tokenSymbols.value.get(address) ?? short(address);
}

function agentOf(d: Record<string, unknown>): { id: string; name: string } | null {
  const id = str(d.agentId);
  if (!id) return null;
  return { id, name: str(d.agentName) ?? agentNames.value.get(id) ?? short(id, 4) };
}

/** Where a security notice came from (the browser or client is in the audit log's entry). */
const from = (d: Record<string, unknown>) => str(d.ip) ?? "unknown address";

function describeEvent(e: Pick<ServiceEvent, "type" | "data">): string {
  const d = e.data;
  const sig = d.signal as Record<string, unknown> | undefined;
  switch (e.type) {
    case "signal.created":
      return `Signal #${sig?.id} ${sig?.signalType} ${str(sig?.symbol) ?? tokenOf({ tokenAddress: sig?.tokenAddress })} (strength ${sig?.signalStrength})`;
    case "trade.executed": {
      const what = d.isTakeProfit ? ` take-profit ${d.takeProfitLevel ?? ""}`.trimEnd() : d.isDca ? " DCA" : "";
      const amount = d.amountSol ? `${fmtNum(d.amountSol)} SOL` : d.proceedsSol ? `→ ${fmtNum(d.proceedsSol)} SOL` : "";
      return `${String(d.side).toUpperCase()}${what} ${tokenOf(d)} ${amount} (${d.mode})`;
    }
    case "trade.failed":
      return `${String(d.side).toUpperCase()} ${tokenOf(d)} failed: ${d.reason}`;
    case "position.opened":
      return `Position opened: ${tokenOf(d)}`;
    case "position.closed":
      return `Position closed: ${tokenOf(d)} (${d.reason}), P/L ${fmtSol(d.profitLossSol)}`;
    case "webhook.disabled":
      return `Webhook disabled: ${d.reason}`;
    case "risk.tripped":
      return `Risk breaker tripped (${d.mode}): ${d.reason}`;
    case "trading.paused":
      return `Trading paused: ${(d.modes as string[] | undefined)?.join(" and ")}`;
    case "trading.resumed":
      return `Trading resumed: ${(d.modes as string[] | undefined)?.join(" and ")}`;
    case "wallet_watch.unreadable":
      return `Copy trading: ${d.message}`;
    case "auth.new_login":
      return `Login from a new address: ${from(d)}`;
    case "auth.locked":
      return `Account locked after failed logins from ${from(d)}`;
    case "auth.2fa_disabled":
      return `Two-factor login turned off from ${from(d)}`;
    default:
      return e.type;
  }
}

export function LiveFeed() {
  const events = recentEvents.value;
  // After a restart the stream holds nothing older: the latest stored events fill the feed.
  useEffect(() => void loadStoredFeed(), []);
  return (
    <Section title="Live feed">
      {events.length === 0 ? (
        <p class="muted">Signals and trades appear here as they happen.</p>
      ) : (
        <ol class="plain feed" aria-live="polite">
          {events.map((e) => {
            const agent = agentOf(e.data);
            return (
              <li key={feedKey(e)}>
                <time class="muted small" dateTime={e.time}>
                  {new Date(e.time).toLocaleTimeString()}
                </time>{" "}
                {agent && (
                  <>
                    <a href={href("agents", agent.id)}>{agent.name}</a>:{" "}
                  </>
                )}
                {describeEvent(e)}
                {e.type.startsWith("trade.") && (
                  <ExplorerLink kind="tx" id={str(e.data.hash) ?? str(e.data.signature)} label="Transaction" />
                )}
              </li>
            );
          })}
        </ol>
      )}
    </Section>
  );
}
