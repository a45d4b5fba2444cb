import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startFakeMarket } from "../test/fakes/market.ts";
import { FakeSolanaPubsub } from "../test/fakes/solana-pubsub.ts";
import { FakeSolanaRpc } from "../test/fakes/solana-rpc.ts";
import type { BenchOptions } from "./lib/context.ts";
import { DelayProxy, type ProxiedRequest } from "./lib/delay-proxy.ts";
import { BONK, inProcessEnv, openServices, seedUser } from "./lib/seed.ts";
import { type BenchRow, percentile, row } from "./lib/stats.ts";

// 9. Copy-trading latency (issue 33 item 6): a followed wallet's trade confirmed on the fake node
// → our signal stored, in this process (createServices, the production watcher). The fake Solana
// RPC answers 40 ms after each request (bench/lib/delay-proxy.ts); the pubsub node notifies at
// once, as a node does on confirmation. Streaming: the notification runs the poll (signature
// page + transaction: two round trips, the floor). Polling (no websocket,
// WALLET_WATCH_INTERVAL_SECONDS=1): a copy waits for the next tick. Each mode also reports the RPC
// requests per watch per minute it spent.

const DELAY_MS = 40;
const WALLET = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";

export async function copyLatency(o: BenchOptions): Promise<BenchRow[]> {
  const streaming = await run(o, "streaming", o.quick ? 20 : 100);
  const polling = await run(o, "polling", o.quick ? 5 : 20);
  const floor = 2 * DELAY_MS;
  return [
    row({
      id: "copy.streaming",
      name: `Copy trading, streaming: wallet's confirmation → signal stored, p50 (RPC answering after ${DELAY_MS} ms)`,
      unit: "ms",
      value: streaming.p50,
      baselineName: `2 serial RPC round trips × ${DELAY_MS} ms`,
      baselineValue: floor,
      target: "≤ 1000 ms",
      check: (_q, v) => v <= 1_000,
      details: { p99Ms: streaming.p99, trades: streaming.n, rpcRequestsPerWatchPerMinute: streaming.perMinute },
    }),
    row({
      id: "copy.polling",
      name: "Copy trading, polling every 1 s (no websocket): confirmation → signal stored, p50",
      unit: "ms",
      value: polling.p50,
      baselineName: "streaming p50",
      baselineValue: streaming.p50,
      target: "",
      details: { p99Ms: polling.p99, trades: polling.n, rpcRequestsPerWatchPerMinute: polling.perMinute },
    }),
  ];
}

async function run(
  o: BenchOptions,
  mode: "streaming" | "polling",
  trades: number,
): Promise<{ p50: number; p99: number; n: number; perMinute: number }> {
  const dir = join(o.dir, `copy-${mode}`);
  mkdirSync(dir, { recursive: true });
  const fake = await startFakeMarket();
  const rpc = new FakeSolanaRpc(fake);
  rpc.setSol(WALLET, 1_000);
  const log: ProxiedRequest[] = [];
  const proxy = new DelayProxy("rpc", fake.url, DELAY_MS, log).start();
  const pubsub = mode === "streaming" ? await new FakeSolanaPubsub(rpc).start() : null;
  const env = inProcessEnv(join(dir, "copy.db"), fake.env(), {
    SOLANA_RPC_URL: `${proxy.url}/rpc`,
    SOLANA_WS_URL: pubsub ? pubsub.url : "",
    WALLET_WATCH_INTERVAL_SECONDS: mode === "streaming" ? "15" : "1",
  });
  const { services, database } = openServices(env);
  const signals = database.sqlite.query<{ n: number }, []>(
    "SELECT count(*) AS n FROM trading_signals WHERE source LIKE 'wallet:%'",
  );
  try {
    const user = await seedUser(services, `copy-${mode}@bench.local`, 0);
    services.copyTrading.watches.create(user.userId, {
      address: WALLET,
      label: "bench",
      minSolAmount: 0.01,
      signalStrength: 3,
      copySells: false,
      enabled: true,
      maxSolPerTrade: 0.1,
      maxOpenPositions: 1,
      dailySolBudget: 0.5,
    });
    await Bun.sleep(1_100); // trades land in the seconds after the watch began
    services.copyTrading.watcher.start();
    if (pubsub) while (!pubsub.subscribed().includes(WALLET)) await Bun.sleep(1);
    const started = performance.now();
    const samples: number[] = [];
    for (let i = 0; i < trades; i++) {
      const before = signals.get()!.n;
      const sig = rpc.walletTrade(WALLET, {
        side: "buy",
        mint: BONK,
        lamports: 100_000_000n,
        tokens: 1_000n,
        blockTime: Math.floor(Date.now() / 1000),
      });
      const t0 = performance.now();
      pubsub?.announce(sig);
      const deadline = t0 + 10_000;
      while (signals.get()!.n === before) {
        if (performance.now() > deadline) throw new Error(`${mode}: trade ${i + 1} not copied within 10 s`);
        await Bun.sleep(1);
      }
      samples.push(performance.now() - t0);
      // Polling: the next trade lands at a random point of the interval, as a wallet's would.
      if (mode === "polling") await Bun.sleep(Math.random() * 1_000);
      // Streaming: a copy costs the watcher about two RPC reads, and background reads may use 60
      // requests per 10 s (src/market/rpc-budget.ts); trades closer together than that would time
      // the budget's wait, not the copy.
      else await Bun.sleep(400);
    }
    const minutes = (performance.now() - started) / 60_000;
    return {
      p50: percentile(samples, 50),
      p99: percentile(samples, 99),
      n: samples.length,
      perMinute: Math.round((log.filter((r) => r.startMs >= started).length / minutes) * 10) / 10,
    };
  } finally {
    await services.stop({ timeoutMs: 5_000 });
    database.close();
    await pubsub?.stop();
    await proxy.stop();
    await fake.stop();
  }
}
