import type { EventBus, ServiceEvent } from "./bus.ts";

// The Server-Sent Events feed of GET /api/v1/events (PRODUCT.md §6: the user's own events, under
// 10 ms from commit to write). One bus subscription per open stream; the listener runs inside
// EventBus.publish, right after the trade's SQLite transaction committed, and enqueues the frame
// at once: nothing batches or delays it (bench/events-latency.ts measures it). Decisions in
// docs/decisions.md "Public API and live events".
//
// Not Hono's streamSSE: its writeSSE is async (a bus listener runs synchronously inside publish and
// must enqueue then and there), orders a frame event/data/id where ours is id/event/data, adds
// Connection and Transfer-Encoding headers, and its TransformStream has no byte bound, so the
// slow-client drop below (maxQueuedBytes, then reconnect with Last-Event-ID) would be rebuilt on
// top of it. A ReadableStream with a byte-counting highWaterMark does all of that in one place.

/** Frame of one event; `data` is single-line JSON (JSON.stringify escapes newlines). */
export function formatEvent(e: ServiceEvent): string {
  return `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify({ id: e.id, type: e.type, time: e.time, data: e.data })}\n\n`;
}

const HEARTBEAT_FRAME = ": keep-alive\n\n";

/**
 * Last frame of a stream whose access token expired. No `id:`, so the client's Last-Event-ID stays
 * that of the last real event: reconnecting with a fresh token and it loses nothing (README).
 */
const TOKEN_EXPIRED_FRAME =
  'event: token.expired\ndata: {"message":"Access token expired: reconnect with a fresh token and Last-Event-ID (or ?lastEventId=)"}\n\n';

/** What EventSource waits before reconnecting (sent once, in the first frame). */
const RETRY_MS = 3_000;

/** A user sees their own events and the global ones (price.sol has no owner). */
export const visibleTo = (e: ServiceEvent, userId: string): boolean => e.userId === null || e.userId === userId;

export interface EventStreamHubOptions {
  heartbeatMs: number;
  /**
   * Bytes a client may leave unread before it is dropped (it reconnects with Last-Event-ID and
   * replays from the bus's buffer): a stalled client must not grow memory without bound.
   */
  maxQueuedBytes?: number;
}

export interface OpenStream {
  userId: string;
  /** Last-Event-ID of a reconnect: events after it are replayed from the bus's recent buffer. */
  lastEventId?: number | null;
  /** The request's signal: the stream ends when the client goes away. */
  signal?: AbortSignal;
  /** Milliseconds until the stream closes by itself (the access token's remaining life). */
  closeAfterMs?: number;
}

const DEFAULT_MAX_QUEUED_BYTES = 1 << 20;

export class EventStreamHub {
  private readonly streams = new Set<() => void>();
  private readonly encoder = new TextEncoder();

  constructor(
    private readonly bus: EventBus,
    private readonly opts: EventStreamHubOptions,
  ) {}

  /** Streams open right now. */
  get size(): number {
    return this.streams.size;
  }

  /** Ends every open stream (graceful shutdown: the connections can then finish). */
  closeAll(): void {
    for (const close of [...this.streams]) close();
  }

  open(req: OpenStream): ReadableStream<Uint8Array> {
    const { bus, encoder } = this;
    const streams = this.streams;
    const maxQueued = this.opts.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
    let finish: (overflow?: boolean) => void = () => {};

    return new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          let done = false;
          let unsubscribe: () => void = () => {};
          let heartbeat: ReturnType<typeof setInterval> | undefined;
          let expiry: ReturnType<typeof setTimeout> | undefined;
          const onAbort = () => finish();

          finish = (overflow = false) => {
            if (done) return;
            done = true;
            unsubscribe();
            clearInterval(heartbeat);
            clearTimeout(expiry);
            req.signal?.removeEventListener("abort", onAbort);
            streams.delete(finish);
            try {
              // A client that stopped reading loses what is queued (error discards it); anyone
              // else gets what was written before the end.
              if (overflow) controller.error(new Error("event stream client too slow"));
              else controller.close();
            } catch {
              // already closed or cancelled by the client
            }
          };

          const write = (text: string) => {
            if (done) return;
            try {
              controller.enqueue(encoder.encode(text));
            } catch {
              finish();
              return;
            }
            if ((controller.desiredSize ?? 0) < 0) finish(true);
          };

          // First bytes at once: the client (and any proxy) sees the stream is open.
          write(`retry: ${RETRY_MS}\n: connected\n\n`);

          // Replay and subscribe in one synchronous step, so no event falls between them.
          let from = req.lastEventId ?? null;
          if (from !== null) {
            // An id above the bus's last one comes from before a restart (ids restart at 1):
            // everything still buffered is new to this client.
            if (from > bus.lastId) from = 0;
            const oldest = bus.oldestId ?? bus.lastId + 1;
            if (from < oldest - 1) write(`: events ${from + 1} to ${oldest - 1} are no longer available\n\n`);
            for (const e of bus.since(from)) if (visibleTo(e, req.userId)) write(formatEvent(e));
          }
          unsubscribe = bus.subscribe((e) => {
            if (visibleTo(e, req.userId)) write(formatEvent(e));
          });

          heartbeat = setInterval(() => write(HEARTBEAT_FRAME), this.opts.heartbeatMs);
          heartbeat.unref?.();
          if (req.closeAfterMs !== undefined) {
            expiry = setTimeout(
              () => {
                // Say why before closing: EventSource's automatic reconnect would reuse the expired
                // token and get 401; the client reconnects with a fresh one and its last event id.
                write(TOKEN_EXPIRED_FRAME);
                finish();
              },
              Math.max(0, req.closeAfterMs),
            );
            expiry.unref?.();
          }
          streams.add(finish);
          if (req.signal?.aborted) finish();
          else req.signal?.addEventListener("abort", onAbort, { once: true });
        },
        // The client disconnected (Bun cancels the body stream).
        cancel: () => finish(),
      },
      { highWaterMark: maxQueued, size: (chunk) => chunk?.byteLength ?? 0 },
    );
  }
}
