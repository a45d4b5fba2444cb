import { describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { UNKNOWN_ATTEMPT_MESSAGE } from "../../src/trading/live/journal.ts";
import type { ChainAggregator, Pool } from "../fakes/chain-aggregator.ts";
import type { LiteSvmRpc } from "../fakes/litesvm-rpc.ts";
import { json, type TestContext } from "../helpers/context.ts";
import { ChainClock, type LiveService, liveServicePerTest } from "./live-service.ts";

// Live trading trusts only the chain and its own numbers, through the whole service: a signal
// posted over HTTP, the production executor against litesvm and the chain aggregator, whose
// tamper knobs play a hostile aggregator inside well-formed answers. Each test inspects the chain.

let chain: LiteSvmRpc;
let agg: ChainAggregator;
let ctx: TestContext;
let pool: Pool;
let token: string;
let service: LiveService;
let clock: ChainClock;
const wallet = Keypair.generate();
const address = wallet.publicKey.toBase58();

liveServicePerTest(
  wallet,
  (s) => {
    service = s;
    ({ chain, agg, ctx, token } = s);
    // 0.001 SOL per whole token (6 decimals): 0.1 SOL buys 100 tokens at the fair price.
    pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
  },
  // The exit ladder's figures are about LIVE_PRIORITY_FEE_MAX and LIVE_EXIT_PRIORITY_FEE_MAX: no
  // cap relative to the trade under them (build-path.test.ts covers LIVE_PRIORITY_FEE_MAX_BPS).
  () => ({ clock: (clock = new ChainClock()), env: { LIVE_PRIORITY_FEE_MAX_BPS: "10000" } }),
);

const req = (method: string, path: string, body?: unknown) => ctx.request(method, path, { token, body });

const liveAgent = (config?: Record<string, unknown>) => service.agent("live", config, "chain");

const signal = () => service.signal(pool.mint);

/** Transactions the agent's wallet paid for that landed. */
const walletTxs = () => [...chain.landed.values()].filter((t) => t.keys.static[0] === address);
const evaluation = (signalId: number, agentId: string) =>
  ctx.database.sqlite
    .query<{ outcome: string; reason: string | null }, [number, string]>(
      "SELECT outcome, reason FROM signal_evaluations WHERE signal_id = ? AND agent_id = ?",
    )
    .get(signalId, agentId);
const journal = () =>
  ctx.database.sqlite
    .query<
      {
        signature: string;
        agent_id: string;
        wallet_address: string;
        status: string;
        blockhash: string;
        last_valid_block_height: number;
        priority_fee_lamports: number;
      },
      []
    >(
      "SELECT signature, agent_id, wallet_address, status, blockhash, last_valid_block_height, priority_fee_lamports FROM live_trades ORDER BY rowid",
    )
    .all();
const positions = (agentId: string) =>
  ctx.database.sqlite
    .query<{ id: string; status: string }, [string]>("SELECT id, status FROM positions WHERE agent_id = ?")
    .all(agentId);

describe("our own floors", () => {
  test("a buy quoted with otherAmountThreshold 1 whose route delivers 10% of outAmount is refused before signing: nothing sent", async () => {
    const agentId = await liveAgent();
    agg.tamper = { threshold: "1", deliverBps: 1_000 };
    const id = await signal();
    expect(walletTxs()).toHaveLength(0);
    expect(chain.sends).toHaveLength(0);
    expect(positions(agentId)).toHaveLength(0);
    const ev = evaluation(id, agentId)!;
    expect(ev.outcome).toBe("failed");
    expect(ev.reason).toContain("Swap refused before signing");
  });

  test("a sale quoted with otherAmountThreshold 1 whose route pays 10% is refused; the position and its tokens stay", async () => {
    const agentId = await liveAgent();
    await signal();
    expect(walletTxs()).toHaveLength(1);
    const [pos] = positions(agentId);
    agg.tamper = { threshold: "1", deliverBps: 1_000 };
    const res = await req("POST", `/api/v1/agent-positions/${agentId}/${pos!.id}/close`);
    expect(res.status).toBe(400);
    expect((await json(res)).error).toContain("Swap refused before signing");
    expect(walletTxs()).toHaveLength(1);
    expect(positions(agentId)[0]!.status).toBe("open");
  });

  test("a quote at a tenth of the Price API's price is refused before anything is built; the reason names both prices", async () => {
    const agentId = await liveAgent();
    agg.tamper = { quoteBps: 1_000 };
    const id = await signal();
    expect(agg.swapRequests).toHaveLength(0);
    expect(chain.sends).toHaveLength(0);
    const ev = evaluation(id, agentId)!;
    expect(ev.outcome).toBe("failed");
    // 0.1 SOL for 10 tokens quoted (0.01 SOL each) against the Price API's 0.001.
    expect(ev.reason).toContain("0.01 SOL per token");
    expect(ev.reason).toContain("0.001 SOL per token from the Price API");
  });

  test("a quote echoing another slippage than the one asked is refused", async () => {
    const agentId = await liveAgent();
    agg.tamper = { slippageBps: 5_000 };
    const id = await signal();
    expect(chain.sends).toHaveLength(0);
    expect(evaluation(id, agentId)!.reason).toContain("slippage differs");
  });
});

describe("our own blockhash", () => {
  test("a stale lastValidBlockHeight from the aggregator does not make a sent swap 'expired': it stays pending and is settled once when it lands", async () => {
    const agentId = await liveAgent();
    agg.tamper = { lastValidBlockHeight: chain.blockHeight - 1 };
    chain.withholdConfirmations = true; // lands, its confirmation held back
    const id = await signal();
    expect(walletTxs()).toHaveLength(1);
    expect(evaluation(id, agentId)!.outcome).toBe("pending");
    const [row] = journal();
    // The journal holds the transaction's own blockhash and our height for it.
    const landed = chain.landed.get(row!.signature)!;
    expect(row!.blockhash).toBe(landed.tx.message.recentBlockhash);
    expect(row!.last_valid_block_height).toBe(chain.latestBlockhash().lastValidBlockHeight);
    expect(row!.status).toBe("pending");

    chain.withholdConfirmations = false;
    expect(await ctx.services.trading.monitor.tick()).toMatchObject({ actions: 0 });
    expect(journal()[0]!.status).toBe("confirmed");
    expect(evaluation(id, agentId)!.outcome).toBe("traded");
    expect(positions(agentId)).toHaveLength(1);
    expect(walletTxs()).toHaveLength(1);
  });

  test("a node without history back to the signing slot cannot prove a swap absent: unknown, shown with what to do, blocking delete and reassignment, until a node that can settles it", async () => {
    const agentId = await liveAgent();
    chain.withholdConfirmations = true;
    const id = await signal();
    expect(walletTxs()).toHaveLength(1);
    // Long downtime: the blockhash is long past, and the node pruned the slot the swap landed in.
    chain.expireBlockhash();
    chain.firstAvailableSlot = chain.slot;
    chain.withholdConfirmations = false;
    expect(await ctx.services.trading.monitor.tick()).toMatchObject({ actions: 0 });
    expect(journal()[0]!.status).toBe("unknown");
    expect(evaluation(id, agentId)).toEqual({ outcome: "pending", reason: UNKNOWN_ATTEMPT_MESSAGE });
    const txs = await json(await req("GET", `/api/v1/agent-transactions?agentId=${agentId}`));
    expect(txs.map((t: { status: string }) => t.status)).toEqual(["unknown"]);

    const del = await req("DELETE", `/api/v1/agents/${agentId}`);
    expect(del.status).toBe(409);
    expect((await json(del)).error).toContain("cannot be deleted");
    const sim = { agentId, walletAddress: `sim_${"1".repeat(32)}`, walletType: "simulation" };
    expect((await req("POST", "/api/v1/wallets/assign", sim)).status).toBe(409);
    // Still unknown on the next tick: nothing decided, nothing sent.
    await ctx.services.trading.monitor.tick();
    expect(journal()[0]!.status).toBe("unknown");
    expect(new Set(chain.sends).size).toBe(1);

    // A node with full history: the swap is found and settled once.
    chain.firstAvailableSlot = 0;
    await ctx.services.trading.monitor.tick();
    expect(journal()[0]!.status).toBe("confirmed");
    expect(evaluation(id, agentId)!.outcome).toBe("traded");
    expect(positions(agentId)).toHaveLength(1);
    expect(walletTxs()).toHaveLength(1);
  });
});

describe("nothing untracked", () => {
  test("DELETE /agents/:id answers 409 while a live swap of the agent is pending; once settled the agent goes and its journal stays", async () => {
    const agentId = await liveAgent();
    chain.withholdConfirmations = true;
    await signal();
    const del = await req("DELETE", `/api/v1/agents/${agentId}`);
    expect(del.status).toBe(409);
    expect(positions(agentId)).toHaveLength(0);
    chain.withholdConfirmations = false;
    await ctx.services.trading.monitor.tick();
    expect(positions(agentId)).toHaveLength(1);
    // Closed first (an open position is the operator's to sell), then deleted.
    const [pos] = positions(agentId);
    expect((await req("POST", `/api/v1/agent-positions/${agentId}/${pos!.id}/close`)).status).toBe(200);
    expect((await req("DELETE", `/api/v1/agents/${agentId}`)).status).toBe(200);
    const rows = journal();
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.agent_id === agentId && r.wallet_address === address)).toBe(true);
  });

  test("a swap that landed but whose recording threw is not 'failed': the reconciler records it once, retrying with backoff", async () => {
    const agentId = await liveAgent();
    // A real storage fault: every BUY insert aborts until the trigger is dropped.
    ctx.database.sqlite.run(
      "CREATE TRIGGER fail_buys BEFORE INSERT ON agent_transactions BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END",
    );
    const id = await signal();
    expect(walletTxs()).toHaveLength(1);
    expect(evaluation(id, agentId)!.outcome).toBe("pending");
    expect(ctx.logs.some((l) => l.includes('"trade failed"'))).toBe(false);
    const retries = () => ctx.logs.filter((l) => l.includes("live reconciliation of a trade failed")).length;
    await ctx.services.trading.monitor.tick(); // tried: fails (next: the following tick)
    await ctx.services.trading.monitor.tick(); // tried: fails (next: two ticks on)
    await ctx.services.trading.monitor.tick(); // waits
    expect(retries()).toBe(2);
    ctx.database.sqlite.run("DROP TRIGGER fail_buys");
    await ctx.services.trading.monitor.tick();
    expect(journal()[0]!.status).toBe("confirmed");
    expect(evaluation(id, agentId)!.outcome).toBe("traded");
    expect(positions(agentId)).toHaveLength(1);
    const buys = ctx.database.sqlite
      .query<{ n: number }, [string]>(
        "SELECT count(*) AS n FROM agent_transactions WHERE agent_id = ? AND transaction_type = 'BUY'",
      )
      .get(agentId)!.n;
    expect(buys).toBe(1);
    expect(walletTxs()).toHaveLength(1);
  });
});

describe("nothing untracked: sales", () => {
  test("a sale that landed but whose recording threw answers pending (502 with the signature), and the reconciler closes the position once", async () => {
    const agentId = await liveAgent();
    await signal();
    const [pos] = positions(agentId);
    ctx.database.sqlite.run(
      "CREATE TRIGGER fail_sells BEFORE INSERT ON agent_transactions WHEN NEW.transaction_type = 'SELL' BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END",
    );
    const res = await req("POST", `/api/v1/agent-positions/${agentId}/${pos!.id}/close`);
    expect(res.status).toBe(502);
    const sale = journal()[1]!;
    expect(chain.landed.has(sale.signature)).toBe(true);
    expect(JSON.stringify(await json(res))).toContain(sale.signature);
    expect(positions(agentId)[0]!.status).toBe("open");
    ctx.database.sqlite.run("DROP TRIGGER fail_sells");
    await ctx.services.trading.monitor.tick();
    expect(journal()[1]!.status).toBe("confirmed");
    expect(positions(agentId)[0]!.status).toBe("closed");
    const sells = ctx.database.sqlite
      .query<{ n: number }, [string]>(
        "SELECT count(*) AS n FROM agent_transactions WHERE agent_id = ? AND transaction_type = 'SELL'",
      )
      .get(agentId)!.n;
    expect(sells).toBe(1);
    expect(walletTxs()).toHaveLength(2);
  });
});

describe("exits that land", () => {
  // Recent fees far above LIVE_PRIORITY_FEE_MAX: the first attempt pays the cap (1 000 000 lamports
  // at the 400 000-unit limit), and each re-send after a proven expiry doubles what the last paid.
  const congested = () => {
    chain.recentFees = [1, 2, 3, 4].map((i) => ({ slot: chain.slot - i, fee: 100_000_000 }));
  };

  test("a stop-loss not landed when its blockhash expires is re-quoted and re-sent with a doubled priority fee; never while the first can land", async () => {
    const agentId = await liveAgent({ stopLoss: { enabled: true, percentage: 20 } });
    await signal();
    expect(walletTxs()).toHaveLength(1);
    pool.opts.lamportsPerToken = 500_000n; // −50%: the stop-loss fires
    congested();
    for (let i = 0; i < 20; i++) chain.sendModes.push({ kind: "drop" }); // congestion: never included
    await ctx.services.trading.monitor.tick();
    const first = journal()[1]!;
    expect(first.status).toBe("pending");
    expect(first.priority_fee_lamports).toBe(1_000_000);
    // Still within its blockhash's life: the monitor leaves the position alone, nothing new sent.
    const sendsBefore = chain.sends.length;
    await ctx.services.trading.monitor.tick();
    expect(new Set(chain.sends.slice(sendsBefore))).toEqual(new Set());
    expect(journal()).toHaveLength(2);

    chain.sendModes.length = 0;
    chain.expireBlockhash();
    await ctx.services.trading.monitor.tick();
    const rows = journal();
    expect(rows[1]!.status).toBe("expired");
    expect(rows[2]).toMatchObject({ status: "confirmed", priority_fee_lamports: 2_000_000 });
    // What the landed re-send paid: one signature and the doubled priority fee, no more.
    expect(chain.landed.get(rows[2]!.signature)!.fee).toBe(5_000n + 2_000_000n);
    expect(positions(agentId)[0]!.status).toBe("closed");
    expect(walletTxs()).toHaveLength(2);
    expect(chain.landed.has(rows[1]!.signature)).toBe(false);
  });

  test("a stale exit whose blockhash expires while it waits is re-quoted in the same call, stepping its fee up to LIVE_EXIT_PRIORITY_FEE_MAX", async () => {
    const agentId = await liveAgent({ filters: { maxPositionAgeDays: 1 } });
    await signal();
    expect(walletTxs()).toHaveLength(1);
    ctx.clock.advance(2 * 86_400_000); // the position is stale
    // Congestion: each attempt is sent 4 times (40 blocks per 2-s wait) and dropped until its
    // blockhash (150 blocks) is past; the third attempt lands.
    congested();
    for (let i = 0; i < 8; i++) chain.sendModes.push({ kind: "drop" });
    clock.onSleep = () => chain.advance(40);
    await ctx.services.trading.monitor.tick();
    clock.onSleep = null;
    const rows = journal().slice(1);
    expect(rows.map((r) => [r.status, r.priority_fee_lamports])).toEqual([
      ["expired", 1_000_000],
      ["expired", 2_000_000],
      ["confirmed", 4_000_000],
    ]);
    // Each re-send came only after the earlier one was proven expired, and none of them landed.
    expect(rows.slice(0, 2).every((r) => !chain.landed.has(r.signature))).toBe(true);
    expect(positions(agentId)[0]!.status).toBe("closed");
    expect(walletTxs()).toHaveLength(2);
  });
});
