import { afterEach, expect, test } from "bun:test";
import { Keypair, VersionedTransaction } from "@solana/web3.js";
import { DelayProxy, type ProxiedRequest, serialRounds } from "../../bench/lib/delay-proxy.ts";
import type { Pool } from "../fakes/chain-aggregator.ts";
import { type LiveService, startLiveService } from "./live-service.ts";

// The build path's round trips (docs/decisions.md "Live latency"), on litesvm: the aggregator and
// the RPC each behind the bench's loopback proxy answering 40 ms after arrival, the rounds counted
// from the proxies' log (requests in flight together count once, bench/lib/delay-proxy.ts), from a
// signal's POST to sendTransaction. Independent reads share a round; a failed one still refuses
// the swap before anything is signed.

const DELAY_MS = 40;
const wallet = Keypair.generate();
let service: LiveService;
let proxies: DelayProxy[] = [];
let log: ProxiedRequest[] = [];

async function start(env: Record<string, string> = {}) {
  log = [];
  const made = new Map<string, DelayProxy>();
  service = await startLiveService(wallet, {
    env,
    via: (upstream, url) => {
      let p = made.get(upstream);
      if (!p) made.set(upstream, (p = new DelayProxy(upstream, url, DELAY_MS, log).start()));
      return p.url;
    },
  });
  proxies = [...made.values()];
  service.agg.v1Retired = true;
  await service.agent("live");
}
afterEach(async () => {
  await service.stop();
  for (const p of proxies) await p.stop();
});

const newPool = (): Pool => service.agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
const name = (r: ProxiedRequest) => `${r.upstream} ${r.rpcMethod ?? `${r.method} ${r.path}`}`;

/** The rounds of one signal, POST to sendTransaction: each round's requests by name, sorted. */
async function roundsOfSignal(pool: Pool): Promise<string[][]> {
  const from = log.length;
  await service.signal(pool.mint);
  const path = log.slice(from);
  const send = path.findIndex((r) => r.rpcMethod === "sendTransaction");
  expect(send).toBeGreaterThan(0);
  return serialRounds(path.slice(0, send)).map((round) => round.map(name).sort());
}

const BUILD_ROUNDS = [
  ["rpc getAccountInfo"], // the mint (decimals, screening)
  ["aggregator GET /price/v3", "aggregator GET /swap/v2/build"],
  [
    "aggregator GET /swap/v2/build", // screening's quote back to SOL
    "rpc getLatestBlockhash",
    "rpc getMultipleAccounts", // the route's lookup tables
    "rpc getRecentPrioritizationFees",
  ],
  ["rpc getMultipleAccounts"], // the inspection's pre-state
  ["rpc simulateTransaction"],
];

test("SWAP_API=build: a signal's buy makes 5 serial rounds before sendTransaction, and the inspection simulated the very message that was signed", async () => {
  await start();
  await roundsOfSignal(newPool()); // warms the SOL price and the wallet's state
  expect(await roundsOfSignal(newPool())).toEqual(BUILD_ROUNDS);
  // Our blockhash was in the message before the inspection: the simulated bytes are the signed ones.
  const calls = service.chain.calls;
  const simulated = calls.filter((c) => c.method === "simulateTransaction").at(-1)!;
  const sent = calls.filter((c) => c.method === "sendTransaction").at(-1)!;
  const message = (b64: unknown) =>
    Buffer.from(VersionedTransaction.deserialize(Buffer.from(String(b64), "base64")).message.serialize());
  expect(message(simulated.params[0]).equals(message(sent.params[0]))).toBe(true);
  // The journal keeps the blockhash read in round 3 with its height and slot.
  const row = service.ctx.database.sqlite
    .query<{ blockhash: string; last_valid_block_height: number; signed_at_slot: number }, []>(
      "SELECT blockhash, last_valid_block_height, signed_at_slot FROM live_trades ORDER BY created_at DESC LIMIT 1",
    )
    .get()!;
  const tx = VersionedTransaction.deserialize(Buffer.from(String(sent.params[0]), "base64"));
  expect(row.blockhash).toBe(tx.message.recentBlockhash);
  expect(row.last_valid_block_height).toBe(service.chain.latestBlockhash().lastValidBlockHeight);
  expect(row.signed_at_slot).toBe(service.chain.slot);
});

test("LIVE_SIMULATE_BEFORE_SEND=true keeps the signed simulation in build mode: one round more, after the inspection's", async () => {
  await start({ LIVE_SIMULATE_BEFORE_SEND: "true" });
  await roundsOfSignal(newPool());
  expect(await roundsOfSignal(newPool())).toEqual([...BUILD_ROUNDS, ["rpc simulateTransaction"]]);
});

test("getRecentPrioritizationFees failing while its siblings answer: refused before signing, nothing simulated or sent, no rejection left unobserved", async () => {
  const unobserved: unknown[] = [];
  const onUnhandled = (reason: unknown) => unobserved.push(reason);
  process.on("unhandledRejection", onUnhandled);
  try {
    await start();
    const { chain, ctx } = service;
    chain.failNext("getRecentPrioritizationFees", { code: -32603, message: "Internal error" });
    const from = log.length;
    const simulationsBefore = chain.calls.filter((c) => c.method === "simulateTransaction").length;
    await service.signal(newPool().mint);
    const names = log.slice(from).map(name);
    // The fee read failed in the same round as the screening quote, the lookup tables and our
    // blockhash, all of which were asked and answered; then nothing more.
    expect(names).toContain("rpc getRecentPrioritizationFees");
    expect(names.filter((n) => n === "aggregator GET /swap/v2/build")).toHaveLength(2);
    expect(names).toContain("rpc getLatestBlockhash");
    expect(log.slice(from).every((r) => !Number.isNaN(r.endMs))).toBe(true);
    expect(chain.calls.filter((c) => c.method === "simulateTransaction")).toHaveLength(simulationsBefore);
    expect(chain.sends).toEqual([]);
    const count = (table: string) =>
      ctx.database.sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n;
    expect(count("live_trades")).toBe(0);
    expect(count("agent_transactions")).toBe(0);
    expect(count("positions")).toBe(0);
    const failed = ctx.logs.find((l) => l.includes('"trade failed"'));
    expect(failed).toContain("Internal error");
    await new Promise((r) => setImmediate(r)); // a rejection left unobserved would be reported by now
    expect(unobserved).toEqual([]);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
});
