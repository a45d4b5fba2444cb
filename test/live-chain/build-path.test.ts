import { afterEach, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import type { ChainAggregator, Pool } from "../fakes/chain-aggregator.ts";
import type { LiteSvmRpc } from "../fakes/litesvm-rpc.ts";
import { json, login, type TestContext } from "../helpers/context.ts";
import { ChainClock, type LiveService, lamports, ledgerLamports, startLiveService } from "./live-service.ts";

// The live path on Swap API v2 `/build` (SWAP_API=build, the default), the whole service over
// HTTP on litesvm, with the aggregator's v1 endpoints retired (404): quotes and routes come from
// /swap/v2/build, the transaction is assembled here with our compute-unit limit, our priority fee
// (getRecentPrioritizationFees) and our blockhash, inspected, signed, journaled and sent; with
// JITO_BLOCK_ENGINE_URL set it carries a tip and goes out as a bundle. After each step the
// ledger's SOL (initial − buys − fees − rent + sales + refunds) equals the wallet's chain balance.

const wallet = Keypair.generate();
const address = wallet.publicKey.toBase58();
const TIP = 10_000n;
const LIMIT = 400_000n; // LIVE_COMPUTE_UNIT_LIMIT's default

let service: LiveService;
let chain: LiteSvmRpc;
let agg: ChainAggregator;
let ctx: TestContext;
let pool: Pool;
let clock: ChainClock;

async function start(opts: { jito?: boolean; env?: Record<string, string> } = {}) {
  clock = new ChainClock();
  service = await startLiveService(wallet, { ...opts, clock });
  ({ chain, agg, ctx } = service);
  agg.v1Retired = opts.env?.SWAP_API !== "v1";
  pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 }); // 0.001 SOL per token
}
afterEach(() => service.stop());

const req = (method: string, path: string, body?: unknown) => ctx.request(method, path, { token: service.token, body });
const v1Requests = () => agg.requests.filter((r) => r.path.startsWith("/swap/v1/"));
const walletTxs = () => [...chain.landed.values()].filter((t) => t.keys.static[0] === address);
const count = (table: string, where = "1=1") =>
  ctx.database.sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).get()!.n;
const journal = () =>
  ctx.database.sqlite
    .query<
      {
        signature: string;
        status: string;
        blockhash: string;
        priority_fee_lamports: number;
        tip_lamports: number;
      },
      []
    >("SELECT signature, status, blockhash, priority_fee_lamports, tip_lamports FROM live_trades ORDER BY created_at")
    .all();

const records = (agentId: string) => service.records(agentId);

async function expectBooksMatch(agentId: string, initial: bigint) {
  expect(ledgerLamports(initial, await records(agentId))).toBe(chain.lamportsOf(address));
}

async function closePosition(agentId: string) {
  const [pos] = await json(await req("GET", `/api/v1/agent-positions/${agentId}`));
  const res = await req("POST", `/api/v1/agent-positions/${agentId}/${pos.id}/close`);
  expect(res.status).toBe(200);
  await ctx.services.trading.live!.closer.idle();
}

describe("live swaps through /swap/v2/build, v1 retired", () => {
  test("a signal buys, a take-profit level sells part, a manual close sells the rest: all built from /build with our fee; the books match the chain after each", async () => {
    await start();
    // Recent fees on the pool's token account: the 75th percentile is 300 µL per unit.
    chain.recentFees = [100, 200, 300, 400].map((fee, i) => ({
      slot: chain.slot - i,
      fee: 0,
      accounts: { [pool.tokenAccount.toBase58()]: fee },
    }));
    const priority = (300n * LIMIT) / 1_000_000n; // 120 000 lamports
    const agentId = await service.agent("live", {
      takeProfit: { enabled: true, percentage: 50, sellPercentage: 40, maxLevels: 3 },
      stopLoss: { enabled: false, percentage: 25 },
    });
    const initial = chain.lamportsOf(address);

    await service.signal(pool.mint);
    expect(walletTxs()).toHaveLength(1);
    const bought = walletTxs()[0]!;
    expect(bought.fee).toBe(5_000n + priority);
    const [buy] = await records(agentId);
    expect(buy).toMatchObject({ transactionType: "BUY", transactionHash: bought.signature });
    expect(lamports(buy!.fees)).toBe(bought.fee);
    // The journal holds our blockhash (the one the transaction carries) and the fee we set.
    expect(journal()[0]).toMatchObject({
      signature: bought.signature,
      status: "confirmed",
      blockhash: bought.tx.message.recentBlockhash,
      priority_fee_lamports: Number(priority),
      tip_lamports: 0,
    });
    // The fee was read over the route's write-locked accounts.
    const feeAsk = chain.calls.find((c) => c.method === "getRecentPrioritizationFees")!;
    expect(feeAsk.params[0] as string[]).toContain(pool.tokenAccount.toBase58());
    await expectBooksMatch(agentId, initial);

    pool.opts.lamportsPerToken = (pool.opts.lamportsPerToken * 9n) / 5n; // +80 %: level 1 (+50 %)
    expect(await ctx.services.trading.monitor.tick()).toMatchObject({ actions: 1, failed: 0 });
    expect(walletTxs()).toHaveLength(2);
    const [pos] = await json(await req("GET", `/api/v1/agent-positions/${agentId}`));
    expect(pos.takeProfit).toMatchObject({ levelsHit: 1 });
    await expectBooksMatch(agentId, initial);

    await closePosition(agentId);
    const rows = await records(agentId);
    expect(rows.map((r) => r.transactionType)).toEqual(["BUY", "SELL", "SELL"]);
    // Each swap's fee; the closing SELL's also carries the emptied token account's close (5000).
    expect(rows.map((r) => lamports(r.fees))).toEqual([5_000n + priority, 5_000n + priority, 10_000n + priority]);
    expect(count("positions", "status = 'closed'")).toBe(1);
    await expectBooksMatch(agentId, initial);

    // Nothing spoke v1; three swaps were built (buy, take-profit, close) besides the buy's
    // screening quote back to SOL.
    expect(v1Requests()).toEqual([]);
    const builds = agg.v2.buildRequests.map((q) => [q.get("inputMint"), q.get("taker")]);
    expect(builds.filter(([input]) => input === pool.mint.toBase58()).length).toBeGreaterThanOrEqual(2);
    expect(builds.every(([, taker]) => taker === address)).toBe(true);
  });

  test("a hostile /build answer (an extra SOL transfer out of the taker) is refused before signing: nothing sent, nothing in the ledger", async () => {
    await start();
    const agentId = await service.agent("live");
    const initial = chain.lamportsOf(address);
    agg.mode = "hostile";
    const signalId = await service.signal(pool.mint);
    expect(agg.v2.buildRequests.length).toBeGreaterThan(0);
    expect(chain.sends).toEqual([]);
    expect(chain.lamportsOf(agg.thief)).toBe(0n);
    expect(count("live_trades")).toBe(0);
    expect(count("agent_transactions")).toBe(0);
    expect(count("positions")).toBe(0);
    const reason = ctx.database.sqlite
      .query<{ reason: string }, [number, string]>(
        "SELECT reason FROM signal_evaluations WHERE signal_id = ? AND agent_id = ?",
      )
      .get(signalId, agentId)!.reason;
    expect(reason).toStartWith("Swap refused before signing:");
    expect(reason).toContain(agg.thief.toBase58());
    expect(chain.lamportsOf(address)).toBe(initial);
    expect(v1Requests()).toEqual([]);
  });

  test("issue 32 finding 1 over HTTP: a /build that swaps 1 % less and sends that 1 % to a third address, the wallet flagged isSigner:false, is refused: nothing signed, no position", async () => {
    await start();
    const agentId = await service.agent("live");
    const initial = chain.lamportsOf(address);
    agg.mode = "skim";
    const signalId = await service.signal(pool.mint);
    expect(agg.v2.buildRequests.length).toBeGreaterThan(0);
    expect(chain.sends).toEqual([]);
    expect(chain.lamportsOf(agg.thief)).toBe(0n);
    expect(count("live_trades")).toBe(0);
    expect(count("agent_transactions")).toBe(0);
    expect(count("positions")).toBe(0);
    const reason = ctx.database.sqlite
      .query<{ reason: string }, [number, string]>(
        "SELECT reason FROM signal_evaluations WHERE signal_id = ? AND agent_id = ?",
      )
      .get(signalId, agentId)!.reason;
    expect(reason).toStartWith("Swap refused before signing:");
    expect(reason).toContain(agg.thief.toBase58());
    expect(chain.lamportsOf(address)).toBe(initial);
  });

  test("a dropped send is rebroadcast with the same signature and lands once", async () => {
    await start();
    const agentId = await service.agent("live");
    const initial = chain.lamportsOf(address);
    chain.sendModes.push({ kind: "drop" });
    await service.signal(pool.mint);
    expect(chain.sends.length).toBe(2);
    expect(new Set(chain.sends).size).toBe(1);
    expect(walletTxs()).toHaveLength(1);
    expect(walletTxs()[0]!.signature).toBe(chain.sends[0]!);
    expect(journal().map((r) => r.status)).toEqual(["confirmed"]);
    expect(count("agent_transactions", "status = 'confirmed'")).toBe(1);
    await expectBooksMatch(agentId, initial);
  });
});

describe("priority fee relative to the trade (LIVE_PRIORITY_FEE_MAX_BPS)", () => {
  test("a congested node would price a 0.05 SOL buy at the absolute cap (2 %): it pays at most 50 bps of the trade; a simulated agent's same buy is charged the same; the estimate asked over the signed message's write-locked accounts", async () => {
    // Simulated fills charge the live model (no operator's fixed SIMULATION_PRIORITY_FEE_SOL).
    await start({ env: { SIMULATION_PRIORITY_FEE_SOL: "" } });
    const SMALL = { positionSizing: { type: "fixed", fixedAmountSol: 0.05 }, stopLoss: { enabled: false } };
    chain.recentFees = [1, 2, 3, 4].map((i) => ({ slot: chain.slot - i, fee: 100_000_000 })); // congested
    const live = await service.agent("live", SMALL);
    const paper = await service.agent("simulation", SMALL);
    await service.signal(pool.mint);
    // 50 bps of 0.05 SOL: 250 000 lamports, not LIVE_PRIORITY_FEE_MAX's 1 000 000.
    expect(journal()[0]).toMatchObject({ status: "confirmed", priority_fee_lamports: 250_000 });
    const bought = walletTxs()[0]!;
    expect(bought.fee).toBe(5_000n + 250_000n);
    const [liveBuy] = await records(live);
    const [paperBuy] = await records(paper);
    expect(lamports(liveBuy!.fees)).toBe(5_000n + 250_000n);
    expect(lamports(paperBuy!.fees)).toBe(5_000n + 250_000n);
    // The accounts the fee was estimated over are the ones the signed message write-locks.
    const asked = chain.calls
      .filter((c) => c.method === "getRecentPrioritizationFees")
      .map((c) => c.params[0] as string[])
      .find((accounts) => accounts.includes(address))!;
    const msg = bought.tx.message;
    const staticWritable = msg.staticAccountKeys.filter((_, i) => msg.isAccountWritable(i)).map((k) => k.toBase58());
    expect(new Set(asked)).toEqual(new Set([...staticWritable, ...bought.keys.writable]));
  });

  test("the lower cap wins: LIVE_PRIORITY_FEE_MAX below 50 bps of the trade caps it", async () => {
    await start({ env: { LIVE_PRIORITY_FEE_MAX: "100000" } });
    chain.recentFees = [1, 2, 3, 4].map((i) => ({ slot: chain.slot - i, fee: 100_000_000 }));
    await service.agent("live", { positionSizing: { type: "fixed", fixedAmountSol: 0.05 } });
    await service.signal(pool.mint);
    expect(journal()[0]).toMatchObject({ status: "confirmed", priority_fee_lamports: 100_000 });
  });
});

describe("exit fees that step up (build)", () => {
  test("on a quiet pool a stale exit pays the estimate (0); each re-send after a proven expiry pays double what the last paid, at least 10 000 lamports more", async () => {
    await start();
    const agentId = await service.agent("live", { filters: { maxPositionAgeDays: 1 } });
    const initial = chain.lamportsOf(address);
    await service.signal(pool.mint);
    ctx.clock.advance(2 * 86_400_000); // the position is stale
    // Each attempt is dropped until its blockhash (150 blocks, 40 per wait) is past; the third lands.
    for (let i = 0; i < 8; i++) chain.sendModes.push({ kind: "drop" });
    clock.onSleep = () => chain.advance(40);
    await ctx.services.trading.monitor.tick();
    clock.onSleep = null;
    const rows = journal().slice(1);
    expect(rows.map((r) => [r.status, r.priority_fee_lamports])).toEqual([
      ["expired", 0],
      ["expired", 10_000],
      ["confirmed", 20_000],
    ]);
    expect(chain.landed.get(rows[2]!.signature)!.fee).toBe(5_000n + 20_000n);
    expect(rows.slice(0, 2).every((r) => !chain.landed.has(r.signature))).toBe(true);
    await ctx.services.trading.live!.closer.idle();
    service.token = (await login(ctx)).token; // two days on: the first session has expired
    await expectBooksMatch(agentId, initial);
  });
});

describe("exit fees at the cap (build)", () => {
  test("a price rounded down to whole micro-lamports costs a lamport under LIVE_EXIT_PRIORITY_FEE_MAX: the ladder still ends there, the exit fails, nothing more is sent", async () => {
    // 1 399 818 units: 5 000 000 lamports is no whole price; the nearest below costs 4 999 999.
    // The ladder's own cap is the subject: no cap relative to the trade under it.
    await start({ env: { LIVE_COMPUTE_UNIT_LIMIT: "1399818", LIVE_PRIORITY_FEE_MAX_BPS: "10000" } });
    const agentId = await service.agent("live", { filters: { maxPositionAgeDays: 1 } });
    await service.signal(pool.mint);
    chain.recentFees = [1, 2, 3, 4].map((i) => ({ slot: chain.slot - i, fee: 100_000_000 })); // congested
    ctx.clock.advance(2 * 86_400_000); // the position is stale
    for (let i = 0; i < 60; i++) chain.sendModes.push({ kind: "drop" }); // never included
    clock.onSleep = () => chain.advance(40);
    await ctx.services.trading.monitor.tick();
    clock.onSleep = null;
    const rows = journal().slice(1);
    expect(rows.map((r) => [r.status, r.priority_fee_lamports])).toEqual([
      ["expired", 1_000_000],
      ["expired", 2_000_000],
      ["expired", 4_000_000],
      ["expired", 4_999_999],
    ]);
    expect(count("positions", `agent_id = '${agentId}' AND status = 'open'`)).toBe(1);
    expect(count("agent_transactions", "transaction_type = 'SELL'")).toBe(0);
    expect(walletTxs()).toHaveLength(1); // the buy only
  });
});

describe("SWAP_API=v1 (legacy)", () => {
  test("keeps Jupiter's own transaction: /swap/v1/quote and /swap/v1/swap, no /build, no bundle; the cap LIVE_PRIORITY_FEE_MAX", async () => {
    await start({ jito: true, env: { SWAP_API: "v1", LIVE_PRIORITY_FEE_MAX: "300000" } });
    const agentId = await service.agent("live");
    const initial = chain.lamportsOf(address);
    await service.signal(pool.mint);
    expect(walletTxs()).toHaveLength(1);
    expect(agg.v2.buildRequests).toEqual([]);
    expect(agg.swapRequests).toHaveLength(1);
    expect(agg.swapRequests[0]!.prioritizationFeeLamports).toEqual({
      priorityLevelWithMaxLamports: { maxLamports: 300_000, priorityLevel: "veryHigh" },
    });
    expect(service.jito!.requests).toEqual([]);
    expect(journal()[0]).toMatchObject({ status: "confirmed", priority_fee_lamports: 300_000, tip_lamports: 0 });
    await expectBooksMatch(agentId, initial);
  });
});

describe("Jito bundles (JITO_BLOCK_ENGINE_URL set)", () => {
  test("the buy goes out as a bundle with one tip, recorded in the transaction's fees; a dropped bundle of the close is resent byte for byte and lands once", async () => {
    await start({ jito: true });
    const engine = service.jito!;
    const agentId = await service.agent("live");
    const initial = chain.lamportsOf(address);
    const tipBalances = () => engine.tipAccounts.reduce((s, a) => s + chain.lamportsOf(a), 0n);
    const tipsBefore = tipBalances();

    await service.signal(pool.mint);
    const bundles = () => engine.requests.filter((r) => r.method === "sendBundle");
    expect(bundles()).toHaveLength(1);
    expect(walletTxs()).toHaveLength(1);
    const bought = walletTxs()[0]!;
    expect((bundles()[0]!.params[0] as string[])[0]).toBe(Buffer.from(bought.raw).toString("base64"));
    expect(tipBalances() - tipsBefore).toBe(TIP);
    const [buy] = await records(agentId);
    expect(lamports(buy!.fees)).toBe(bought.fee + TIP);
    expect(buy!.inputAmount).toBe("0.1"); // the tip is a fee, not part of the swap's SOL
    expect(journal()[0]).toMatchObject({ status: "confirmed", tip_lamports: Number(TIP) });
    await expectBooksMatch(agentId, initial);

    engine.dropNext = true;
    await closePosition(agentId);
    const closeBundles = bundles().slice(1);
    expect(closeBundles.length).toBe(2);
    expect(closeBundles[1]!.params).toEqual(closeBundles[0]!.params);
    expect(journal().map((r) => r.status)).toEqual(["confirmed", "confirmed"]);
    const sold = chain.landed.get(journal()[1]!.signature)!;
    expect(walletTxs()).toHaveLength(3); // buy, sale, and the emptied token account's close
    const sale = (await records(agentId)).find((r) => r.transactionType === "SELL")!;
    expect(sale.transactionHash).toBe(sold.signature);
    expect(lamports(sale.fees)).toBe(sold.fee + TIP + 5_000n); // and the account close's fee
    expect(tipBalances() - tipsBefore).toBe(2n * TIP);
    await expectBooksMatch(agentId, initial);
    expect(v1Requests()).toEqual([]);
  });

  test("a block engine listing a tip account outside Jito's published ones: refused before signing, nothing sent; JITO_TIP_ACCOUNTS naming it lets the swap go", async () => {
    await start({ jito: true });
    const engine = service.jito!;
    engine.listHostile = true;
    const agentId = await service.agent("live");
    const id = await service.signal(pool.mint);
    const ev = ctx.database.sqlite
      .query<{ outcome: string; reason: string | null }, [number]>(
        "SELECT outcome, reason FROM signal_evaluations WHERE signal_id = ?",
      )
      .get(id)!;
    expect(ev.outcome).toBe("failed");
    expect(ev.reason).toContain("Swap refused before signing");
    expect(ev.reason).toContain(engine.hostileTipAccount.toBase58());
    expect(engine.requests.filter((r) => r.method === "sendBundle")).toHaveLength(0);
    expect(walletTxs()).toHaveLength(0);
    expect(journal()).toHaveLength(0);
    expect(count("positions", `agent_id = '${agentId}'`)).toBe(0);
    await service.stop();

    // The operator pins the engine's list, the extra account included.
    const pinned = [...engine.tipAccounts, engine.hostileTipAccount].map((a) => a.toBase58()).join(",");
    await start({ jito: true, env: { JITO_TIP_ACCOUNTS: pinned } });
    service.jito!.listHostile = true;
    await service.agent("live");
    await service.signal(pool.mint);
    expect(journal().map((r) => r.status)).toEqual(["confirmed"]);
  });

  test("a tipped swap confirmed only after the executor gave up is settled by the reconciler with the tip in its fees", async () => {
    await start({ jito: true });
    const agentId = await service.agent("live");
    const initial = chain.lamportsOf(address);
    chain.withholdConfirmations = true;
    await service.signal(pool.mint);
    expect(count("agent_transactions", "status = 'pending'")).toBe(1);
    // While pending, the fees are the estimate: one signature, the priority fee set (0 on a quiet
    // pool), the tip.
    const [pending] = await records(agentId);
    expect(lamports(pending!.fees)).toBe(5_000n + TIP);
    chain.withholdConfirmations = false;
    await ctx.services.trading.monitor.tick();
    expect(journal().map((r) => r.status)).toEqual(["confirmed"]);
    const [buy] = await records(agentId);
    expect(lamports(buy!.fees)).toBe(walletTxs()[0]!.fee + TIP);
    expect(buy!.inputAmount).toBe("0.1");
    await expectBooksMatch(agentId, initial);
  });
});
