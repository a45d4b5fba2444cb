import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import type { ChainAggregator, Pool } from "../fakes/chain-aggregator.ts";
import type { LiteSvmRpc } from "../fakes/litesvm-rpc.ts";
import { json, type TestContext } from "../helpers/context.ts";
import { type LiveService, lamports, ledgerLamports, startLiveService, type TradeRecord } from "./live-service.ts";

// The live order path (SWAP_API=order, docs/decisions.md "Live order path") through the whole
// service over HTTP on litesvm: Jupiter's v1 retired, a live agent buys and sells through
// /swap/v2/order + /swap/v2/execute, the requestId journaled before /execute, an unanswered
// /execute posted again with the same bytes (never a new order while the first can land), the
// chain deciding the outcome, hostile orders refused before signing, the router and Jupiter's fee
// on the record, and the ledger equal to the wallet's SOL on chain.

let chain: LiteSvmRpc;
let agg: ChainAggregator;
let ctx: TestContext;
let token: string;
let pool: Pool;
let service: LiveService;
const wallet = Keypair.generate();
const address = wallet.publicKey.toBase58();
const FIXED = { positionSizing: { type: "fixed", fixedAmountSol: 0.1 }, stopLoss: { enabled: false, percentage: 25 } };

beforeEach(async () => {
  service = await startLiveService(wallet, { env: { SWAP_API: "order" } });
  ({ chain, agg, ctx, token } = service);
  agg.v1Retired = true;
  // 0.001 SOL per whole token (6 decimals): 0.1 SOL buys 100 tokens at the fair price.
  pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
});
afterEach(() => service.stop());

const req = (method: string, path: string, body?: unknown) => ctx.request(method, path, { token, body });
const liveAgent = () => service.agent("live", FIXED, "order");
const walletTxs = () => [...chain.landed.values()].filter((t) => t.keys.static[0] === address);
/** /order requests for the wallet (the screen's route-back quote asks without a taker). */
const takerOrders = () => agg.v2.orderRequests.filter((q) => q.has("taker"));
const v1Requests = () => agg.requests.filter((r) => r.path.startsWith("/swap/v1/"));
const evaluation = (signalId: number, agentId: string) =>
  ctx.database.sqlite
    .query<{ outcome: string; reason: string | null }, [number, string]>(
      "SELECT outcome, reason FROM signal_evaluations WHERE signal_id = ? AND agent_id = ?",
    )
    .get(signalId, agentId);
interface JournalRow {
  signature: string;
  status: string;
  request_id: string | null;
  router: string | null;
  order_fee_bps: number | null;
  blockhash: string;
}
const journal = () =>
  ctx.database.sqlite
    .query<JournalRow, []>(
      "SELECT signature, status, request_id, router, order_fee_bps, blockhash FROM live_trades ORDER BY rowid",
    )
    .all();

type Row = TradeRecord & { routes: string[]; status: string };
const records = async (agentId: string): Promise<Row[]> =>
  (await json(await req("GET", `/api/v1/agent-transactions?agentId=${agentId}`))).reverse();

async function close(agentId: string): Promise<number> {
  const [pos] = await json(await req("GET", `/api/v1/agent-positions/${agentId}`));
  const res = await req("POST", `/api/v1/agent-positions/${agentId}/${pos.id}/close`);
  await ctx.services.trading.live!.closer.idle();
  return res.status;
}

describe("buying and selling through /order + /execute", () => {
  test("a live agent buys and sells through the order path; no v1 and no /build request; router and requestId journaled; the records sum to the chain's SOL", async () => {
    const agentId = await liveAgent();
    const start = chain.lamportsOf(address);
    const id = await service.signal(pool.mint);
    expect(evaluation(id, agentId)!.outcome).toBe("traded");
    expect(takerOrders()).toHaveLength(1);
    expect(takerOrders()[0]!.get("taker")).toBe(address);
    expect(agg.v2.executeRequests).toHaveLength(1);
    expect(await close(agentId)).toBe(200);
    expect(takerOrders()).toHaveLength(2);
    expect(agg.v2.executeRequests).toHaveLength(2);
    expect(walletTxs()).toHaveLength(3); // buy, sale, and the emptied token account's close

    expect(v1Requests()).toEqual([]);
    expect(agg.v2.buildRequests).toHaveLength(0);
    expect(agg.swapRequests).toHaveLength(0);
    const rows = journal();
    const executed = agg.v2.executeRequests.map((b) => String(b.requestId));
    expect(rows.map((r) => [r.status, r.request_id, r.router])).toEqual([
      ["confirmed", executed[0]!, "iris"],
      ["confirmed", executed[1]!, "iris"],
    ]);
    expect(executed[0]).not.toBe(executed[1]);
    // The transaction signed is the order's own (its blockhash is Jupiter's, checked on our node).
    expect(rows[0]!.blockhash).toBe(chain.landed.get(rows[0]!.signature)!.tx.message.recentBlockhash);
    const recs = await records(agentId);
    expect(recs.map((r) => [r.transactionType, r.status, r.routes])).toEqual([
      ["BUY", "confirmed", ["iris", "LiteSVM Pool"]],
      ["SELL", "confirmed", ["iris", "LiteSVM Pool"]],
    ]);
    expect(recs[0]).toMatchObject({ inputAmount: "0.1", outputAmount: "100" });
    expect(ledgerLamports(start, recs)).toBe(chain.lamportsOf(address));
  });

  test("an /order answer whose unused fields are null or of another type still trades (lastValidBlockHeight: null, expireAt a number, mode an object)", async () => {
    agg.v2.orderPatch = { lastValidBlockHeight: null, expireAt: 1_700_000_000, mode: { ultra: true }, feeMint: 7 };
    const agentId = await liveAgent();
    const start = chain.lamportsOf(address);
    const id = await service.signal(pool.mint);
    expect(evaluation(id, agentId)).toMatchObject({ outcome: "traded", reason: null });
    expect(await close(agentId)).toBe(200);
    expect(journal().map((r) => r.status)).toEqual(["confirmed", "confirmed"]);
    expect(ledgerLamports(start, await records(agentId))).toBe(chain.lamportsOf(address));
  });

  test("Jupiter's order fee, taken in SOL, is in `fees` beside the network fee; the price excludes it and the books still equal the chain", async () => {
    agg.v2.feeBps = 50;
    // The fee comes off the quote, so the route's minimum at the agent's 300 bps would sit below
    // our floor (an order is then built instead: route-minimum.test.ts); this route's bytes hold it.
    agg.tamper.route = { slippageBps: 250 };
    agg.v2.router = "jupiterz";
    const agentId = await liveAgent();
    const start = chain.lamportsOf(address);
    await service.signal(pool.mint);
    expect(await close(agentId)).toBe(200);
    // 0.5% of the buy's 0.1 SOL, and 0.5% of the sale's gross 0.0995 SOL.
    const buyFee = 500_000n;
    const saleFee = 497_500n;
    // The fee account was funded with 1 SOL (rent) before its first fee.
    expect(chain.lamportsOf(agg.v2.feeAccount) - 1_000_000_000n).toBe(buyFee + saleFee);
    const [buy, sale] = await records(agentId);
    const buyTx = chain.landed.get(journal()[0]!.signature)!;
    const saleTx = chain.landed.get(journal()[1]!.signature)!;
    expect(lamports(buy!.fees)).toBe(buyTx.fee + buyFee);
    expect(buy).toMatchObject({ inputAmount: "0.0995", outputAmount: "99.5", routes: ["jupiterz", "LiteSVM Pool"] });
    expect(lamports(sale!.fees)).toBe(saleTx.fee + saleFee + 5_000n); // and the account close's fee
    expect(sale!.outputAmount).toBe("0.0995");
    expect(journal().map((r) => r.order_fee_bps)).toEqual([50, 50]);
    expect(ledgerLamports(start, await records(agentId))).toBe(chain.lamportsOf(address));
  });
});

describe("journal first, one order, the chain decides", () => {
  test("the requestId is journaled before /execute; an /execute that times out is posted again with the same bytes and requestId, and the swap lands once", async () => {
    const agentId = await liveAgent();
    const seen: JournalRow[][] = [];
    agg.v2.onExecute = () => seen.push(journal());
    // More than the HTTP client's own retries: the executor's loop must post it again.
    agg.v2.executeTimeouts = 3;
    const id = await service.signal(pool.mint);
    expect(evaluation(id, agentId)!.outcome).toBe("traded");
    expect(seen[0]).toEqual([expect.objectContaining({ status: "sending", request_id: "req-1", router: "iris" })]);
    const posts = agg.v2.executeRequests;
    expect(posts.length).toBeGreaterThan(3);
    expect(new Set(posts.map((p) => p.signedTransaction)).size).toBe(1);
    expect(new Set(posts.map((p) => p.requestId))).toEqual(new Set(["req-1"]));
    expect(takerOrders()).toHaveLength(1);
    expect(walletTxs()).toHaveLength(1);
    expect(journal().map((r) => r.status)).toEqual(["confirmed"]);
  });

  test("an /execute whose answer is lost after landing: the chain shows it landed, nothing posted again", async () => {
    const agentId = await liveAgent();
    agg.v2.executeTimeoutsAfterLanding = 3;
    const id = await service.signal(pool.mint);
    expect(evaluation(id, agentId)!.outcome).toBe("traded");
    expect(agg.v2.executeRequests).toHaveLength(3); // the HTTP client's own retries only
    expect(walletTxs()).toHaveLength(1);
    expect(journal().map((r) => r.status)).toEqual(["confirmed"]);
  });

  test("an /execute answering Failed while the chain shows the signature landed: the chain wins", async () => {
    const agentId = await liveAgent();
    agg.v2.executeLies = true;
    const id = await service.signal(pool.mint);
    expect(agg.v2.executeRequests).toHaveLength(1);
    expect(evaluation(id, agentId)!.outcome).toBe("traded");
    expect(journal().map((r) => r.status)).toEqual(["confirmed"]);
    const [buy] = await records(agentId);
    expect(buy).toMatchObject({ status: "confirmed", outputAmount: "100" });
  });

  test("an /execute that never answers: the same bytes posted again, then pending; a new order only after the chain proves the first expired", async () => {
    const agentId = await liveAgent();
    agg.v2.executeTimeouts = 1_000; // Jupiter unreachable: nothing forwarded
    const id = await service.signal(pool.mint);
    expect(evaluation(id, agentId)!.outcome).toBe("pending");
    const posts = agg.v2.executeRequests;
    expect(posts.length).toBeGreaterThan(3); // beyond the HTTP client's own retries
    expect(new Set(posts.map((p) => `${p.requestId} ${p.signedTransaction}`)).size).toBe(1);
    expect(takerOrders()).toHaveLength(1);
    await service.signal(pool.mint);
    expect(takerOrders()).toHaveLength(1);

    chain.expireBlockhash();
    await ctx.services.trading.monitor.tick();
    expect(journal().map((r) => r.status)).toEqual(["expired"]);
    agg.v2.executeTimeouts = 0;
    const next = await service.signal(pool.mint);
    expect(evaluation(next, agentId)!.outcome).toBe("traded");
    expect(takerOrders()).toHaveLength(2);
    expect(journal().map((r) => r.status)).toEqual(["expired", "confirmed"]);
    expect(walletTxs()).toHaveLength(1);
  });

  test("an order whose confirmation comes late is pending, then settled by the reconciler from the chain with its router and Jupiter's fee", async () => {
    agg.v2.feeBps = 50;
    // The fee comes off the quote, so the route's minimum at the agent's 300 bps would sit below
    // our floor (an order is then built instead: route-minimum.test.ts); this route's bytes hold it.
    agg.tamper.route = { slippageBps: 250 };
    agg.v2.router = "okx";
    const agentId = await liveAgent();
    const start = chain.lamportsOf(address);
    chain.withholdConfirmations = true; // executed and landed; our node does not report it yet
    const id = await service.signal(pool.mint);
    expect(evaluation(id, agentId)!.outcome).toBe("pending");
    expect(journal().map((r) => r.status)).toEqual(["pending"]);
    chain.withholdConfirmations = false;
    await ctx.services.trading.monitor.tick();
    expect(journal().map((r) => r.status)).toEqual(["confirmed"]);
    expect(evaluation(id, agentId)!.outcome).toBe("traded");
    const [buy] = await records(agentId);
    const landed = chain.landed.get(journal()[0]!.signature)!;
    expect(buy).toMatchObject({
      status: "confirmed",
      inputAmount: "0.0995",
      outputAmount: "99.5",
      routes: ["okx", "LiteSVM Pool"],
    });
    expect(lamports(buy!.fees)).toBe(landed.fee + 500_000n);
    expect(ledgerLamports(start, await records(agentId))).toBe(chain.lamportsOf(address));
    expect(agg.v2.executeRequests).toHaveLength(1);
  });

  test("an order Jupiter calls expired is not replaced by a new order while its transaction can land: pending until the chain proves expiry", async () => {
    const agentId = await liveAgent();
    agg.v2.ordersExpireAtOnce = true;
    const id = await service.signal(pool.mint);
    expect(agg.v2.executeRequests.length).toBeGreaterThan(0);
    expect(evaluation(id, agentId)!.outcome).toBe("pending");
    expect(journal().map((r) => r.status)).toEqual(["pending"]);
    // A second signal for the token while the first can land: no new order.
    const again = await service.signal(pool.mint);
    expect(evaluation(again, agentId)?.outcome).not.toBe("traded");
    expect(takerOrders()).toHaveLength(1);
    expect(await ctx.services.trading.monitor.tick()).toMatchObject({ actions: 0 });
    expect(journal().map((r) => r.status)).toEqual(["pending"]);

    // Past the blockhash's life on our node: proven expired, nothing ever landed.
    chain.expireBlockhash();
    await ctx.services.trading.monitor.tick();
    expect(journal().map((r) => r.status)).toEqual(["expired"]);
    expect(walletTxs()).toHaveLength(0);
    expect(chain.sends).toHaveLength(0);
  });
});

describe("expiry judged by the blockhash the order was signed with", () => {
  test("our node's latest blockhash is older than the order's: the journal keeps the order's later bound (the larger of ours and the order's), and validity is read at confirmed", async () => {
    const agentId = await liveAgent();
    const orders = chain.latestBlockhash();
    // Our node answers a blockhash 30 blocks older than the one Jupiter builds on.
    chain.behindBlockhash = {
      blockhash: Keypair.generate().publicKey.toBase58(),
      lastValidBlockHeight: orders.lastValidBlockHeight - 30,
    };
    const id = await service.signal(pool.mint);
    expect(evaluation(id, agentId)!.outcome).toBe("traded");
    const row = ctx.database.sqlite
      .query<{ blockhash: string; last_valid_block_height: number }, []>(
        "SELECT blockhash, last_valid_block_height FROM live_trades",
      )
      .get()!;
    expect(row).toEqual({ blockhash: orders.blockhash, last_valid_block_height: orders.lastValidBlockHeight });
    const validity = chain.calls.filter((c) => c.method === "isBlockhashValid");
    expect(validity.length).toBeGreaterThan(0);
    for (const c of validity) expect(c.params[1]).toMatchObject({ commitment: "confirmed" });
  });

  test("an order built on a blockhash our node has not confirmed yet is checked again a slot later, then signed", async () => {
    const agentId = await liveAgent();
    chain.unconfirmedAsks = 2;
    const id = await service.signal(pool.mint);
    expect(evaluation(id, agentId)!.outcome).toBe("traded");
    expect(chain.calls.filter((c) => c.method === "isBlockhashValid").length).toBeGreaterThanOrEqual(3);
    expect(journal().map((r) => r.status)).toEqual(["confirmed"]);
  });

  test("an order whose lastValidBlockHeight is far beyond our node's bound is held to ours plus one blockhash lifetime (it cannot keep an attempt from ever expiring)", async () => {
    const agentId = await liveAgent();
    const ours = chain.latestBlockhash().lastValidBlockHeight;
    agg.v2.orderPatch = { lastValidBlockHeight: String(ours + 1_000_000) };
    const id = await service.signal(pool.mint);
    expect(evaluation(id, agentId)!.outcome).toBe("traded");
    const row = ctx.database.sqlite
      .query<{ h: number }, []>("SELECT last_valid_block_height AS h FROM live_trades")
      .get()!;
    expect(row.h).toBe(ours + 150);
  });
});

describe("refused before signing", () => {
  test("an order whose transaction moves extra SOL out of the wallet is refused before signing: nothing executed", async () => {
    const agentId = await liveAgent();
    agg.mode = "hostile";
    const id = await service.signal(pool.mint);
    const ev = evaluation(id, agentId)!;
    expect(ev.outcome).toBe("failed");
    expect(ev.reason).toContain("Swap refused before signing");
    expect(takerOrders()).toHaveLength(1);
    expect(agg.v2.executeRequests).toHaveLength(0);
    expect(chain.sends).toHaveLength(0);
    expect(journal()).toHaveLength(0);
  });

  test("an order whose priority fee is above LIVE_PRIORITY_FEE_MAX_BPS of the trade is refused before signing", async () => {
    await service.stop();
    // 1 bp of the 0.1 SOL buy: 10 000 lamports; the fake's order pays 20 000 (200 000 units at 0.1 lamport).
    service = await startLiveService(wallet, { env: { SWAP_API: "order", LIVE_PRIORITY_FEE_MAX_BPS: "1" } });
    ({ chain, agg, ctx, token } = service);
    agg.v1Retired = true;
    pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
    const agentId = await liveAgent();
    const id = await service.signal(pool.mint);
    const ev = evaluation(id, agentId)!;
    expect(ev.outcome).toBe("failed");
    expect(ev.reason).toContain("Swap refused before signing");
    expect(agg.v2.executeRequests).toHaveLength(0);
    expect(journal()).toHaveLength(0);
  });

  test("issue 32 finding 1: an order that swaps 1 % less and sends that 1 % to a third address is refused before signing: nothing executed, no position", async () => {
    const agentId = await liveAgent();
    agg.mode = "skim";
    const id = await service.signal(pool.mint);
    const ev = evaluation(id, agentId)!;
    expect(ev.outcome).toBe("failed");
    expect(ev.reason).toStartWith("Swap refused before signing:");
    expect(ev.reason).toContain(agg.thief.toBase58());
    expect(agg.v2.executeRequests).toHaveLength(0);
    expect(chain.sends).toHaveLength(0);
    expect(journal()).toHaveLength(0);
    expect(chain.lamportsOf(agg.thief)).toBe(0n);
    expect(await json(await req("GET", `/api/v1/agent-positions/${agentId}`))).toEqual([]);
  });

  test("an order whose fee transfer is above 1 % of the SOL side is refused before signing (feeBps is the aggregator's own number)", async () => {
    const agentId = await liveAgent();
    agg.v2.feeBps = 200; // 2 %: within the 3 % floor, above what an order's fee may take
    const id = await service.signal(pool.mint);
    const ev = evaluation(id, agentId)!;
    expect(ev.outcome).toBe("failed");
    expect(ev.reason).toContain(`2000000 lamports from the wallet to ${agg.v2.feeAccount.toBase58()}`);
    expect(agg.v2.executeRequests).toHaveLength(0);
    expect(journal()).toHaveLength(0);
  });

  test("an order with a wider slippage than the agent's is refused before signing", async () => {
    const agentId = await liveAgent();
    agg.tamper = { slippageBps: 5_000 };
    const id = await service.signal(pool.mint);
    expect(evaluation(id, agentId)!.reason).toContain("order's slippage of 5000 bps");
    expect(agg.v2.executeRequests).toHaveLength(0);
  });

  test("an order whose blockhash our node does not accept is not signed", async () => {
    const agentId = await liveAgent();
    // The order is built on a blockhash our node has already expired by the time we check it.
    agg.v2.onOrder = () => chain.expireBlockhash();
    const id = await service.signal(pool.mint);
    expect(evaluation(id, agentId)!.reason).toContain("blockhash is not valid on our Solana node");
    expect(agg.v2.executeRequests).toHaveLength(0);
    expect(journal()).toHaveLength(0);
  });
});
