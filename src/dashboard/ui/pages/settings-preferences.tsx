import { useEffect, useState } from "preact/hooks";
import { api, get } from "../api.ts";
import { CheckboxGroup, ErrorNote, Section } from "../components.tsx";
import { showFormError } from "../field-errors.ts";

// Notification preferences: which Telegram messages to send, and quiet hours
// (messages then arrive silently). Inputs are sent as typed so the API's own validation message
// appears next to the field it names.

const KINDS: Array<[string, string]> = [
  ["position.opened", "Position opened"],
  ["position.take_profit", "Take-profit"],
  ["position.dca", "DCA buy"],
  ["position.closed", "Position closed (P/L and reason)"],
  ["trade.failed", "Trade failed"],
  ["webhook.disabled", "Webhook disabled"],
  ["replication.failing", "Backups failing (admins)"],
  ["daily_summary", "Daily summary (08:00 UTC)"],
];

interface Preferences {
  events: string[];
  quietHours: { start: string; end: string; timezone: string } | null;
  updatedAt: string | null;
}

const FIELDS = ["events", "quietHours", "quietHours.start", "quietHours.end", "quietHours.timezone"];
const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
const zones = (): string[] => {
  const intl = Intl as typeof Intl & { supportedValuesOf?: (k: string) => string[] };
  return intl.supportedValuesOf?.("timeZone") ?? [];
};

function Messages({ id, messages }: { id: string; messages?: string[] }) {
  if (!messages?.length) return null;
  return (
    <span id={id} class="field-error small">
      {messages.join("; ")}
    </span>
  );
}

function TextField(props: {
  id: string;
  label: string;
  value: string;
  hint: string;
  errors?: string[];
  list?: string;
  onInput: (v: string) => void;
}) {
  return (
    <div class={`field${props.errors ? " invalid" : ""}`}>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        value={props.value}
        list={props.list}
        aria-invalid={props.errors ? true : undefined}
        aria-describedby={`${props.id}-hint${props.errors ? ` ${props.id}-error` : ""}`}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
      <span id={`${props.id}-hint`} class="muted small">
        {props.hint}
      </span>
      <Messages id={`${props.id}-error`} messages={props.errors} />
    </div>
  );
}

export function PreferencesSection() {
  const [prefs, setPrefs] = useState<Preferences | null>(null);
  const [events, setEvents] = useState<string[]>([]);
  const [quiet, setQuiet] = useState(false);
  const [start, setStart] = useState("22:00");
  const [end, setEnd] = useState("07:00");
  const [zone, setZone] = useState(browserZone());
  const [errors, setErrors] = useState<Map<string, string[]>>(new Map());
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState("");

  const adopt = (p: Preferences) => {
    setPrefs(p);
    setEvents(p.events);
    setQuiet(p.quietHours !== null);
    if (p.quietHours) {
      setStart(p.quietHours.start);
      setEnd(p.quietHours.end);
      setZone(p.quietHours.timezone);
    }
    setErrors(new Map());
  };
  useEffect(() => {
    get<Preferences>("/notifications/preferences").then(adopt, setError);
  }, []);

  const save = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setSaved("");
    const body = { events, quietHours: quiet ? { start, end, timezone: zone } : null };
    try {
      adopt(await api<Preferences>("PUT", "/notifications/preferences", body));
      setSaved("Preferences saved.");
    } catch (err) {
      showFormError(err, FIELDS, setErrors, setError);
    }
  };

  if (!prefs) return <Section title="Notification preferences">{<ErrorNote error={error} />}</Section>;
  return (
    <Section title="Notification preferences">
      <p class="muted small">Which messages the Telegram bot sends you. Webhooks have their own event list, above.</p>
      <form onSubmit={save} aria-label="Notification preferences">
        <fieldset aria-describedby={errors.get("events") ? "pref-events-error" : undefined}>
          <legend>Telegram messages</legend>
          <CheckboxGroup options={KINDS} selected={events} onChange={setEvents} />
          <Messages id="pref-events-error" messages={errors.get("events")} />
        </fieldset>
        <fieldset aria-describedby={errors.get("quietHours") ? "pref-quiet-error" : undefined}>
          <legend>Quiet hours</legend>
          <label class="check">
            <input type="checkbox" checked={quiet} onChange={(e) => setQuiet(e.currentTarget.checked)} />
            Send silently during quiet hours
          </label>
          {quiet && (
            <div class="quiet-hours">
              <TextField
                id="pref-quiet-start"
                label="Quiet from"
                value={start}
                hint="HH:MM, 24-hour"
                errors={errors.get("quietHours.start")}
                onInput={setStart}
              />
              <TextField
                id="pref-quiet-end"
                label="Quiet until"
                value={end}
                hint="HH:MM; may be past midnight"
                errors={errors.get("quietHours.end")}
                onInput={setEnd}
              />
              <TextField
                id="pref-quiet-zone"
                label="Time zone"
                value={zone}
                hint="IANA name, e.g. Europe/Berlin"
                list="pref-zones"
                errors={errors.get("quietHours.timezone")}
                onInput={setZone}
              />
              <datalist id="pref-zones">
                {zones().map((z) => (
                  <option key={z} value={z} />
                ))}
              </datalist>
            </div>
          )}
          <Messages id="pref-quiet-error" messages={errors.get("quietHours")} />
        </fieldset>
        <ErrorNote error={error} />
        {saved && (
          <p class="notice" role="status">
            {saved}
          </p>
        )}
        <button type="submit" class="primary">
          Save preferences
        </button>
      </form>
    </Section>
  );
}
