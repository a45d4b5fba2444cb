import { describe, expect, test } from "bun:test";
import { EventBus, type EventType, type ServiceEvent } from "../../src/events/bus.ts";
import { EventStreamHub, formatEvent, visibleTo } from "../../src/events/event-stream.ts";
import { SseClient } from "./sse-client.ts";

// The SSE stream of GET /api/v1/events without HTTP (PRODUCT.md §6): framing, who sees what,
// Last-Event-ID replay, heartbeat, and that every way a stream ends releases its subscription.

const ALICE = "alice";
const BOB = "bob";
const TIME = "2026-01-01T00:00:00.000Z";

/** The transport carries any payload: these tests publish markers, not the service's event shapes. */
type Markers = Record<EventType, Record<string, unknown>>;

function setup(opts: { keep?: number; heartbeatMs?: number; maxQueuedBytes?: number } = {}) {
  const bus = new EventBus<Markers>(() => Date.parse(TIME), opts.keep ?? 1000);
  const hub = new EventStreamHub(bus as unknown as EventBus, {
    heartbeatMs: opts.heartbeatMs ?? 60_000,
    maxQueuedBytes: opts.maxQueuedBytes,
  });
  const open = (req: Parameters<EventStreamHub["open"]>[0]) => {
    const stream = hub.open(req);
    return new SseClient(new Response(stream), stream.getReader());
  };
  return { bus, hub, open };
}

/** Reads the opening frame (retry + ":connected"). */
async function opened(c: SseClient) {
  const f = await c.next();
  expect(f).toMatchObject({ retry: "3000", comments: ["connected"] });
  return c;
}

describe("framing", () => {
  test("id, event and one-line JSON data, in that order", () => {
    const e: ServiceEvent = {
      id: 7,
      type: "position.opened",
      userId: ALICE,
      time: TIME,
      data: { positionId: "p1", note: "two\nlines" },
    };
    expect(formatEvent(e)).toBe(
      'id: 7\nevent: position.opened\ndata: {"id":7,"type":"position.opened","time":"2026-01-01T00:00:00.000Z","data":{"positionId":"p1","note":"two\\nlines"}}\n\n',
    );
  });

  test("a user sees their own events and the global ones only", () => {
    const e = (userId: string | null): ServiceEvent => ({ id: 1, type: "price.sol", userId, time: TIME, data: {} });
    expect(visibleTo(e(ALICE), ALICE)).toBe(true);
    expect(visibleTo(e(null), ALICE)).toBe(true);
    expect(visibleTo(e(BOB), ALICE)).toBe(false);
  });
});

describe("EventStreamHub", () => {
  test("live events: own and global arrive in order, another user's never", async () => {
    const { bus, open } = setup();
    const c = await opened(open({ userId: ALICE }));
    bus.publish("signal.created", BOB, { n: 1 });
    bus.publish("signal.created", ALICE, { n: 2 });
    bus.publish("price.sol", null, { price: "100.00000000" });
    bus.publish("position.opened", BOB, { n: 3 });
    bus.publish("position.opened", ALICE, { n: 4 });
    const frames = [await c.next(), await c.next(), await c.next()];
    expect(frames.map((f) => [f.id, f.event, JSON.parse(f.data!).data])).toEqual([
      ["2", "signal.created", { n: 2 }],
      ["3", "price.sol", { price: "100.00000000" }],
      ["5", "position.opened", { n: 4 }],
    ]);
    await c.close();
  });

  test("Last-Event-ID replays the missed events of the user from the buffer, then goes live", async () => {
    const { bus, open } = setup();
    bus.publish("signal.created", ALICE, { n: 1 }); // 1: seen before the reconnect
    bus.publish("trade.executed", ALICE, { n: 2 }); // 2
    bus.publish("trade.executed", BOB, { n: 3 }); // 3: not Alice's
    bus.publish("position.opened", ALICE, { n: 4 }); // 4
    const c = await opened(open({ userId: ALICE, lastEventId: 1 }));
    expect((await c.next()).id).toBe("2");
    expect((await c.next()).id).toBe("4");
    bus.publish("position.updated", ALICE, { n: 5 });
    expect(await c.next()).toMatchObject({ id: "5", event: "position.updated" });
    await c.close();
  });

  test("without Last-Event-ID nothing is replayed", async () => {
    const { bus, open } = setup();
    bus.publish("signal.created", ALICE, { n: 1 });
    const c = await opened(open({ userId: ALICE }));
    bus.publish("signal.created", ALICE, { n: 2 });
    expect((await c.next()).id).toBe("2");
    await c.close();
  });

  test("an id from before a restart (above the bus's last id) replays everything buffered", async () => {
    const { bus, open } = setup();
    bus.publish("signal.created", ALICE, { n: 1 });
    bus.publish("signal.created", ALICE, { n: 2 });
    const c = await opened(open({ userId: ALICE, lastEventId: 9_000 }));
    expect([(await c.next()).id, (await c.next()).id]).toEqual(["1", "2"]);
    await c.close();
  });

  test("events that left the buffer are announced as a comment, the rest replayed", async () => {
    const { bus, open } = setup({ keep: 2 });
    for (let n = 1; n <= 5; n++) bus.publish("signal.created", ALICE, { n }); // 4 and 5 kept
    const c = await opened(open({ userId: ALICE, lastEventId: 1 }));
    expect((await c.next()).comments).toEqual(["events 2 to 3 are no longer available"]);
    expect([(await c.next()).id, (await c.next()).id]).toEqual(["4", "5"]);
    await c.close();
  });

  test("heartbeat comments keep an idle stream alive", async () => {
    const { open } = setup({ heartbeatMs: 20 });
    const c = await opened(open({ userId: ALICE }));
    const f = await c.next();
    expect(f).toMatchObject({ comments: ["keep-alive"] });
    expect(f.id).toBeUndefined();
    await c.close();
  });

  test("the client going away (cancel) releases the subscription", async () => {
    const { bus, hub, open } = setup();
    const c = await opened(open({ userId: ALICE }));
    expect([hub.size, bus.subscriberCount]).toEqual([1, 1]);
    await c.close();
    expect([hub.size, bus.subscriberCount]).toEqual([0, 0]);
    bus.publish("signal.created", ALICE, {}); // nothing to deliver to, nothing throws
  });

  test("the request's abort signal ends the stream and releases the subscription", async () => {
    const { bus, hub, open } = setup();
    const abort = new AbortController();
    const c = await opened(open({ userId: ALICE, signal: abort.signal }));
    abort.abort();
    expect([hub.size, bus.subscriberCount]).toEqual([0, 0]);
    expect(await c.endsWithin(1_000)).toBe(true);
  });

  test("an already aborted request never subscribes", () => {
    const { bus, hub } = setup();
    const abort = new AbortController();
    abort.abort();
    hub.open({ userId: ALICE, signal: abort.signal });
    expect([hub.size, bus.subscriberCount]).toEqual([0, 0]);
  });

  test("closeAll (shutdown) ends every stream after what was already written", async () => {
    const { bus, hub, open } = setup();
    const a = await opened(open({ userId: ALICE }));
    const b = await opened(open({ userId: BOB }));
    bus.publish("signal.created", ALICE, {});
    hub.closeAll();
    expect([hub.size, bus.subscriberCount]).toEqual([0, 0]);
    expect((await a.next()).event).toBe("signal.created");
    expect(await a.endsWithin(1_000)).toBe(true);
    expect(await b.endsWithin(1_000)).toBe(true);
  });

  test("the stream ends when the access token expires (closeAfterMs)", async () => {
    const { bus, open } = setup();
    const c = await opened(open({ userId: ALICE, closeAfterMs: 0 }));
    expect(await c.endsWithin(1_000)).toBe(true);
    expect(bus.subscriberCount).toBe(0);
  });

  test("a client that stops reading is dropped once its queue passes the bound; its queue is discarded", async () => {
    const { bus, hub } = setup({ maxQueuedBytes: 2_000 });
    const stream = hub.open({ userId: ALICE }); // not read while events pile up
    for (let i = 0; i < 5; i++) bus.publish("price.sol", null, { pad: "x".repeat(100) }); // about 1 KB
    expect(hub.size).toBe(1);
    for (let i = 0; i < 10; i++) bus.publish("price.sol", null, { pad: "x".repeat(100) }); // about 3 KB
    expect([hub.size, bus.subscriberCount]).toEqual([0, 0]);
    expect(stream.getReader().read()).rejects.toThrow("event stream client too slow");
  });
});
