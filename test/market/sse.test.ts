import { expect, test } from "bun:test";
import { readSse, type SseItem } from "../../src/market/sse.ts";

// The SSE framing of the Hermes stream (WHATWG "event stream interpretation"), fed in chunks cut
// at awkward places.

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const ch of chunks) c.enqueue(enc.encode(ch));
      c.close();
    },
  });
}

async function collect(chunks: string[]): Promise<SseItem[]> {
  const out: SseItem[] = [];
  for await (const item of readSse(streamOf(chunks))) out.push(item);
  return out;
}

test("messages, comments, multi-line data, event names and ids", async () => {
  const items = await collect([
    ": keep-alive\n\n",
    'data: {"a":1}\n\n',
    "event: price\nid: 7\ndata: line1\ndata: line2\n\n",
  ]);
  expect(items).toEqual([
    { type: "comment", text: "keep-alive" },
    { type: "message", message: { event: "message", data: '{"a":1}', id: null } },
    { type: "message", message: { event: "price", data: "line1\nline2", id: "7" } },
  ]);
});

test("chunks split inside lines and inside CRLF pairs", async () => {
  const items = await collect(["da", "ta: hel", "lo\r", "\n\r", "\ndata:x\r\r"]);
  expect(items).toEqual([
    { type: "message", message: { event: "message", data: "hello", id: null } },
    { type: "message", message: { event: "message", data: "x", id: null } },
  ]);
});

test("a blank line without data dispatches nothing; a trailing unterminated event is dropped", async () => {
  const items = await collect(["\n\nevent: x\n\n", "data: complete\n\n", "data: never finished\n"]);
  expect(items).toEqual([{ type: "message", message: { event: "message", data: "complete", id: null } }]);
});

test("multi-byte characters split across chunks", async () => {
  const bytes = new TextEncoder().encode("data: 价格\n\n");
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(bytes.slice(0, 8));
      c.enqueue(bytes.slice(8));
      c.close();
    },
  });
  const out: SseItem[] = [];
  for await (const item of readSse(stream)) out.push(item);
  expect(out).toEqual([{ type: "message", message: { event: "message", data: "价格", id: null } }]);
});

test("an id carries over to later events (the last event ID), retry is ignored, a BOM is dropped", async () => {
  const items = await collect(["\uFEFFid: 41\ndata: a\n\n", "retry: 10\ndata: b\n\n", "id: 42\nevent: p\ndata: c\n\n"]);
  expect(items).toEqual([
    { type: "message", message: { event: "message", data: "a", id: "41" } },
    { type: "message", message: { event: "message", data: "b", id: "41" } },
    { type: "message", message: { event: "p", data: "c", id: "42" } },
  ]);
});
