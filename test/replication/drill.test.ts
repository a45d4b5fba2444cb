import type { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair } from "@solana/web3.js";
import bs58 from "bs58";
import { runCli } from "../../src/cli.ts";
import { Big, SOL_MINT } from "../../src/money.ts";
import { type ChainAggregator, startChainAggregator } from "../fakes/chain-aggregator.ts";
import { type LiteSvmRpc, startLiteSvmRpc } from "../fakes/litesvm-rpc.ts";
import { FakeS3 } from "../fakes/s3.ts";
import { type ChildService, readDatabase, startChildService } from "../helpers/child-service.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, offlineEnv } from "../helpers/context.ts";
import { until } from "../helpers/until.ts";
import { LITESTREAM, litestreamsOf } from "./litestream.ts";

// The disaster drill of issue 36 (item 5), once against a local S3-compatible store and once
// against a file:// replica: the service runs as a real child process with REPLICA_URL, against
// litesvm behind its JSON-RPC shim and the chain aggregator. Agents trade in simulation; a live
// buy is sent and lands on the chain, whose confirmation the node withholds; then the machine
// "dies": the service and its Litestream are killed with SIGKILL and the data directory is
// deleted. `trading-agent restore` brings the database back from the replica and the service
// starts on it: every record written more than 2 s before the kill is back, the pending swap is
// settled from the chain exactly once (before the API opens), and the simulation books balance.
// About 20 s each on an idle machine; the bound is twice the minute for a loaded one.

const INITIAL_SOL = "10";
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const TABLES_BY_ID: Array<[string, string]> = [
  ["users", "id"],
  ["agents", "id"],
  ["agent_wallets", "agent_id || wallet_address"],
  ["trading_signals", "id"],
  ["agent_transactions", "id"],
  ["positions", "id"],
  ["live_trades", "signature"],
  ["api_keys", "id"],
];

/** Every row's key per table: what the database held at one moment. */
function keysOf(db: Database): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [table, key] of TABLES_BY_ID)
    out[table] = db
      .query<{ k: string }, []>(`SELECT ${key} AS k FROM ${table} ORDER BY 1`)
      .all()
      .map((r) => String(r.k));
  return out;
}

/** Simulation wallets where balance ≠ initial − Σ BUY(input + fees + rent) + Σ SELL(output − fees + refund). */
function ledgerMismatches(db: Database): string[] {
  const wallets = db
    .query<{ agent_id: string; wallet_address: string; balance: string }, [string]>(
      "SELECT agent_id, wallet_address, balance FROM agent_balances WHERE token_address = ? AND wallet_address LIKE 'sim_%'",
    )
    .all(SOL_MINT);
  const rows = db
    .query<
      {
        agent_id: string;
        wallet_address: string;
        transaction_type: string;
        input_amount: string;
        output_amount: string;
        fees: string | null;
        rent_deposit_sol: string;
        rent_refund_sol: string;
      },
      []
    >(
      "SELECT agent_id, wallet_address, transaction_type, input_amount, output_amount, fees, rent_deposit_sol, rent_refund_sol FROM agent_transactions WHERE status = 'confirmed'",
    )
    .all();
  const out: string[] = [];
  for (const w of wallets) {
    let sol = new Big(INITIAL_SOL);
    for (const t of rows) {
      if (t.agent_id !== w.agent_id || t.wallet_address !== w.wallet_address) continue;
      const fees = new Big(t.fees ?? "0");
      if (t.transaction_type === "BUY") sol = sol.minus(t.input_amount).minus(fees).minus(t.rent_deposit_sol);
      else sol = sol.plus(t.output_amount).minus(fees).plus(t.rent_refund_sol);
    }
    if (!sol.eq(w.balance)) out.push(`${w.agent_id}: balance ${w.balance}, records ${sol.toString()}`);
  }
  return out;
}

type Replica = { url: string; env: Record<string, string> };

async function drill(replica: Replica): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "drill-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const dataDir = join(dir, "data");
  const dbPath = join(dataDir, "trading.db");
  const chain: LiteSvmRpc = await startLiteSvmRpc();
  cleanups.push(() => chain.stop());
  const agg: ChainAggregator = await startChainAggregator(chain);
  cleanups.push(() => agg.stop());
  const pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
  const mint = pool.mint.toBase58();
  const wallet = Keypair.generate();
  const address = wallet.publicKey.toBase58();
  chain.airdrop(wallet.publicKey, 2_000_000_000n);
  const env: Record<string, string> = {
    ...offlineEnv,
    LOG_LEVEL: "info",
    DATABASE_PATH: dbPath,
    SWAP_AGGREGATOR_URL: agg.url,
    SWAP_AGGREGATOR_API_KEY: "test-key",
    SOL_PRICE_FEED_URL: agg.url,
    SOLANA_RPC_URL: chain.url,
    LIVE_TRADING_ENABLED: "true",
    WALLET_1: bs58.encode(wallet.secretKey),
    WALLETS_RATE_LIMIT_PER_MINUTE: "100000",
    SIGNAL_MAX_AGE_SECONDS: "3600",
    SIMULATION_INITIAL_SOL: INITIAL_SOL,
    MONITOR_INTERVAL_SECONDS: "1",
    REPLICA_URL: replica.url,
    ...replica.env,
  };
  let child: ChildService | undefined;
  cleanups.push(async () => {
    await child?.kill();
  });
  const waitFor = <T>(what: string, probe: () => T | Promise<T>) =>
    until(probe, what, 30_000, 25).catch((e: Error) => {
      throw new Error(`${e.message}\n${child?.output() ?? ""}`);
    });
  const api = async (
    method: string,
    path: string,
    expected: number,
    opts: { token?: string; apiKey?: string; body?: unknown } = {},
  ) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.apiKey) headers["x-api-key"] = opts.apiKey;
    const res = await fetch(`${child!.url}/api/v1${path}`, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const text = await res.text();
    if (res.status !== expected) throw new Error(`${method} ${path}: expected ${expected}, got ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  const login = async () =>
    (await api("POST", "/auth/login", 200, { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } }))
      .accessToken as string;

  // ---- the first machine: two simulation agents trade, a live buy is left pending on the chain.
  child = await startChildService(env, { cwd: dir, keepLines: 5_000 });
  let token = await login();
  const apiKey = (await api("POST", "/api-keys", 201, { token, body: { name: "drill", scopes: ["signals"] } }))
    .key as string;
  const sims: string[] = [];
  for (const name of ["sim one", "sim two"]) {
    const a = await api("POST", "/agents", 201, { token, body: { name } });
    await api("PUT", `/agents/${a.id}`, 200, { token, body: { automatedTradingSimulation: true } });
    sims.push(a.id);
  }
  await api("POST", "/trading-signals", 201, {
    apiKey,
    body: { tokenAddress: mint, symbol: "POOL", signalType: "buy", signalStrength: 4 },
  });
  await waitFor("both simulation agents' positions", () =>
    readDatabase(dbPath, (db) => db.query<{ n: number }, []>("SELECT count(*) AS n FROM positions").get()!.n === 2),
  );
  const live = await api("POST", "/agents", 201, { token, body: { name: "live", tradingMode: "live" } });
  await api("PUT", `/agents/${live.id}`, 200, { token, body: { automatedTradingLive: true } });
  await api("POST", "/wallets/assign", 201, {
    token,
    body: { agentId: live.id, walletAddress: address, walletType: "live" },
  });
  await api("POST", `/wallets/${address}/check-deposits`, 200, { token });
  chain.withholdConfirmations = true;
  await api("POST", "/trading-signals", 201, {
    apiKey,
    body: { tokenAddress: mint, symbol: "POOL", signalType: "buy", signalStrength: 4 },
  });
  const journaled = await waitFor("the live swap's journal row", () =>
    readDatabase(dbPath, (db) =>
      db.query<{ signature: string }, []>("SELECT signature FROM live_trades WHERE status = 'sending'").get(),
    ),
  );
  await waitFor("the live swap sent and landed", () => chain.landed.has(journaled.signature));

  // What the database holds now; the kill comes more than 2 s later (the replica's promise).
  const before = readDatabase(dbPath, keysOf);
  const snapshotAt = performance.now();
  await waitFor("2 s after the snapshot", () => performance.now() - snapshotAt > 2_100);
  const litestreams = litestreamsOf(child.pid);
  expect(litestreams).toHaveLength(1);
  // The machine dies: the service and its Litestream at once, then the disk.
  process.kill(litestreams[0]!, "SIGKILL");
  await child.kill();
  child = undefined;
  rmSync(dataDir, { recursive: true, force: true });

  // ---- the new machine: restore, then start.
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(["restore", "--from", replica.url], {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    env: { PATH: process.env.PATH, ...env },
  });
  expect(err).toEqual([]);
  expect(code).toBe(0);
  expect(out.join("\n")).toContain("  agents:               3");
  expect(out.join("\n")).toContain("  live journal entries: 1 (1 pending or unknown");
  const restored = readDatabase(dbPath, keysOf);
  for (const [table, keys] of Object.entries(before))
    expect({ table, missing: keys.filter((k) => !restored[table]!.includes(k)) }).toEqual({ table, missing: [] });

  chain.withholdConfirmations = false;
  const sendsBefore = chain.sends.length;
  child = await startChildService(env, { cwd: dir, keepLines: 5_000 });
  // The API opens after the reconciliation: its first answer already shows the settled buy.
  token = await login();
  const positions = await api("GET", `/agent-positions/${live.id}`, 200, { token });
  expect(positions).toHaveLength(1);
  const buys = readDatabase(dbPath, (db) =>
    db
      .query<{ status: string; transaction_hash: string | null }, [string]>(
        "SELECT status, transaction_hash FROM agent_transactions WHERE agent_id = ? AND transaction_type = 'BUY'",
      )
      .all(live.id),
  );
  expect(buys).toEqual([{ status: "confirmed", transaction_hash: journaled.signature }]);
  const reconciled = child
    .output()
    .split("\n")
    .filter((l) => l.includes("first start after a restore: live swaps reconciled with the chain"));
  expect(reconciled).toHaveLength(1);
  expect(reconciled[0]).toContain('"settled":1');
  expect(existsSync(`${dbPath}.restored`)).toBe(false);
  // Nothing sent again: the chain saw this wallet's one swap.
  expect(chain.sends.length).toBe(sendsBefore);
  expect([...chain.landed.values()].filter((t) => t.keys.static[0] === address)).toHaveLength(1);
  expect(readDatabase(dbPath, ledgerMismatches)).toEqual([]);
  expect(
    readDatabase(dbPath, (db) => db.query<{ n: number }, []>("SELECT count(*) AS n FROM positions").get()!.n),
  ).toBe(3);
  // Replication goes on from the restored database.
  await waitFor("replication on the new machine", async () => {
    const h = (await (await fetch(`${child!.url}/api/v1/health`)).json()) as {
      services: { replication?: { state: string } };
    };
    return h.services.replication?.state === "replicating";
  });
  await child.stop();
  child = undefined;
}

describe.skipIf(!LITESTREAM)("the drill: kill -9, delete the data, restore, start", () => {
  test("against a local S3-compatible store", async () => {
    const s3 = await FakeS3.start();
    cleanups.push(() => s3.close());
    await drill({
      url: `s3://${s3.bucket}/trading`,
      env: {
        REPLICA_S3_ENDPOINT: s3.endpoint,
        AWS_ACCESS_KEY_ID: s3.accessKeyId,
        AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
      },
    });
  }, 120_000);

  test("against a file:// replica", async () => {
    const dir = mkdtempSync(join(tmpdir(), "drill-replica-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    await drill({ url: `file://${dir}/trading`, env: {} });
  }, 120_000);
});
