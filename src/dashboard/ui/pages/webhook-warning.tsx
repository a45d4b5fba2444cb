import { useEffect } from "preact/hooks";
import { get } from "../api.ts";
import { useLoad } from "../components.tsx";
import { fmtTime } from "../format.ts";
import { onEvent } from "../live.ts";
import { href } from "../router.ts";
import type { Webhook } from "./webhook-card.tsx";

// The overview's warning when a webhook is disabled (the user is told by an event
// and on the dashboard): fetched with the page and again when a webhook.disabled event arrives.

export function DisabledWebhooksWarning() {
  const { data, reload } = useLoad(() => get<Webhook[]>("/webhooks"), []);
  useEffect(() => onEvent((e) => e.type === "webhook.disabled" && reload()), []);
  const disabled = data?.filter((w) => w.status === "disabled") ?? [];
  if (disabled.length === 0) return null;
  return (
    <section class="warning wide" role="alert" aria-label="Disabled webhooks">
      <strong>{disabled.length === 1 ? "A webhook is disabled" : `${disabled.length} webhooks are disabled`}</strong>
      <ul class="plain">
        {disabled.map((w) => (
          <li key={w.id}>
            <code>{w.url}</code>
            {w.disabledAt ? ` since ${fmtTime(w.disabledAt)}` : ""}: {w.disabledReason ?? "no deliveries are sent"}
          </li>
        ))}
      </ul>
      <a href={href("notifications")}>Open notification settings</a>
    </section>
  );
}
