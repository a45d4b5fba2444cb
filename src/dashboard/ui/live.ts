import { signal } from "@preact/signals";
import { refreshAccess, session } from "./api.ts";
import { rememberFromEvent } from "./names.ts";

// One EventSource for the whole page: GET /api/v1/events with the access token in the query
// (EventSource cannot send headers). The server ends the stream when that token expires; the
// browser's own reconnect then gets 401 and gives up, so on a closed stream we fetch a fresh
// token and reopen from the last event id (?lastEventId=): nothing is lost in between.
// The first connection of a page asks for ?lastEventId=0: the server replays what its buffer
// still holds of this user's events, so the live feed shows the latest ones again after a reload.

type EventType =
  | "signal.created"
  | "trade.executed"
  | "trade.failed"
  | "position.opened"
  | "position.updated"
  | "position.closed"
  | "price.sol"
  | "webhook.disabled"
  | "risk.tripped"
  | "trading.paused"
  | "trading.resumed"
  | "wallet_watch.unreadable"
  | "auth.new_login"
  | "auth.locked"
  | "auth.2fa_disabled";

export interface ServiceEvent {
  id: number;
  type: EventType;
  time: string;
  data: Record<string, unknown>;
}

const TYPES: EventType[] = [
  "signal.created",
  "trade.executed",
  "trade.failed",
  "position.opened",
  "position.updated",
  "position.closed",
  "price.sol",
  "webhook.disabled",
  "risk.tripped",
  "trading.paused",
  "trading.resumed",
  "wallet_watch.unreadable",
  // Security notices (login-watch.ts): the owner sees them where they look first, not only in
  // the audit log, a webhook or Telegram.
  "auth.new_login",
  "auth.locked",
  "auth.2fa_disabled",
];

export const streamState = signal<"off" | "connecting" | "open" | "reconnecting">("off");
/** The latest events worth a line in the overview's feed (newest first, at most FEED_SIZE). */
export const recentEvents = signal<ServiceEvent[]>([]);
const FEED_SIZE = 50;
/** Price ticks and peak updates are too frequent to crowd the feed. */
const inFeed = (e: ServiceEvent) => e.type !== "price.sol" && e.type !== "position.updated";

const listeners = new Set<(e: ServiceEvent) => void>();
let source: EventSource | null = null;
let lastId: string | null = null;
let retry: ReturnType<typeof setTimeout> | undefined;

export function onEvent(fn: (e: ServiceEvent) => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function dispatch(raw: MessageEvent<string>): void {
  if (raw.lastEventId) lastId = raw.lastEventId;
  let e: ServiceEvent;
  try {
    e = JSON.parse(raw.data) as ServiceEvent;
  } catch {
    return;
  }
  rememberFromEvent(e.data);
  // A reconnect may replay what the feed holds, and stored events (feed-history.ts) may be there.
  const key = feedKey(e);
  if (inFeed(e) && !recentEvents.value.some((r) => feedKey(r) === key)) {
    recentEvents.value = [e, ...recentEvents.value].slice(0, FEED_SIZE);
  }
  for (const fn of listeners) fn(e);
}

/**
 * What a feed line is about: the signal, the trade, the closed position; else the event itself
 * (ids restart with the service, hence the time too).
 */
export function feedKey(e: ServiceEvent): string {
  const d = e.data;
  const sig = d.signal as { id?: unknown } | undefined;
  if (e.type === "signal.created" && sig?.id !== undefined) return `signal:${sig.id}`;
  if (e.type === "trade.executed" && d.transactionId) return `trade:${d.transactionId}`;
  if (e.type === "position.closed" && d.historicalSwapId) return `close:${d.historicalSwapId}`;
  return `event:${e.id}:${e.time}`;
}

/** Stored events (read from the API after a restart emptied the stream's memory) merged into the feed. */
export function seedFeed(stored: ServiceEvent[]): void {
  const seen = new Set(recentEvents.value.map(feedKey));
  const fresh = stored.filter((e) => {
    const key = feedKey(e);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (fresh.length === 0) return;
  recentEvents.value = [...recentEvents.value, ...fresh]
    .sort((a, b) => Date.parse(b.time) - Date.parse(a.time))
    .slice(0, FEED_SIZE);
}

export function startStream(): void {
  if (source || !session.value) return;
  clearTimeout(retry);
  const params = new URLSearchParams({ access_token: session.value.accessToken });
  params.set("lastEventId", lastId ?? "0");
  streamState.value = streamState.value === "off" ? "connecting" : "reconnecting";
  const es = new EventSource(`/api/v1/events?${params}`);
  source = es;
  es.onopen = () => {
    streamState.value = "open";
  };
  for (const t of TYPES) es.addEventListener(t, dispatch as EventListener);
  es.onerror = () => {
    if (es.readyState !== EventSource.CLOSED) {
      streamState.value = "reconnecting";
      return;
    }
    es.close();
    source = null;
    streamState.value = "reconnecting";
    retry = setTimeout(async () => {
      if (!session.value) return;
      await refreshAccess();
      startStream();
    }, 2_000);
  };
}

export function stopStream(): void {
  clearTimeout(retry);
  source?.close();
  source = null;
  lastId = null;
  streamState.value = "off";
  recentEvents.value = [];
}
