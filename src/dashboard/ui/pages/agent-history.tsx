import { useState } from "preact/hooks";
import { download, get, query } from "../api.ts";
import { ErrorNote, ExplorerLink, explorerLink, Section, useLoad } from "../components.tsx";
import { fmtNum, fmtPct, fmtSol, fmtTime, fmtUsd, localToIso, plClass, short } from "../format.ts";
import type { Swap, Transaction } from "../types.ts";

// Trade history (transactions) and historical swaps (closed positions), each with the filters the
// list routes take; the swaps' CSV export uses the same filters. A live trade whose outcome is
// "unknown" (the RPC node cannot prove whether it landed) is flagged with what the operator does.

const UNKNOWN_NOTE =
  "Outcome unknown: the Solana RPC node has no history back to when this live swap was sent, so it may have landed. Look its signature up on an explorer, and point SOLANA_RPC_URL at a node with full transaction history: the next monitor tick settles it. Until then this token is not traded for this agent or wallet.";

function Transactions({ agentId }: { agentId: string }) {
  const [type, setType] = useState("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const q = query({ agentId, transactionType: type, startTime: localToIso(from), endTime: localToIso(to), limit: 200 });
  const { data, error } = useLoad(() => get<Transaction[]>(`/agent-transactions${q}`), [q]);
  return (
    <Section title="Trade history">
      <div class="row wrap filters">
        <label>
          Side
          <select value={type} onChange={(e) => setType(e.currentTarget.value)}>
            <option value="">any</option>
            <option value="BUY">BUY</option>
            <option value="SELL">SELL</option>
          </select>
        </label>
        <label>
          Trades from
          <input type="datetime-local" value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
        </label>
        <label>
          Trades until
          <input type="datetime-local" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
        </label>
      </div>
      <ErrorNote error={error} />
      {data?.some((t) => t.status === "unknown") && <p class="warning">{UNKNOWN_NOTE}</p>}
      {data?.length === 0 && <p class="muted">No trades match.</p>}
      {data && data.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Time</th>
                <th>Side</th>
                <th>In</th>
                <th>Out</th>
                <th>Value</th>
                <th>Fees</th>
                <th>Signal</th>
                <th>Transaction</th>
              </tr>
            </thead>
            <tbody>
              {data.map((t) => (
                <tr key={t.id}>
                  <td class="small">{fmtTime(t.transactionTime)}</td>
                  <td>
                    {t.transactionType}
                    {t.isDca && <span class="badge">DCA</span>}
                    {t.isTakeProfit && <span class="badge">TP</span>}
                    {t.status === "pending" && <span class="badge">pending</span>}
                    {t.status === "unknown" && (
                      <span class="badge warn" title={`${UNKNOWN_NOTE} Signature: ${t.transactionHash ?? "–"}`}>
                        unknown
                      </span>
                    )}
                  </td>
                  <td>
                    {fmtNum(t.inputAmount)} {t.inputSymbol}
                  </td>
                  <td>
                    {fmtNum(t.outputAmount)} {t.outputSymbol}
                  </td>
                  <td>{fmtUsd(t.transactionValueUsd)}</td>
                  <td>{fmtNum(t.fees, 6)}</td>
                  <td>{t.signalId ?? "–"}</td>
                  <td>
                    {explorerLink("tx", t.transactionHash) ? (
                      <ExplorerLink kind="tx" id={t.transactionHash} label={`${t.transactionType} transaction`} />
                    ) : (
                      <span class="muted small">simulated</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

function Swaps({ agentId }: { agentId: string }) {
  const [token, setToken] = useState("");
  const [reason, setReason] = useState("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [exportError, setExportError] = useState<unknown>(null);
  const filters = {
    agentId,
    tokenSymbol: token,
    closeReason: reason,
    startSaleTime: localToIso(from),
    endSaleTime: localToIso(to),
  };
  const q = query({ ...filters, limit: 200 });
  const { data, error } = useLoad(() => get<Swap[]>(`/agent-historical-swaps${q}`), [q]);
  const exportCsv = async () => {
    setExportError(null);
    try {
      await download(`/agent-historical-swaps/export${query(filters)}`, `historical-swaps-${agentId}.csv`);
    } catch (err) {
      setExportError(err);
    }
  };
  return (
    <Section
      title="Historical swaps"
      actions={
        <button type="button" onClick={exportCsv}>
          Export swaps CSV
        </button>
      }
    >
      <div class="row wrap filters">
        <label>
          Token symbol
          <input value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        </label>
        <label>
          Close reason
          <select value={reason} onChange={(e) => setReason(e.currentTarget.value)}>
            <option value="">any</option>
            {["manual", "stop_loss", "stale_trade", "take_profit", "signal"].map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <label>
          Sold from
          <input type="datetime-local" value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
        </label>
        <label>
          Sold until
          <input type="datetime-local" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
        </label>
      </div>
      <ErrorNote error={error ?? exportError} />
      {data?.length === 0 && <p class="muted">No closed positions match.</p>}
      {data && data.length > 0 && (
        <div class="table-wrap">
          <table class="cards-on-phone">
            <thead>
              <tr>
                <th>Token</th>
                <th>Amount</th>
                <th>Buy price (SOL)</th>
                <th>Sell price (SOL)</th>
                <th>P/L</th>
                <th>Change</th>
                <th>Reason</th>
                <th>Sold at</th>
              </tr>
            </thead>
            <tbody>
              {data.map((s) => (
                <tr key={s.id} aria-label={`Swap ${s.tokenSymbol}`}>
                  <td data-label="Token" title={s.tokenAddress}>
                    {s.tokenSymbol || short(s.tokenAddress)}
                    <ExplorerLink kind="token" id={s.tokenAddress} label={s.tokenSymbol || "Token"} />
                  </td>
                  <td data-label="Amount">{fmtNum(s.amount)}</td>
                  <td data-label="Buy price (SOL)">{fmtNum(s.purchasePrice, 10)}</td>
                  <td data-label="Sell price (SOL)">{fmtNum(s.salePrice, 10)}</td>
                  <td data-label="P/L" class={plClass(s.profitLossSol)}>
                    {fmtSol(s.profitLossSol)}
                    <div class="small">{fmtUsd(s.profitLossUsd)}</div>
                  </td>
                  <td data-label="Change" class={plClass(s.changePercent)}>
                    {fmtPct(s.changePercent)}
                  </td>
                  <td data-label="Reason">{s.closeReason}</td>
                  <td data-label="Sold at" class="small">
                    {fmtTime(s.saleTime)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

export function AgentHistory({ agentId }: { agentId: string }) {
  return (
    <div class="stack">
      <Swaps agentId={agentId} />
      <Transactions agentId={agentId} />
    </div>
  );
}
