import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChildService, freePort, startChildService } from "../helpers/child-service.ts";
import { offlineEnv } from "../helpers/context.ts";
import { run, SOURCE_CLI } from "./process-helpers.ts";

// Issue 34 item 6: one service per data directory. A second instance on the same directory (another
// PORT) exits 1 naming the running one's pid; the lock goes with the process, however it ends.
// Two real child processes.

const dirs: string[] = [];
const children: ChildService[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) await c.kill().catch(() => 0);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), "instance-lock-")));
  dirs.push(d);
  return d;
}

const envFor = (dir: string, db = "trading.db") => ({
  ...offlineEnv,
  NODE_ENV: "test",
  LOG_LEVEL: "warn",
  HOST: "127.0.0.1",
  DATABASE_PATH: join(dir, db),
});

const second = (dir: string, db = "trading.db") =>
  run([...SOURCE_CLI, "serve"], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      ...envFor(dir, db),
      PORT: String(freePort()),
    },
  });

test("a second instance on the same directory exits 1 naming the first one's pid; after a stop or a kill -9 it starts", async () => {
  const dir = dataDir();
  const first = await startChildService(envFor(dir), { cwd: dir });
  children.push(first);

  // Another database file in the same directory is the same data directory.
  for (const db of ["trading.db", "other.db"]) {
    const r = await second(dir, db);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`error: another trading-agent (pid ${first.pid}) is already running on ${dir}`);
  }
  // The first one is unharmed.
  expect((await fetch(`${first.url}/api/v1/health/live`)).status).toBe(200);

  // A graceful stop frees the directory.
  expect(await first.stop()).toBe(0);
  children.pop();
  const next = await startChildService(envFor(dir), { cwd: dir });
  children.push(next);
  // kill -9 runs no handler: the operating system still drops the lock.
  await next.kill();
  children.pop();
  const after = await startChildService(envFor(dir), { cwd: dir });
  children.push(after);
  expect((await fetch(`${after.url}/api/v1/health/live`)).status).toBe(200);
});

test("instances on different directories run side by side", async () => {
  const a = await startChildService(envFor(dataDir()));
  children.push(a);
  const b = await startChildService(envFor(dataDir()));
  children.push(b);
  expect((await fetch(`${a.url}/api/v1/health/live`)).status).toBe(200);
  expect((await fetch(`${b.url}/api/v1/health/live`)).status).toBe(200);
});
