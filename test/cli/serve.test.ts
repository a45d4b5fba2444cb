import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { browserOrigin } from "../../src/server.ts";
import { childEnv, freePort, run, SOURCE_CLI, startService } from "./process-helpers.ts";

// `trading-agent serve` (and no command at all) as a child process: SIGTERM and SIGINT stop it
// with exit 0 (PRODUCT.md §6); a port in use is a runtime failure, exit 1.

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "trading-agent-serve-cli-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = (extra: Record<string, string> = {}) =>
  childEnv({ DATABASE_PATH: join(dir, "trading.db"), HOST: "127.0.0.1", PORT: String(freePort()), ...extra });

test.each(["SIGTERM", "SIGINT"] as const)("%s stops the service gracefully with exit code 0", async (signal) => {
  const svc = await startService([...SOURCE_CLI, "serve"], { cwd: dir, env: env() });
  expect((await fetch(`${svc.url}/api/v1/health/live`)).status).toBe(200);
  expect(await svc.stop(signal)).toBe(0);
  const msgs = svc.logs.map((l) => l.msg);
  expect(msgs.slice(-2)).toEqual(["shutting down", "stopped"]);
  expect(svc.logs.at(-1)).toMatchObject({ level: "info", msg: "stopped", reason: signal });
  expect(await svc.stderr()).toBe("");
  // Nothing keeps the process alive after it said "stopped" (a supervisor waits on the exit).
  console.log(`exit after "stopped": ${svc.exitAfterStoppedMs()?.toFixed(0)} ms`);
  expect(svc.exitAfterStoppedMs()!).toBeLessThan(200);
});

test("no command means serve", async () => {
  const port = freePort();
  const svc = await startService([...SOURCE_CLI], { cwd: dir, env: env({ PORT: String(port) }) });
  expect(svc.port).toBe(port);
  expect(svc.logs.find((l) => l.msg === "listening")).toMatchObject({
    host: "127.0.0.1",
    port,
    dashboard: `http://127.0.0.1:${port}/`,
    database: join(dir, "trading.db"),
  });
  expect(await svc.stop()).toBe(0);
});

test("the dashboard URL a browser can open, for wildcard and IPv6 listen addresses too", () => {
  expect(browserOrigin("127.0.0.1", 3000)).toBe("http://127.0.0.1:3000");
  expect(browserOrigin("0.0.0.0", 3000)).toBe("http://127.0.0.1:3000");
  expect(browserOrigin("::", 3000)).toBe("http://[::1]:3000");
  expect(browserOrigin("fd00::5", 80)).toBe("http://[fd00::5]:80");
});

test("a port already in use exits 1 with one error line", async () => {
  const svc = await startService([...SOURCE_CLI, "serve"], { cwd: dir, env: env() });
  try {
    const r = await run([...SOURCE_CLI, "serve"], {
      cwd: dir,
      // Another data directory: the same one would be refused by its lock first (instance-lock.test.ts).
      env: env({ PORT: String(svc.port), DATABASE_PATH: join(dir, "second", "trading.db") }),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toStartWith("error: cannot listen: address already in use");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  } finally {
    expect(await svc.stop()).toBe(0);
  }
});
