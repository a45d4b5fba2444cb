import { useState } from "preact/hooks";
import type { WebhookView } from "../../../notifications/webhooks/webhook-view.ts";
import { api, get } from "../api.ts";
import { ConfirmButton, ErrorNote, useLoad } from "../components.tsx";
import { fmtTime } from "../format.ts";
import { SecretOnce } from "../secret-once.tsx";

// One webhook on the settings page: its status (a disabled endpoint's reason in plain sight),
// enable/disable, send test, rotate secret (the new one shown once), delete with confirmation,
// and its recent delivery attempts.

export type Webhook = WebhookView;

interface Delivery {
  deliveryId: string;
  event: string;
  time: string;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  deliveryStatus: "pending" | "delivered" | "failed";
}

interface TestResult {
  success: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

const STATUS_BADGE = { active: "ok", failing: "warn", disabled: "live" } as const;

function Deliveries({ webhookId, version }: { webhookId: string; version: number }) {
  const { data, error, reload } = useLoad(
    () => get<Delivery[]>(`/webhooks/${webhookId}/deliveries?limit=20`),
    [webhookId, version],
  );
  return (
    <div class="deliveries">
      <div class="row">
        <h4>Recent deliveries</h4>
        <button type="button" onClick={reload}>
          Refresh deliveries
        </button>
      </div>
      <ErrorNote error={error} />
      {data?.length === 0 && <p class="muted small">No deliveries yet.</p>}
      {data && data.length > 0 && (
        <div class="table-wrap">
          <table aria-label="Recent deliveries">
            <thead>
              <tr>
                <th>Time</th>
                <th>Event</th>
                <th>Status code</th>
                <th>Attempt</th>
                <th>Result</th>
                <th>Error</th>
                <th>Duration</th>
              </tr>
            </thead>
            <tbody>
              {data.map((d) => (
                <tr key={`${d.deliveryId}-${d.attempt}`}>
                  <td class="small">{fmtTime(d.time)}</td>
                  <td>{d.event}</td>
                  <td>{d.statusCode ?? "–"}</td>
                  <td>{d.attempt}</td>
                  <td>
                    <span
                      class={`badge ${d.deliveryStatus === "delivered" ? "ok" : d.deliveryStatus === "failed" ? "live" : "warn"}`}
                    >
                      {d.deliveryStatus}
                    </span>
                  </td>
                  <td class="small">{d.error ?? ""}</td>
                  <td>{d.durationMs} ms</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

export function WebhookCard({ hook, onChange }: { hook: Webhook; onChange: () => void }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [test, setTest] = useState<TestResult | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [showDeliveries, setShowDeliveries] = useState(false);
  const [version, setVersion] = useState(0);

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <article class={`card webhook ${hook.status}`} aria-label={`Webhook ${hook.url}`}>
      <header class="card-head">
        <h3 class="url">
          <code>{hook.url}</code>
        </h3>
        <span class={`badge ${STATUS_BADGE[hook.status]}`}>{hook.status}</span>
      </header>
      {hook.status === "disabled" && (
        <div class="warning" role="alert">
          <strong>Disabled{hook.disabledAt ? ` since ${fmtTime(hook.disabledAt)}` : ""}.</strong>
          <br />
          {hook.disabledReason ?? "No deliveries are sent."}
          <br />
          Nothing is delivered until you enable it.
        </div>
      )}
      {hook.status === "failing" && hook.failingSince && (
        <p class="warning">
          Failing since {fmtTime(hook.failingSince)}: it is disabled after 24 hours without a successful delivery.
        </p>
      )}
      {hook.description && <p>{hook.description}</p>}
      <p class="small">
        <span class="muted">Events:</span> {hook.events.join(", ")}
      </p>
      <p class="muted small">Created {fmtTime(hook.createdAt)}</p>
      {secret && (
        <SecretOnce label="New signing secret" secret={secret} copyLabel="Copy secret" onDone={() => setSecret(null)} />
      )}
      {test && (
        <p class={test.success ? "notice" : "warning"} role="status">
          {test.success
            ? `Test delivered: ${test.statusCode} in ${test.durationMs} ms.`
            : `Test failed: ${test.error ?? `status ${test.statusCode}`}.`}
        </p>
      )}
      <div class="row wrap">
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            run(async () => {
              await api("PATCH", `/webhooks/${hook.id}`, { enabled: !hook.enabled });
              onChange();
            })
          }
        >
          {hook.enabled ? "Disable" : "Enable"}
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            run(async () => {
              setTest(null);
              setTest(await api<TestResult>("POST", `/webhooks/${hook.id}/test`));
              setShowDeliveries(true);
              setVersion((v) => v + 1);
            })
          }
        >
          Send test
        </button>
        <button type="button" aria-expanded={showDeliveries} onClick={() => setShowDeliveries(!showDeliveries)}>
          {showDeliveries ? "Hide deliveries" : "Show deliveries"}
        </button>
        <ConfirmButton
          label="Rotate secret"
          confirmLabel="Confirm rotate"
          question="Replace the signing secret? Your receiver must use the new one."
          onConfirm={async () =>
            setSecret((await api<{ secret: string }>("POST", `/webhooks/${hook.id}/rotate-secret`)).secret)
          }
        />
        <ConfirmButton
          label="Delete"
          confirmLabel="Confirm delete"
          question={`Delete the webhook to ${hook.url}?`}
          danger
          onConfirm={async () => {
            await api("DELETE", `/webhooks/${hook.id}`);
            onChange();
          }}
        />
      </div>
      <ErrorNote error={error} />
      {showDeliveries && <Deliveries webhookId={hook.id} version={version} />}
    </article>
  );
}
