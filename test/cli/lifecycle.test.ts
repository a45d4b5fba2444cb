import { expect, test } from "bun:test";
import { Lifecycle } from "../../src/lifecycle.ts";
import { createLogger } from "../../src/logger.ts";

// Start/shutdown hooks behind Services.onStart/onShutdown (src/lifecycle.ts).

function setup() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: "debug", write: (l) => lines.push(JSON.parse(l)) });
  return { lifecycle: new Lifecycle(logger), lines };
}

test("start hooks run once in registration order; shutdown hooks once in reverse", async () => {
  const { lifecycle } = setup();
  const order: string[] = [];
  lifecycle.onStart(() => order.push("start monitor"));
  lifecycle.onStart(async () => {
    order.push("start queue");
  });
  lifecycle.onShutdown(() => order.push("stop monitor"), "monitor");
  lifecycle.onShutdown(async () => {
    order.push("drain queue");
  }, "queue");
  await lifecycle.start();
  await lifecycle.start();
  await Promise.all([lifecycle.stop(), lifecycle.stop()]);
  await lifecycle.stop();
  expect(order).toEqual(["start monitor", "start queue", "drain queue", "stop monitor"]);
});

test("a failing or overrunning step is logged and the next one still runs, all within the bound", async () => {
  const { lifecycle, lines } = setup();
  const ran: string[] = [];
  lifecycle.onShutdown(() => ran.push("close database"), "last");
  lifecycle.onShutdown(() => new Promise(() => {}), "stuck worker");
  lifecycle.onShutdown(() => {
    throw new Error("broken stream");
  }, "sse");
  const started = performance.now();
  await lifecycle.stop({ timeoutMs: 150 });
  const took = performance.now() - started;
  expect(ran).toEqual(["close database"]);
  expect(took).toBeGreaterThanOrEqual(140);
  expect(took).toBeLessThan(2_000);
  expect(lines.map((l) => [l.level, l.msg, l.step])).toEqual([
    ["error", "shutdown step failed", "sse"],
    ["warn", "shutdown step timed out", "stuck worker"],
  ]);
  expect(lines[0]!.error).toBe("broken stream");
});

test("a failing start hook fails the start", async () => {
  const { lifecycle } = setup();
  lifecycle.onStart(() => {
    throw new Error("cannot start monitor");
  });
  await expect(lifecycle.start()).rejects.toThrow("cannot start monitor");
});
