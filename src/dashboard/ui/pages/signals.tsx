import { useEffect, useState } from "preact/hooks";
import { download, get, query } from "../api.ts";
import { ErrorNote, ExplorerLink, Section, useLoad } from "../components.tsx";
import { fmtTime, localToIso, short } from "../format.ts";
import { onEvent } from "../live.ts";
import { rememberAgents, rememberTokens, tokenSymbols } from "../names.ts";
import { href } from "../router.ts";
import type { Agent, Balance, Signal } from "../types.ts";

// Signals: the list with the route's filters, and one signal with what each
// agent decided and why (`processing.evaluations`, shown when the server sends it).

/** One cell's worth of what the user's agents did with a signal (from `processing`). */
function outcomeOf(s: Signal): { text: string; tone: "" | "ok" | "warn" } {
  const p = s.processing;
  if (!p) return { text: "–", tone: "" };
  if (p.status !== "done") return { text: p.status, tone: "" };
  if (p.evaluations.length === 0) return { text: "no agent acted", tone: "" };
  const counts = new Map<string, number>();
  for (const e of p.evaluations) counts.set(e.outcome, (counts.get(e.outcome) ?? 0) + 1);
  const order = ["traded", "failed", "pending", "ineligible"];
  const text = [...counts.entries()]
    .sort(([a], [b]) => order.indexOf(a) - order.indexOf(b))
    .map(([outcome, n]) => `${outcome} ${n}`)
    .join(" · ");
  return { text, tone: counts.has("failed") ? "warn" : counts.has("traded") ? "ok" : "" };
}

/** The signal's own symbol, else the one market data gave the token (names.ts), else the short mint. */
function symbolOf(s: Signal, fallback?: string): string {
  return s.symbol || tokenSymbols.value.get(s.tokenAddress) || (fallback ?? short(s.tokenAddress));
}

let symbolsAsked = 0;
/**
 * Signals sent without a symbol: the symbols market data gave their tokens, as the agents' balances
 * carry them (every token an agent traded), learned once a minute at most.
 */
async function learnMissingSymbols(signals: Signal[]): Promise<void> {
  const missing = signals.some((s) => !s.symbol && !tokenSymbols.value.has(s.tokenAddress));
  if (!missing || Date.now() - symbolsAsked < 60_000) return;
  symbolsAsked = Date.now();
  const agents = await get<Agent[]>("/agents");
  rememberAgents(agents);
  await Promise.all(
    agents.map(async (a) => {
      const balances = await get<Balance[]>(`/agent-balances${query({ agentId: a.id })}`).catch(() => []);
      rememberTokens(balances.map((b) => ({ tokenAddress: b.tokenAddress, symbol: b.tokenSymbol })));
    }),
  );
}

export function SignalsPage() {
  const [symbol, setSymbol] = useState("");
  const [token, setToken] = useState("");
  const [type, setType] = useState("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [exportError, setExportError] = useState<unknown>(null);
  const filters = {
    symbol: symbol.trim(),
    tokenAddress: token.trim(),
    signalType: type.trim(),
    startDate: localToIso(from),
    endDate: localToIso(to),
  };
  const q = query({ ...filters, limit: 200, include: "processing" });
  const { data, error, reload } = useLoad(async () => {
    const signals = await get<Signal[]>(`/trading-signals${q}`);
    rememberTokens(signals);
    void learnMissingSymbols(signals).catch(() => {});
    return signals;
  }, [q]);
  // Decisions arrive after the signal: trades refresh the outcomes too (one reload per second at most).
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = onEvent((e) => {
      if (e.type !== "signal.created" && !e.type.startsWith("trade.")) return;
      timer ??= setTimeout(() => {
        timer = undefined;
        reload();
      }, 1_000);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, [q]);
  return (
    <Section
      title="Signals"
      actions={
        <button
          type="button"
          onClick={() =>
            download(`/trading-signals/export${query(filters)}`, "trading-signals.csv").catch(setExportError)
          }
        >
          Export signals CSV
        </button>
      }
    >
      <div class="row wrap filters">
        <label>
          Symbol
          <input value={symbol} maxLength={50} onInput={(e) => setSymbol(e.currentTarget.value)} />
        </label>
        <label>
          Token address
          <input value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        </label>
        <label>
          Signal type
          <input value={type} onInput={(e) => setType(e.currentTarget.value)} />
        </label>
        <label>
          From
          <input type="datetime-local" value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
        </label>
        <label>
          Until
          <input type="datetime-local" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
        </label>
      </div>
      <ErrorNote error={error ?? exportError} />
      {data?.length === 0 && <p class="muted">No signals match.</p>}
      {data && data.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Signal</th>
                <th>Time</th>
                <th>Token</th>
                <th>Type</th>
                <th>Strength</th>
                <th>Source</th>
                <th>Outcome</th>
              </tr>
            </thead>
            <tbody>
              {data.map((s) => {
                const outcome = outcomeOf(s);
                return (
                  <tr key={s.id} aria-label={`Signal ${s.id}`}>
                    <td>
                      <a href={href("signals", String(s.id))}>#{s.id}</a>
                    </td>
                    <td class="small">{fmtTime(s.createdAt)}</td>
                    <td title={s.tokenAddress}>
                      {symbolOf(s)}
                      <ExplorerLink kind="token" id={s.tokenAddress} label={symbolOf(s)} />
                    </td>
                    <td>{s.signalType}</td>
                    <td>{s.signalStrength}</td>
                    <td>{s.source ?? "–"}</td>
                    <td>
                      <span class={`badge ${outcome.tone}`}>{outcome.text}</span>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

export function SignalDetailPage({ id }: { id: string }) {
  const {
    data: s,
    error,
    reload,
  } = useLoad(async () => {
    const signal = await get<Signal>(`/trading-signals/${encodeURIComponent(id)}`);
    void learnMissingSymbols([signal]).catch(() => {});
    return signal;
  }, [id]);
  // Decisions arrive after the 201: refresh when a trade for this signal happens.
  useEffect(() => onEvent((e) => e.type.startsWith("trade.") && String(e.data.signalId) === id && reload()), [id]);
  if (error) return <ErrorNote error={error} />;
  if (!s) return <p class="muted">Loading…</p>;
  const evaluations = s.processing?.evaluations;
  return (
    <div class="stack">
      <p>
        <a href={href("signals")}>← All signals</a>
      </p>
      <Section
        title={`Signal #${s.id}`}
        actions={
          <button type="button" onClick={reload}>
            Refresh signal
          </button>
        }
      >
        <dl class="figures wide">
          <dt>Token</dt>
          <dd>
            {symbolOf(s, "")} <code>{s.tokenAddress}</code>
            <ExplorerLink kind="token" id={s.tokenAddress} label={symbolOf(s)} />
          </dd>
          <dt>Type</dt>
          <dd>{s.signalType}</dd>
          <dt>Strength</dt>
          <dd>{s.signalStrength} of 5</dd>
          <dt>Reason</dt>
          <dd>{s.activationReason ?? "–"}</dd>
          <dt>Source</dt>
          <dd>{s.source ?? "–"}</dd>
          <dt>Received</dt>
          <dd>{fmtTime(s.createdAt)}</dd>
          {s.processing && (
            <>
              <dt>Processing</dt>
              <dd>{s.processing.status}</dd>
            </>
          )}
        </dl>
      </Section>
      <Section title="Decisions">
        {!evaluations && <p class="muted">This server does not report per-agent decisions for signals.</p>}
        {evaluations?.length === 0 && <p class="muted">No agent has evaluated this signal yet.</p>}
        {evaluations && evaluations.length > 0 && (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Agent</th>
                  <th>Outcome</th>
                  <th>Rule</th>
                  <th>Reason</th>
                  <th>At</th>
                </tr>
              </thead>
              <tbody>
                {evaluations.map((ev) => (
                  <tr key={`${ev.agentId}-${ev.at}`}>
                    <td>
                      <a href={href("agents", ev.agentId)}>{ev.agentName}</a>
                    </td>
                    <td>
                      <span class={`badge ${ev.outcome === "traded" ? "ok" : ev.outcome === "failed" ? "warn" : ""}`}>
                        {ev.outcome}
                      </span>
                    </td>
                    <td>{ev.rule ?? "–"}</td>
                    <td>{ev.reason ?? "–"}</td>
                    <td class="small">{fmtTime(ev.at)}</td>
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
