import { expect, test } from "bun:test";
import { type LoopTimer, TickLoop } from "../src/tick-loop.ts";
import { drained } from "./helpers/until.ts";

// The loop behind the copy-trading watcher, the position monitor and the price recorder, on a
// timer the test fires by hand: what the loop waits for is asserted, not slept through.

class ManualTimer implements LoopTimer {
  t = 0;
  private nextId = 1;
  readonly pending = new Map<number, { fn: () => void; ms: number }>();
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): number {
    const id = this.nextId++;
    this.pending.set(id, { fn, ms });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  /** The one wait the loop has asked for (fails with none or several). */
  only(): { fn: () => void; ms: number } {
    expect(this.pending.size).toBe(1);
    return [...this.pending.values()][0]!;
  }
  /** Lets the wait end: runs its callback. */
  fire(): void {
    const [id, wait] = [...this.pending.entries()][0]!;
    this.pending.delete(id);
    wait.fn();
  }
}

/** A tick the test ends by hand. */
function manualTicks() {
  const ends: Array<() => void> = [];
  let inFlight = 0;
  let most = 0;
  return {
    ends,
    get inFlight() {
      return inFlight;
    },
    get most() {
      return most;
    },
    tick: () =>
      new Promise<void>((resolve) => {
        most = Math.max(most, ++inFlight);
        ends.push(() => {
          inFlight--;
          resolve();
        });
      }),
  };
}

/** A loop of hand-ended ticks every second on the manual timer. */
function manualLoop() {
  const timer = new ManualTimer();
  const ticks = manualTicks();
  return {
    timer,
    ticks,
    loop: new TickLoop(
      ticks.tick,
      () => 1_000,
      () => undefined,
      timer,
    ),
  };
}

test("ticks again after what is left of the interval, never two at once; stop() waits for the tick in flight", async () => {
  const { timer, ticks, loop } = manualLoop();
  loop.start();
  loop.start(); // already running: no second loop
  expect(ticks.ends).toHaveLength(1);
  expect(timer.pending.size).toBe(0); // no wait while a tick is in flight

  timer.t += 300; // the tick took 300 ms
  ticks.ends[0]!();
  await drained();
  expect(timer.only().ms).toBe(700);
  timer.fire();
  expect(ticks.ends).toHaveLength(2);

  // A tick longer than the interval: the next follows at once.
  timer.t += 1_500;
  ticks.ends[1]!();
  await drained();
  expect(timer.only().ms).toBe(0);
  timer.fire();
  expect(ticks.ends).toHaveLength(3);

  let stopped = false;
  const stopping = loop.stop().then(() => (stopped = true));
  await drained();
  expect(stopped).toBe(false); // the third tick is still in flight
  ticks.ends[2]!();
  await stopping;
  expect(ticks.inFlight).toBe(0);
  expect(ticks.most).toBe(1);
  // Stopped: no wait is pending, so nothing can tick again.
  await drained();
  expect(timer.pending.size).toBe(0);
  expect(ticks.ends).toHaveLength(3);
});

test("stop() between ticks cancels the wait", async () => {
  const { timer, ticks, loop } = manualLoop();
  loop.start();
  ticks.ends[0]!();
  await drained();
  expect(timer.pending.size).toBe(1);
  await loop.stop();
  expect(timer.pending.size).toBe(0);
  expect(ticks.ends).toHaveLength(1);
});

test("a failed tick is reported and the loop goes on, unless onError answers stop (start() resumes)", async () => {
  const timer = new ManualTimer();
  const errors: string[] = [];
  let ticks = 0;
  const loop = new TickLoop(
    async () => {
      ticks++;
      throw new Error(ticks === 2 ? "fatal" : "transient");
    },
    () => 1_000,
    (err) => {
      errors.push((err as Error).message);
      return (err as Error).message === "fatal" ? "stop" : undefined;
    },
    timer,
  );
  loop.start();
  await drained();
  expect(errors).toEqual(["transient"]);
  expect(timer.only().ms).toBe(1_000); // goes on after a transient failure
  timer.fire();
  await drained();
  expect(errors).toEqual(["transient", "fatal"]);
  expect(timer.pending.size).toBe(0); // "stop": no next wait
  expect(ticks).toBe(2);

  loop.start(); // resumes at once
  expect(ticks).toBe(3);
  await drained();
  expect(errors[2]).toBe("transient");
  expect(timer.pending.size).toBe(1);
  await loop.stop();
  expect(timer.pending.size).toBe(0);
});
