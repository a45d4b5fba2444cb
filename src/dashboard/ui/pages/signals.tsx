import { useEffect, useState } from "preact/hooks";
import { download, get, query } from "../api.ts";
import { ErrorNote, Section, useLoad } from "../components.tsx";
import { fmtTime, localToIso, short } from "../format.ts";
import { onEvent } from "../live.ts";
import { href } from "../router.ts";
import type { Signal } from "../types.ts";

// Signals (issue 14 page 4): the list with the route's filters, and one signal with what each
// agent decided and why (`processing.evaluations`, issue 13; shown when the server sends it).

export function SignalsPage() {
  const [token, setToken] = useState("");
  const [type, setType] = useState("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [exportError, setExportError] = useState<unknown>(null);
  const filters = {
    tokenAddress: token.trim(),
    signalType: type.trim(),
    startDate: localToIso(from),
    endDate: localToIso(to),
  };
  const q = query({ ...filters, limit: 200 });
  const { data, error, reload } = useLoad(() => get<Signal[]>(`/trading-signals${q}`), [q]);
  useEffect(() => onEvent((e) => e.type === "signal.created" && reload()), [q]);
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
              </tr>
            </thead>
            <tbody>
              {data.map((s) => (
                <tr key={s.id}>
                  <td>
                    <a href={href("signals", String(s.id))}>#{s.id}</a>
                  </td>
                  <td class="small">{fmtTime(s.createdAt)}</td>
                  <td title={s.tokenAddress}>{s.symbol || short(s.tokenAddress)}</td>
                  <td>{s.signalType}</td>
                  <td>{s.signalStrength}</td>
                  <td>{s.source ?? "–"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

export function SignalDetailPage({ id }: { id: string }) {
  const { data: s, error, reload } = useLoad(() => get<Signal>(`/trading-signals/${encodeURIComponent(id)}`), [id]);
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
            {s.symbol ? `${s.symbol} ` : ""}
            <code>{s.tokenAddress}</code>
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
