import type { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair } from "@solana/web3.js";
import bs58 from "bs58";
import { SolanaRpcClient } from "../../src/market/solana-rpc.ts";
import { SOL_MINT } from "../../src/money.ts";
import { type ChainAggregator, startChainAggregator } from "../fakes/chain-aggregator.ts";
import { type LiteSvmRpc, startLiteSvmRpc } from "../fakes/litesvm-rpc.ts";
import { type ChildService, readDatabase, startChildService } from "../helpers/child-service.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, offlineEnv } from "../helpers/context.ts";
import { until } from "../helpers/until.ts";

// kill -9 between send and confirmation, then restart (issue 15 "Tests against a real Solana
// runtime"): the service runs as a real child process against litesvm behind its JSON-RPC shim
// and the chain aggregator, both served on 127.0.0.1 by this test process. The buy's transaction
// lands, but the node withholds its confirmation; once the journal row (signature and intent)
// is in the database file and the transaction was sent, the child is killed with SIGKILL. The
// restarted service, on the same file, must complete exactly that buy from the chain: one
// position, one BUY, the chain's token balance, and no second swap asked for or sent.
//
// Every wait polls state (the database file, the shim's counters, the API) within a generous
// bound; nothing asserts a time.

const dir = mkdtempSync(join(tmpdir(), "live-chain-crash-"));
const dbPath = join(dir, "trading.db");
const wallet = Keypair.generate();
const address = wallet.publicKey.toBase58();
let chain: LiteSvmRpc | undefined;
let agg: ChainAggregator | undefined;
let child: ChildService | undefined;

afterAll(async () => {
  await child?.kill();
  await agg?.stop();
  await chain?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const readDb = <T>(fn: (db: Database) => T): T => readDatabase(dbPath, fn);
/** Buy transactions the aggregator built (/swap/v2/build with SOL in; the screening's reverse quote sells). */
const buyBuilds = () => agg!.v2.buildRequests.filter((q) => q.get("inputMint") === SOL_MINT).length;

/** What `probe` finds in the child's state, within a minute; a timeout shows the child's output. */
const waitFor = <T>(what: string, probe: () => T | Promise<T>): Promise<NonNullable<T>> =>
  until(probe, what, 60_000, 25).catch((e: Error) => {
    throw new Error(`${e.message}\n${child?.output() ?? ""}`);
  });

async function call(method: string, path: string, opts: { token?: string; apiKey?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.apiKey) headers["x-api-key"] = opts.apiKey;
  const res = await fetch(`${child!.url}/api/v1${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, text };
}

async function ok(method: string, path: string, expected: number, opts: Parameters<typeof call>[2] = {}) {
  const r = await call(method, path, opts);
  if (r.status !== expected) throw new Error(`${method} ${path}: expected ${expected}, got ${r.status} ${r.text}`);
  return r.body;
}

test("kill -9 between send and confirmation, restart: the position is opened exactly once, nothing sent twice", async () => {
  chain = await startLiteSvmRpc();
  agg = await startChainAggregator(chain);
  const pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
  const mint = pool.mint.toBase58();
  chain.airdrop(wallet.publicKey, 2_000_000_000n);
  const env: Record<string, string> = {
    ...offlineEnv,
    LOG_LEVEL: "info",
    DATABASE_PATH: dbPath,
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    SWAP_AGGREGATOR_URL: agg.url,
    // A key halves the client-side pacing of the aggregator (PRODUCT.md §5); the fake ignores it.
    SWAP_AGGREGATOR_API_KEY: "test-key",
    SOL_PRICE_FEED_URL: agg.url,
    SOLANA_RPC_URL: chain.url,
    LIVE_TRADING_ENABLED: "true",
    WALLET_1: bs58.encode(wallet.secretKey),
    WALLETS_RATE_LIMIT_PER_MINUTE: "100000",
    SIGNAL_MAX_AGE_SECONDS: "3600",
    // No backpressure 503 on a busy machine: this burst must be acknowledged (issue 35's
    // backpressure is tested in test/signals/under-load.test.ts).
    SIGNAL_QUEUE_MAX_LAG_SECONDS: "3600",
    // The reconciler runs first in every monitor tick: after the restart it must come soon.
    MONITOR_INTERVAL_SECONDS: "1",
  };

  // ---- first process: a live agent with the wallet, then a buy signal whose confirmation is held.
  child = await startChildService(env, { cwd: dir });
  const token = (await ok("POST", "/auth/login", 200, { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } }))
    .accessToken as string;
  const apiKey = (await ok("POST", "/api-keys", 201, { token, body: { name: "crash", scopes: ["signals"] } }))
    .key as string;
  const agent = await ok("POST", "/agents", 201, { token, body: { name: "chain", tradingMode: "live" } });
  await ok("PUT", `/agents/${agent.id}`, 200, { token, body: { automatedTradingLive: true } });
  await ok("POST", "/wallets/assign", 201, {
    token,
    body: { agentId: agent.id, walletAddress: address, walletType: "live" },
  });
  await ok("POST", `/wallets/${address}/check-deposits`, 200, { token });

  chain.withholdConfirmations = true;
  const signal = await ok("POST", "/trading-signals", 201, {
    apiKey,
    body: { tokenAddress: mint, symbol: "POOL", signalType: "buy", signalStrength: 4 },
  });

  // The journal row (written before the first send) and the send itself, which landed on chain.
  const journaled = await waitFor("the journal row with its intent", () =>
    readDb((db) =>
      db
        .query<{ signature: string; status: string; intent: string | null }, []>(
          "SELECT signature, status, intent FROM live_trades",
        )
        .get(),
    ),
  );
  await waitFor("the swap to be sent", () => chain!.sends.includes(journaled.signature));
  expect(chain.landed.has(journaled.signature)).toBe(true);
  await child.kill();
  child = undefined;

  // Killed while confirming: the row is still "sending" and says what the swap was for.
  const row = readDb((db) =>
    db
      .query<{ status: string; intent: string | null }, [string]>(
        "SELECT status, intent FROM live_trades WHERE signature = ?",
      )
      .get(journaled.signature),
  )!;
  expect(row.status).toBe("sending");
  expect(JSON.parse(row.intent!)).toMatchObject({ kind: "open", signalId: signal.id });
  expect(readDb((db) => db.query<{ n: number }, []>("SELECT count(*) AS n FROM positions").get()!.n)).toBe(0);
  expect(buyBuilds()).toBe(1);

  // ---- restart on the same database; the chain now reports what landed.
  chain.withholdConfirmations = false;
  child = await startChildService(env, { cwd: dir });
  await waitFor("the journal row to be settled", () =>
    readDb(
      (db) =>
        db
          .query<{ status: string }, [string]>("SELECT status FROM live_trades WHERE signature = ?")
          .get(journaled.signature)?.status === "confirmed",
    ),
  );
  // The signal resumed at start-up is finished too, as traded (by the reconciler's settlement).
  const outcome = await waitFor("the signal's evaluation to be decided", () =>
    readDb((db) => {
      const e = db
        .query<{ outcome: string }, [number, string]>(
          "SELECT outcome FROM signal_evaluations WHERE signal_id = ? AND agent_id = ?",
        )
        .get(signal.id, agent.id);
      return e && e.outcome !== "pending" ? e.outcome : undefined;
    }),
  );
  expect(outcome).toBe("traded");
  // Two more monitor ticks (each prices the open position): whatever the restarted process might
  // repeat, it has had its chance.
  const priced = agg.priceRequests;
  await waitFor("two more monitor ticks", () => agg!.priceRequests >= priced + 2);

  const token2 = (await ok("POST", "/auth/login", 200, { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } }))
    .accessToken as string;
  const positions = await ok("GET", `/agent-positions/${agent.id}`, 200, { token: token2 });
  expect(positions).toHaveLength(1);
  const buys = readDb((db) =>
    db
      .query<{ status: string; transaction_hash: string | null }, [string]>(
        "SELECT status, transaction_hash FROM agent_transactions WHERE agent_id = ? AND transaction_type = 'BUY'",
      )
      .all(agent.id),
  );
  expect(buys).toEqual([{ status: "confirmed", transaction_hash: journaled.signature }]);
  // The position holds what the chain put in the wallet.
  const held = (await new SolanaRpcClient({ url: chain.url, timeoutMs: 5_000 }).getBalances(address)).tokens.get(
    mint,
  )!.amount;
  expect(held).toBeGreaterThan(0n);
  expect(BigInt(Math.round(positions[0].purchase.amount * 1e6))).toBe(held);
  // No second swap: the aggregator built one buy, the chain saw one signature land.
  expect(buyBuilds()).toBe(1);
  expect(new Set(chain.sends).size).toBe(1);
  expect([...chain.landed.values()].filter((t) => t.keys.static[0] === address)).toHaveLength(1);
}, 180_000);
