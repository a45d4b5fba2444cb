import { createParser } from "eventsource-parser";

// Server-Sent Events reader for the Pyth Hermes price stream. The framing (WHATWG "event stream
// interpretation": CR/LF/CRLF split across chunks, multi-line data, BOM, ids) is eventsource-parser's;
// this turns its callbacks into an async stream of items. Comments are yielded too: they are
// keep-alives, and the price stream treats any item as a sign the connection is alive.

interface SseMessage {
  event: string;
  data: string;
  id: string | null;
}

export type SseItem = { type: "message"; message: SseMessage } | { type: "comment"; text: string };

export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseItem> {
  const ready: SseItem[] = [];
  // The last event id persists across events, as the standard's "last event ID buffer" does;
  // the parser reports an id only on the event that carried it.
  let lastId: string | null = null;
  const parser = createParser({
    onId: (id) => {
      lastId = id;
    },
    onEvent: (e) => ready.push({ type: "message", message: { event: e.event ?? "message", data: e.data, id: lastId } }),
    onComment: (text) => ready.push({ type: "comment", text: text.trimStart() }),
    // "retry" is ignored: reconnect timing is ours (PRODUCT.md §5 back-off).
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let finished = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        finished = true;
        break;
      }
      parser.feed(decoder.decode(value, { stream: true }));
      yield* ready.splice(0);
    }
  } finally {
    // The consumer stopped early (or reading failed): close the connection rather than leak it.
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  // End of stream: an incomplete event (no terminating blank line) is discarded, per the standard.
}
