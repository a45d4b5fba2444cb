import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/logger.ts";
import { type ServerHandle, serve } from "../../src/server.ts";
import { FakeS3 } from "../fakes/s3.ts";
import { freePort, startChildService } from "../helpers/child-service.ts";
import { ADMIN_EMAIL, offlineEnv } from "../helpers/context.ts";
import { until } from "../helpers/until.ts";
import { childLitestreams, countIn, LITESTREAM, litestreamsOf, restoreCopy, untilReplicated } from "./litestream.ts";

// Issue 36 items 1, 2 and 4: REPLICA_URL makes the service run Litestream as its child, which
// sends every commit to the replica within about a second; unset, nothing changes. The replica's
// state is in /health and /metrics; an unreachable replica shows as failing, never blocks the API,
// and recovers on its own. Each test restores what the replica holds with Litestream itself.

const dirs: string[] = [];
const handles: ServerHandle[] = [];
const stores: FakeS3[] = [];
afterEach(async () => {
  for (const h of handles.splice(0)) await h.stop();
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

async function start(env: Record<string, string> = {}) {
  const dir = tempDir("trading-agent-replica-");
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: "debug", write: (l) => lines.push(JSON.parse(l)) });
  const config = loadConfig({
    ...offlineEnv,
    HOST: "127.0.0.1",
    PORT: "0",
    DATABASE_PATH: join(dir, "trading.db"),
    ...env,
  });
  const handle = await serve(config, { services: { logger, passwordCost: { memoryCost: 1024, timeCost: 1 } } });
  handles.push(handle);
  return { handle, lines };
}

async function replication(handle: ServerHandle): Promise<Record<string, unknown> | undefined> {
  const res = await fetch(`${handle.url}/api/v1/health`);
  const body = (await res.json()) as { services: Record<string, Record<string, unknown>> };
  return body.services.replication;
}

function adminId(handle: ServerHandle): string {
  return handle.database.sqlite
    .query<{ id: string }, [string]>("SELECT id FROM users WHERE email = ?")
    .get(ADMIN_EMAIL)!.id;
}

test("REPLICA_URL unset: no Litestream process, no replication check or metric, the service's own checkpoints", async () => {
  const { handle } = await start();
  expect(handle.services.replication).toBeNull();
  expect(await replication(handle)).toBeUndefined();
  expect(await (await fetch(`${handle.url}/metrics`)).text()).not.toContain("trading_replication");
  expect(childLitestreams()).toEqual([]);
  // More than SQLite's 1,000-frame threshold: the service's checkpointer copies it back.
  const user = adminId(handle);
  for (let i = 0; i < 1_200; i++) handle.services.agents.create(user, { name: `agent ${i}` });
  handle.services.walCheckpoints.poll();
  await until(() => handle.services.walCheckpoints.checkpoints > 0, "the service's own checkpoint");
});

describe.skipIf(!LITESTREAM)("with Litestream", () => {
  test("file:// replica: each commit is on the replica within about a second; Litestream owns the checkpoints and stops with the service", async () => {
    const replica = `file://${tempDir("replica-")}/trading`;
    const { handle, lines } = await start({ REPLICA_URL: replica });
    expect(childLitestreams()).toHaveLength(1);
    const user = adminId(handle);
    handle.services.agents.create(user, { name: "first" });
    const committed = performance.now();
    await until(
      async () => (await replication(handle))?.state === "replicating" && (await replication(handle))?.lagSeconds === 0,
      "caught up",
      10_000,
      50,
    );
    expect(countIn(await restoreCopy(replica), "SELECT count(*) AS n FROM agents WHERE name = 'first'")).toBe(1);
    expect(performance.now() - committed).toBeLessThan(3_000);
    expect(await replication(handle)).toEqual({
      status: "healthy",
      state: "replicating",
      lagSeconds: 0,
      replica,
      latency: expect.any(Number),
    });
    // The service's connection does not checkpoint and its checkpointer never started.
    for (let i = 0; i < 1_200; i++) handle.services.agents.create(user, { name: `agent ${i}` });
    handle.services.walCheckpoints.poll();
    expect(handle.services.walCheckpoints.checkpoints).toBe(0);
    expect(handle.database.sqlite.query<{ wal_autocheckpoint: number }, []>("PRAGMA wal_autocheckpoint").get()).toEqual(
      {
        wal_autocheckpoint: 0,
      },
    );
    // Shutdown: Litestream's last sync, then it is gone; the copy has the last commit.
    handle.services.agents.create(user, { name: "last" });
    await handle.stop();
    expect(childLitestreams()).toEqual([]);
    expect(countIn(await restoreCopy(replica), "SELECT count(*) AS n FROM agents")).toBe(1_202);
    expect(lines.some((l) => l.msg === "replicating the database with Litestream")).toBe(true);
  }, 60_000);

  test("a service killed with SIGKILL leaves no Litestream behind to run beside the next one", async () => {
    const dir = tempDir("killed-");
    const replica = `file://${dir}/replica`;
    const child = await startChildService(
      { ...offlineEnv, DATABASE_PATH: join(dir, "trading.db"), REPLICA_URL: replica },
      { cwd: dir },
    );
    try {
      const litestream = await until(() => litestreamsOf(child.pid)[0], "the service's Litestream");
      await untilReplicated(replica, "SELECT count(*) AS n FROM users", 1);
      const login = await fetch(`${child.url}/api/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: ADMIN_EMAIL, password: offlineEnv.ADMIN_PASSWORD }),
      });
      const { accessToken } = (await login.json()) as { accessToken: string };
      const created = await fetch(`${child.url}/api/v1/agents`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${accessToken}` },
        body: JSON.stringify({ name: "last words" }),
      });
      expect(created.status).toBe(201);
      await untilReplicated(replica, "SELECT count(*) AS n FROM agents WHERE name = 'last words'", 1);
      await child.kill();
      await until(() => !existsSync(`/proc/${litestream}`), "Litestream to end with the service", 10_000, 50);
    } finally {
      await child.kill();
    }
  }, 60_000);

  test("sftp:// replica that refuses connections: failing, shown without its password, which no log line holds", async () => {
    const port = freePort();
    const replica = `sftp://backup:pa%24%24word@127.0.0.1:${port}/srv/trading`;
    const { handle, lines } = await start({ REPLICA_URL: replica });
    const failing = await until(
      async () => {
        const r = await replication(handle);
        return r?.state === "failing" ? r : undefined;
      },
      "failing",
      15_000,
      100,
    );
    expect(failing.replica).toBe(`sftp://127.0.0.1:${port}/srv/trading`);
    expect(lines.some((l) => l.msg === "Litestream: replication error")).toBe(true);
    const text = JSON.stringify(lines) + JSON.stringify(await replication(handle));
    expect(text).not.toContain("pa$$word");
    expect(text).not.toContain("pa%24%24word");
  }, 60_000);

  test("s3:// replica: failing within 10 s while unreachable, the API answers meanwhile, caught up on its own when it is back", async () => {
    const s3 = await FakeS3.start();
    stores.push(s3);
    const replica = `s3://${s3.bucket}/trading`;
    const { handle, lines } = await start({
      REPLICA_URL: replica,
      REPLICA_S3_ENDPOINT: s3.endpoint,
      AWS_ACCESS_KEY_ID: s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    });
    const user = adminId(handle);
    handle.services.agents.create(user, { name: "before" });
    await until(
      async () => (await replication(handle))?.lagSeconds === 0 && (await replication(handle))?.state === "replicating",
      "caught up",
      10_000,
      50,
    );

    await s3.stop();
    const down = performance.now();
    handle.services.agents.create(user, { name: "while down" });
    const failing = await until(
      async () => {
        const r = await replication(handle);
        return r?.state === "failing" ? r : undefined;
      },
      "failing",
      15_000,
      100,
    );
    expect(performance.now() - down).toBeLessThan(10_000);
    expect(failing.status).toBe("unhealthy");
    expect(lines.some((l) => l.msg === "Litestream: replication error")).toBe(true);
    // Not critical: the service is degraded, answers 200, and keeps writing.
    const health = await fetch(`${handle.url}/api/v1/health`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { status: string }).status).toBe("degraded");
    handle.services.agents.create(user, { name: "still writing" });
    const metrics = await (await fetch(`${handle.url}/metrics`)).text();
    expect(Number(/^trading_replication_lag_seconds (\S+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
    expect(metrics).toMatch(/^trading_replication_errors_total [1-9]/m);

    await s3.listen();
    await until(
      async () => (await replication(handle))?.state === "replicating" && (await replication(handle))?.lagSeconds === 0,
      "recovered",
      30_000,
      100,
    );
    const yaml = join(tempDir("restore-config-"), "litestream.yml");
    writeFileSync(
      yaml,
      JSON.stringify({
        dbs: [
          {
            path: "/restore-target",
            replicas: [{ url: replica, endpoint: s3.endpoint, region: "us-east-1", "force-path-style": true }],
          },
        ],
      }),
    );
    const copy = await restoreCopy(replica, { AWS_ACCESS_KEY_ID: "S3RVER", AWS_SECRET_ACCESS_KEY: "S3RVER" }, yaml);
    expect(countIn(copy, "SELECT count(*) AS n FROM agents")).toBe(3);
  }, 60_000);
});
