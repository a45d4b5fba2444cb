import { expect, test } from "bun:test";
import { TickLoop } from "../src/tick-loop.ts";

// The loop behind the copy-trading watcher, the position monitor and the price recorder.

test("ticks again after the interval, never two at once; stop() waits for the tick in flight", async () => {
  let ticks = 0;
  let inFlight = 0;
  let most = 0;
  const loop = new TickLoop(
    async () => {
      ticks++;
      most = Math.max(most, ++inFlight);
      await Bun.sleep(5);
      inFlight--;
    },
    () => 1,
    () => undefined,
  );
  loop.start();
  loop.start();
  while (ticks < 3) await Bun.sleep(1);
  await loop.stop();
  expect(inFlight).toBe(0);
  expect(most).toBe(1);
  const after = ticks;
  await Bun.sleep(20);
  expect(ticks).toBe(after);
});

test("a failed tick is reported and the loop goes on, unless onError answers stop (start() resumes)", async () => {
  const errors: string[] = [];
  let ticks = 0;
  const loop = new TickLoop(
    async () => {
      ticks++;
      throw new Error(ticks === 2 ? "fatal" : "transient");
    },
    () => 1,
    (err) => {
      errors.push((err as Error).message);
      return (err as Error).message === "fatal" ? "stop" : undefined;
    },
  );
  loop.start();
  while (ticks < 2) await Bun.sleep(1);
  await Bun.sleep(20);
  expect(errors).toEqual(["transient", "fatal"]);
  loop.start();
  while (ticks < 3) await Bun.sleep(1);
  await loop.stop();
  expect(errors[2]).toBe("transient");
});
