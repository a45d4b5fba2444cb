import { expect, test } from "bun:test";
import { EventBus } from "../../src/events/bus.ts";

// src/events/bus.ts keeps the last `keep` events for Last-Event-ID replay, in a ring once full:
// replay is oldest first and holds exactly the newest `keep`, however many times the ring wrapped.

test("replay holds the newest events in order, across many wraps of the ring", () => {
  const bus = new EventBus(() => 0, 5);
  expect(bus.oldestId).toBeNull();
  expect(bus.since(0)).toEqual([]);
  const publish = () => bus.publish("signal.created", "u", { signal: {} } as never).id;
  for (let i = 0; i < 3; i++) publish();
  expect(bus.since(0).map((e) => e.id)).toEqual([1, 2, 3]);
  expect(bus.oldestId).toBe(1);
  for (let n = 4; n <= 23; n++) {
    publish();
    const held = bus.since(0).map((e) => e.id);
    const from = Math.max(1, n - 4);
    expect(held).toEqual(Array.from({ length: n - from + 1 }, (_, i) => from + i));
    expect(bus.oldestId).toBe(from);
    expect(bus.since(n - 2).map((e) => e.id)).toEqual([n - 1, n]);
  }
});

test("a bus that keeps nothing replays nothing", () => {
  const bus = new EventBus(() => 0, 0);
  bus.publish("signal.created", "u", { signal: {} } as never);
  expect(bus.since(0)).toEqual([]);
  expect(bus.oldestId).toBeNull();
});
