// Server-Sent Events reader (WHATWG HTML "event stream interpretation"), for the Pyth Hermes price
// stream. Yields each dispatched message and each comment line: comments are keep-alives, and the
// price stream treats any item as a sign the connection is alive.

export interface SseMessage {
  event: string;
  data: string;
  id: string | null;
}

export type SseItem = { type: "message"; message: SseMessage } | { type: "comment"; text: string };

export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseItem> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let event = "";
  let lastId: string | null = null;

  // Returns the item a line produces, if any.
  const line = (text: string): SseItem | null => {
    if (text === "") {
      if (data.length === 0) {
        event = "";
        return null;
      }
      const message: SseMessage = { event: event || "message", data: data.join("\n"), id: lastId };
      data = [];
      event = "";
      return { type: "message", message };
    }
    if (text.startsWith(":")) return { type: "comment", text: text.slice(1).trimStart() };
    const colon = text.indexOf(":");
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") event = value;
    else if (field === "id" && !value.includes("\0")) lastId = value;
    // "retry" and unknown fields are ignored: reconnect timing is ours (PRODUCT.md §5 back-off).
    return null;
  };

  let finished = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        finished = true;
        // A lone \r held back for a possible \n ends its line after all.
        if (buffer.endsWith("\r")) {
          const item = line(buffer.slice(0, -1));
          buffer = "";
          if (item) yield item;
        }
        break;
      }
      buffer += decoder.decode(value, { stream: true });
      for (;;) {
        const m = /\r\n|\r|\n/.exec(buffer);
        if (!m) break;
        // A lone \r at the very end may be the first half of \r\n: wait for the next chunk.
        if (m[0] === "\r" && m.index === buffer.length - 1) break;
        const text = buffer.slice(0, m.index);
        buffer = buffer.slice(m.index + m[0].length);
        const item = line(text);
        if (item) yield item;
      }
    }
  } finally {
    // The consumer stopped early (or reading failed): close the connection rather than leak it.
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  // End of stream: an incomplete event (no terminating blank line) is discarded, per the standard.
}
