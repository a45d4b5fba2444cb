import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_TOKENS } from "../src/market/demo/tokens.ts";
import { FakeS3 } from "../test/fakes/s3.ts";
import { startChildService } from "../test/helpers/child-service.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, offlineEnv } from "../test/helpers/context.ts";

// What replication costs in requests to an S3-compatible store (docs/backups.md "Cost"): the
// service as a child process on the demo market with REPLICA_URL pointing at the local S3 fake,
// which counts every request Litestream makes. First idle (no signals: only the service's own
// background writes), then trading (one buy signal a second for five simulation agents, which
// also opens, prices and closes positions). Each phase's count is scaled to an hour.
//
//   node_modules/.bin/bun bench/replication-cost.ts [SECONDS_PER_PHASE] [REPLICA_SYNC_INTERVAL_SECONDS]

const seconds = Number(process.argv[2] ?? 60);
const syncInterval = process.argv[3] ?? "1";
const dir = mkdtempSync(join(tmpdir(), "replication-cost-"));
const s3 = await FakeS3.start();
const child = await startChildService(
  {
    ...offlineEnv,
    LOG_LEVEL: "warn",
    DEMO_MARKET: "true",
    DATABASE_PATH: join(dir, "trading.db"),
    REPLICA_URL: `s3://${s3.bucket}/trading`,
    REPLICA_S3_ENDPOINT: s3.endpoint,
    REPLICA_SYNC_INTERVAL_SECONDS: syncInterval,
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
  },
  { cwd: dir },
);
try {
  const call = async (method: string, path: string, body: unknown, auth: Record<string, string>) => {
    const res = await fetch(`${child.url}/api/v1${path}`, {
      method,
      headers: { "content-type": "application/json", ...auth },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  const token = (await call("POST", "/auth/login", { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, {}))
    .accessToken as string;
  const bearer = { authorization: `Bearer ${token}` };
  const apiKey = (await call("POST", "/api-keys", { name: "cost", scopes: ["signals"] }, bearer)).key as string;
  for (let i = 0; i < 5; i++) {
    const a = await call("POST", "/agents", { name: `cost ${i}` }, bearer);
    await call("PUT", `/agents/${a.id}`, { automatedTradingSimulation: true }, bearer);
  }
  // Let the start's snapshot and first sends settle before counting.
  await Bun.sleep(5_000);

  const phase = async (name: string, work: (i: number) => Promise<void>) => {
    const start = await s3.requests();
    const t0 = performance.now();
    for (let i = 0; performance.now() - t0 < seconds * 1000; i++) {
      await work(i);
      await Bun.sleep(1_000);
    }
    const n = (await s3.requests()) - start;
    const perHour = Math.round((n * 3600) / ((performance.now() - t0) / 1000));
    console.log(`${name}: ${n} requests in ${seconds} s, about ${perHour} per hour (sync interval ${syncInterval} s)`);
  };
  await phase("idle", async () => {});
  await phase("trading", async (i) => {
    const t = DEMO_TOKENS[i % DEMO_TOKENS.length]!;
    await call(
      "POST",
      "/trading-signals",
      { tokenAddress: t.address, symbol: t.symbol, signalType: i % 3 === 2 ? "sell" : "buy", signalStrength: 4 },
      { "x-api-key": apiKey },
    );
  });
} finally {
  await child.stop();
  await s3.close();
  rmSync(dir, { recursive: true, force: true });
}
