import { useState } from "preact/hooks";
import { WEBHOOK_EVENT_TYPES } from "../../../notifications/webhooks/event-types.ts";
import { api, get } from "../api.ts";
import { CheckboxGroup, ErrorNote, Section, useLoad } from "../components.tsx";
import { showFormError } from "../field-errors.ts";
import { SecretOnce } from "../secret-once.tsx";
import { type Webhook, WebhookCard } from "./webhook-card.tsx";

// Webhooks on the settings page: create (the signing secret shown once), then
// one card per endpoint. The URL field is plain text so the API's messages (not the browser's)
// explain a bad or refused URL, next to the field.

/** Each event type, labelled with its own name. */
const EVENT_OPTIONS = WEBHOOK_EVENT_TYPES.map((t) => [t, t] as const);
const FIELDS = ["url", "events", "description"];

function CreateWebhook({ onCreated }: { onCreated: () => void }) {
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [events, setEvents] = useState<string[]>(["position.opened", "position.closed", "trade.failed"]);
  const [secret, setSecret] = useState<string | null>(null);
  const [errors, setErrors] = useState<Map<string, string[]>>(new Map());
  const [error, setError] = useState<unknown>(null);

  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setErrors(new Map());
    try {
      const r = await api<Webhook & { secret: string }>("POST", "/webhooks", {
        url,
        events,
        ...(description ? { description } : {}),
      });
      setSecret(r.secret);
      setUrl("");
      setDescription("");
      onCreated();
    } catch (err) {
      showFormError(err, FIELDS, setErrors, setError);
    }
  };
  const urlErrors = errors.get("url");
  const eventErrors = errors.get("events");
  return (
    <>
      {secret && (
        <SecretOnce label="Signing secret" secret={secret} copyLabel="Copy secret" onDone={() => setSecret(null)} />
      )}
      <form onSubmit={create} aria-label="Create a webhook">
        <div class={`field${urlErrors ? " invalid" : ""}`}>
          <label for="wh-url">Endpoint URL</label>
          <input
            id="wh-url"
            inputMode="url"
            autoComplete="off"
            placeholder="https://example.com/hooks"
            value={url}
            aria-invalid={urlErrors ? true : undefined}
            aria-describedby={urlErrors ? "wh-url-error" : undefined}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
          {urlErrors && (
            <span id="wh-url-error" class="field-error small">
              {urlErrors.join("; ")}
            </span>
          )}
        </div>
        <div class="field">
          <label for="wh-description">Description</label>
          <input
            id="wh-description"
            maxLength={500}
            value={description}
            onInput={(e) => setDescription(e.currentTarget.value)}
          />
        </div>
        <fieldset aria-describedby={eventErrors ? "wh-events-error" : undefined}>
          <legend>Events to send</legend>
          <CheckboxGroup options={EVENT_OPTIONS} selected={events} onChange={setEvents} />
          {eventErrors && (
            <span id="wh-events-error" class="field-error small">
              {eventErrors.join("; ")}
            </span>
          )}
        </fieldset>
        <ErrorNote error={error} />
        <button type="submit" class="primary">
          Create webhook
        </button>
      </form>
    </>
  );
}

export function WebhooksSection() {
  const { data, error, reload } = useLoad(() => get<Webhook[]>("/webhooks"), []);
  const disabled = data?.filter((w) => w.status === "disabled") ?? [];
  return (
    <Section title="Webhooks">
      <p class="muted small">
        Signed POSTs (Standard Webhooks) to your own system. Failed deliveries are retried for about 7 hours; an
        endpoint failing for 24 hours is disabled.
      </p>
      {disabled.length > 0 && (
        <p class="warning" role="alert">
          {disabled.length === 1 ? "1 webhook is disabled" : `${disabled.length} webhooks are disabled`}: no events
          reach {disabled.length === 1 ? "it" : "them"} until enabled.
        </p>
      )}
      <CreateWebhook onCreated={reload} />
      <ErrorNote error={error} />
      {data?.length === 0 && <p class="muted">No webhooks yet.</p>}
      <div class="stack">
        {data?.map((w) => (
          <WebhookCard key={w.id} hook={w} onChange={reload} />
        ))}
      </div>
    </Section>
  );
}
