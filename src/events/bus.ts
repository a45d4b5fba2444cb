// In-process event bus (issue: trading engine; PRODUCT.md §6 event list). Every signal, trade,
// failure and position change is published here; the SSE stream and metrics subscribe.

export type EventType =
  | "signal.created"
  | "trade.executed"
  | "trade.failed"
  | "position.opened"
  | "position.updated"
  | "position.closed"
  | "price.sol"
  /** A webhook endpoint failing for 24 h was disabled (src/notifications/webhooks). */
  | "webhook.disabled";

export interface ServiceEvent {
  /** Monotonic per process; the SSE `id:` and Last-Event-ID resume point. */
  id: number;
  type: EventType;
  /** Owner of the event; null for global events (price.sol) that every user may see. */
  userId: string | null;
  time: string;
  data: Record<string, unknown>;
}

export type Listener = (e: ServiceEvent) => void;

export class EventBus {
  private seq = 0;
  private readonly listeners = new Set<Listener>();
  /** Recent events for Last-Event-ID replay; bounded. */
  private readonly recent: ServiceEvent[] = [];

  constructor(
    private readonly now: () => number = Date.now,
    private readonly keep = 1000,
  ) {}

  publish(type: EventType, userId: string | null, data: Record<string, unknown>): ServiceEvent {
    const e: ServiceEvent = { id: ++this.seq, type, userId, time: new Date(this.now()).toISOString(), data };
    this.recent.push(e);
    if (this.recent.length > this.keep) this.recent.splice(0, this.recent.length - this.keep);
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // a broken subscriber must not break the publisher (a trade has already committed)
      }
    }
    return e;
  }

  subscribe(l: Listener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Events after `lastId`, oldest first (for SSE reconnects). */
  since(lastId: number): ServiceEvent[] {
    return this.recent.filter((e) => e.id > lastId);
  }

  get lastId(): number {
    return this.seq;
  }

  /** Listeners subscribed now (an SSE stream that ended must have left). */
  get subscriberCount(): number {
    return this.listeners.size;
  }

  /** Id of the oldest event still held for replay; null when none is held. */
  get oldestId(): number | null {
    return this.recent[0]?.id ?? null;
  }
}
