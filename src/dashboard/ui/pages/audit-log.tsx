import { useState } from "preact/hooks";
import { AUDIT_ACTIONS, type AuditEntry } from "../../../audit/audit-shape.ts";
import { download, get, query } from "../api.ts";
import { ErrorNote, Section, useLoad } from "../components.tsx";
import { fmtTime } from "../format.ts";

// Audit log (`#/audit-log`): the user's own entries from GET /audit-log, newest first, a page at a
// time, filtered by action, with the CSV export (PRODUCT.md §2, docs/decisions/box-on-the-internet.md).

interface AuditPage {
  entries: AuditEntry[];
  pagination: { limit: number; offset: number; total: number };
}

const PAGE_SIZE = 50;

/** The details object in one line: `name: value` pairs, nested values as JSON. */
function summariseDetails(details: Record<string, unknown>): string {
  return Object.entries(details)
    .map(([k, v]) => `${k}: ${v !== null && typeof v === "object" ? JSON.stringify(v) : String(v)}`)
    .join(", ");
}

function EntryRow({ e }: { e: AuditEntry }) {
  const details = summariseDetails(e.details);
  return (
    <tr>
      <td class="small nowrap">{fmtTime(e.at)}</td>
      <td>
        <code>{e.action}</code>
      </td>
      <td>{e.actor}</td>
      <td class="small">{e.ip ?? "–"}</td>
      <td class="small">
        <span class="ellipsis" title={e.userAgent ?? undefined}>
          {e.userAgent ?? "–"}
        </span>
      </td>
      <td class="small">
        {e.target ? (
          <code class="ellipsis" title={e.target}>
            {e.target}
          </code>
        ) : (
          "–"
        )}
      </td>
      <td class="small">
        <span class="ellipsis" title={details || undefined}>
          {details || "–"}
        </span>
      </td>
    </tr>
  );
}

export function AuditLogPage() {
  const [action, setAction] = useState("");
  const [offset, setOffset] = useState(0);
  const [exportError, setExportError] = useState<unknown>(null);
  const { data, error, loading } = useLoad(
    () => get<AuditPage>(`/audit-log${query({ limit: PAGE_SIZE, offset, action })}`),
    [action, offset],
  );
  const total = data?.pagination.total ?? 0;
  const shown = data?.entries.length ?? 0;

  return (
    <div class="stack audit">
      <Section
        title="Audit log"
        actions={
          <button
            type="button"
            onClick={() => {
              setExportError(null);
              // The export needs the Authorization header, so it is fetched and saved (api.ts download).
              download(`/audit-log/export${query({ action })}`, "audit-log.csv").catch(setExportError);
            }}
          >
            Download CSV
          </button>
        }
      >
        <p class="muted small">
          Who did what to this account and from where: logins, keys, agents, limits, trading switches. Entries cannot be
          changed or deleted; they are kept for the retention the service is set to.
        </p>
        <label>
          Action
          <select
            value={action}
            onChange={(e) => {
              setAction(e.currentTarget.value);
              setOffset(0);
            }}
          >
            <option value="">All actions</option>
            {AUDIT_ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <ErrorNote error={error ?? exportError} />
        {data && shown === 0 && <p class="muted">{action ? `No ${action} entries.` : "No entries yet."}</p>}
        {data && shown > 0 && (
          <div class="table-wrap">
            <table aria-label="Audit entries" aria-busy={loading}>
              <thead>
                <tr>
                  <th>At</th>
                  <th>Action</th>
                  <th>Actor</th>
                  <th>IP</th>
                  <th>User agent</th>
                  <th>Target</th>
                  <th>Details</th>
                </tr>
              </thead>
              <tbody>
                {data.entries.map((e) => (
                  <EntryRow key={e.id} e={e} />
                ))}
              </tbody>
            </table>
          </div>
        )}
        {data && total > 0 && (
          <nav class="row pager" aria-label="Pages">
            <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
              Newer
            </button>
            <span class="muted small">
              {offset + 1}–{offset + shown} of {total}
            </span>
            <button type="button" disabled={offset + shown >= total} onClick={() => setOffset(offset + PAGE_SIZE)}>
              Older
            </button>
          </nav>
        )}
      </Section>
    </div>
  );
}
