import { expect, test } from "bun:test";
import { ManualClock, systemClock } from "../../src/clock.ts";
import { createLogger } from "../../src/logger.ts";
import { SignalQueue } from "../../src/signals/signal-queue.ts";
import { drained } from "../helpers/until.ts";

// src/signals/signal-queue.ts hands one batch over per turn of the event loop, so requests are
// answered between batches (a drain once held them for hundreds of milliseconds). While the API
// is in use (shareWith) a batch is small — what arrived since the last one, at least 16 — and at
// most 256 otherwise. Every signal is still decided once, in order.

function queueRecording() {
  const batches: number[][] = [];
  const queue = new SignalQueue(
    (ids) => {
      batches.push([...ids]);
      return ids.map(() => Promise.resolve());
    },
    createLogger({ level: "silent" }),
    systemClock,
  );
  return { queue, batches };
}

/** Counts the loop's turns while `until` is pending: a probe that re-arms itself with setImmediate. */
async function turnsDuring(until: Promise<void>): Promise<number> {
  let turns = 0;
  let done = false;
  void until.then(() => {
    done = true;
  });
  await new Promise<void>((resolve) => {
    const probe = () => {
      if (done) return resolve();
      turns++;
      setImmediate(probe);
    };
    setImmediate(probe);
  });
  return turns;
}

test("a backlog is handed over one batch per turn, 256 at most, in order", async () => {
  const { queue, batches } = queueRecording();
  for (let id = 1; id <= 600; id++) queue.enqueue(id);
  const turns = await turnsDuring(queue.idle());
  expect(batches.map((b) => b.length)).toEqual([256, 256, 88]);
  expect(batches.flat()).toEqual(Array.from({ length: 600 }, (_, i) => i + 1));
  // The loop turned between the batches (other work ran), not once for all of them.
  expect(turns).toBeGreaterThanOrEqual(batches.length - 1);
});

test("while the API is in use, a backlog drains 16 at a time, and new arrivals are never left behind", async () => {
  let inUse = false;
  const batches: number[][] = [];
  let onBatch: (n: number) => void = () => {};
  const queue = new SignalQueue(
    (ids) => {
      batches.push([...ids]);
      onBatch(batches.length);
      return ids.map(() => Promise.resolve());
    },
    createLogger({ level: "silent" }),
    systemClock,
  );
  queue.shareWith(() => inUse);
  // A restart's backlog: the first batch goes while nobody uses the API, then requests arrive.
  onBatch = (n) => {
    if (n === 1) inUse = true;
    // During the third batch, 40 signals arrive in one turn.
    if (n === 3) for (let id = 601; id <= 640; id++) queue.enqueue(id);
  };
  for (let id = 1; id <= 600; id++) queue.enqueue(id);
  await queue.idle();
  const sizes = batches.map((b) => b.length);
  expect(sizes.slice(0, 3)).toEqual([256, 16, 16]);
  // The batch after the 40 arrivals takes at least 40; the backlog then goes on 16 at a time.
  expect(sizes[3]).toBe(40);
  expect(sizes.slice(4).every((n) => n <= 16)).toBe(true);
  expect(batches.flat()).toEqual(Array.from({ length: 640 }, (_, i) => i + 1));
});

test("a signal the handler says is decided leaves the lag and the in-flight limit while its trade runs; idle() still waits for it", async () => {
  const clock = new ManualClock();
  const trades: Array<() => void> = [];
  const handed: number[] = [];
  const queue = new SignalQueue(
    (ids, decided) => {
      handed.push(...ids);
      return ids.map((id) => {
        // Decided at once, its trade in flight until the test lands it.
        decided(id);
        return new Promise<void>((r) => trades.push(r));
      });
    },
    createLogger({ level: "silent" }),
    clock,
  );
  // More trades in flight than the 1,024 signals the queue lets be decided at once.
  for (let id = 1; id <= 1_500; id++) queue.enqueue(id);
  let idle = false;
  void queue.idle().then(() => {
    idle = true;
  });
  while (handed.length < 1_500) await drained();
  clock.advance(60_000);
  expect(queue.lagSeconds).toBe(0);
  expect(queue.depth).toBe(1_500);
  expect(idle).toBe(false);
  // One still undecided counts from its own receipt.
  queue.enqueue(2_000, clock.now() - 3_000);
  expect(queue.lagSeconds).toBe(3);
  await drained();
  expect(queue.lagSeconds).toBe(0);
  for (const land of trades) land();
  await queue.idle();
  expect(idle).toBe(true);
  expect(queue.depth).toBe(0);
});
