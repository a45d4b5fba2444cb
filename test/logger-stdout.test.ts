import { expect, test } from "bun:test";
import { join } from "node:path";

// The default logger writes the lines of one run of the event loop together at its end; a line
// logged right before process.exit() must still be written, and the order kept.
const logger = join(import.meta.dir, "..", "src", "logger.ts");

async function stdoutOf(script: string): Promise<string[]> {
  const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  return out.split("\n").filter(Boolean);
}

test("lines logged just before a synchronous exit are written, in order", async () => {
  const lines = await stdoutOf(`
    const { createLogger } = await import(${JSON.stringify(logger)});
    const log = createLogger({ level: "info" });
    log.info("one", { n: 1 });
    log.warn("two", { n: 2 });
    log.debug("not at info");
    log.error("three", { err: new Error("boom"), amount: 5n, password: "hunter2-secret" });
    process.exit(0);
  `);
  const parsed = lines.map((l) => JSON.parse(l));
  expect(parsed.map((r) => r.msg)).toEqual(["one", "two", "three"]);
  expect(parsed[2]).toMatchObject({ err: { name: "Error", message: "boom" }, amount: "5", password: "[REDACTED]" });
});

test("lines logged across turns of the event loop come out in order, each turn's before the next", async () => {
  const lines = await stdoutOf(`
    const { createLogger } = await import(${JSON.stringify(logger)});
    const log = createLogger({ level: "info" });
    for (let turn = 0; turn < 3; turn++) {
      log.info("turn", { turn, at: 0 });
      log.info("turn", { turn, at: 1 });
      process.stdout.write(JSON.stringify({ msg: "marker", turn }) + "\\n");
      await new Promise((r) => setTimeout(r, 1));
    }
  `);
  const seen = lines.map((l) => JSON.parse(l)).map((r) => (r.msg === "marker" ? `m${r.turn}` : `${r.turn}.${r.at}`));
  // A turn's log lines are out by the next turn; the marker written directly may come first.
  for (let turn = 0; turn < 3; turn++) {
    const next = seen.indexOf(`${turn + 1}.0`);
    if (next === -1) continue;
    expect(seen.indexOf(`${turn}.0`)).toBeLessThan(next);
    expect(seen.indexOf(`${turn}.1`)).toBeLessThan(next);
  }
  expect(seen.filter((s) => !s.startsWith("m"))).toEqual(["0.0", "0.1", "1.0", "1.1", "2.0", "2.1"]);
});
