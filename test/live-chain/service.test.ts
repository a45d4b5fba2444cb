import { describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { SolanaRpcClient } from "../../src/market/solana-rpc.ts";
import type { ChainAggregator, Pool } from "../fakes/chain-aggregator.ts";
import type { LiteSvmRpc } from "../fakes/litesvm-rpc.ts";
import { json, type TestContext } from "../helpers/context.ts";
import { type LiveService, liveServicePerTest } from "./live-service.ts";

// The whole service against a real Solana runtime: litesvm behind its JSON-RPC shim as
// SOLANA_RPC_URL, the chain aggregator (real single-signer swap transactions on that chain) as
// SWAP_AGGREGATOR_URL and SOL price feed. The production executor inspects, signs and sends; the
// chain executes; the service records what the transaction's meta says.

let chain: LiteSvmRpc;
let agg: ChainAggregator;
let ctx: TestContext;
let pool: Pool;
let token: string;
const wallet = Keypair.generate();
const address = wallet.publicKey.toBase58();

let service: LiveService;

liveServicePerTest(wallet, (s) => {
  service = s;
  ({ chain, agg, ctx, token } = s);
  pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
});

const liveAgent = (config?: Record<string, unknown>) => service.agent("live", config, "chain");

const signal = (strength = 4) => service.signal(pool.mint, strength);

const rpc = () => new SolanaRpcClient({ url: chain.url, timeoutMs: 5_000 });
/** Transactions the agent's wallet paid for that landed (the pool's set-up is the aggregator's). */
const walletTxs = () => [...chain.landed.values()].filter((t) => t.keys.static[0] === address).length;
const count = (table: string, where: string, ...p: Array<string | number>) =>
  ctx.database.sqlite
    .query<{ n: number }, Array<string | number>>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`)
    .get(...p)!.n;
const evaluation = (signalId: number, agentId: string) =>
  ctx.database.sqlite
    .query<{ outcome: string; reason: string | null }, [number, string]>(
      "SELECT outcome, reason FROM signal_evaluations WHERE signal_id = ? AND agent_id = ?",
    )
    .get(signalId, agentId);

describe("the service on a real chain", () => {
  test("a buy lands on chain once; the position holds what the chain delivered; a manual close sells it", async () => {
    const agentId = await liveAgent();
    await signal();
    expect(walletTxs()).toBe(1);
    const [pos] = await json(await ctx.request("GET", `/api/v1/agent-positions/${agentId}`, { token }));
    expect(pos).toBeDefined();
    // The position holds exactly what the chain put in the wallet (6 decimals).
    const held = (await rpc().getBalances(address)).tokens.get(pool.mint.toBase58())!.amount;
    expect(BigInt(Math.round(pos.purchase.amount * 1e6))).toBe(held);
    const res = await ctx.request("POST", `/api/v1/agent-positions/${agentId}/${pos.id}/close`, { token });
    expect(res.status).toBe(200);
    expect(walletTxs()).toBe(2);
    expect(count("positions", "agent_id = ? AND status = 'closed'", agentId)).toBe(1);
  });

  test("take-profit on chain: the price passes level 1, the monitor sells sellPercentage% through a real swap; ledger and chain agree", async () => {
    const agentId = await liveAgent({
      takeProfit: { enabled: true, percentage: 50, sellPercentage: 40, maxLevels: 3 },
    });
    await signal();
    const mint = pool.mint.toBase58();
    const onChain = async () => (await rpc().getBalances(address)).tokens.get(mint)?.amount ?? 0n;
    const bought = await onChain();
    expect(bought).toBeGreaterThan(0n);
    // The pool now pays +80 %: Price API v3 and the quotes both follow it (level 1 is +50 %, level 2
    // +100 % of the entry, which is the swap's price exactly: the rent is not in it).
    pool.opts.lamportsPerToken = (pool.opts.lamportsPerToken * 9n) / 5n;
    const solBefore = chain.lamportsOf(address);
    expect(await ctx.services.trading.monitor.tick()).toMatchObject({ actions: 1, closed: 0, failed: 0 });
    expect(walletTxs()).toBe(2);
    const [pos] = await json(await ctx.request("GET", `/api/v1/agent-positions/${agentId}`, { token }));
    expect(pos.takeProfit).toMatchObject({ levelsHit: 1 });
    // 40% sold on chain; the position's remaining amount is exactly what the wallet still holds.
    const held = await onChain();
    expect(held).toBe(bought - (bought * 40n) / 100n);
    expect(BigInt(Math.round(pos.takeProfit.remainingAmount * 1e6))).toBe(held);
    // The SELL is recorded with the chain's amounts: the SOL the wallet received (fee added back).
    const sale = ctx.database.sqlite
      .query<{ input_amount: string; output_amount: string; is_take_profit: number }, [string]>(
        "SELECT input_amount, output_amount, is_take_profit FROM agent_transactions WHERE agent_id = ? AND transaction_type = 'SELL'",
      )
      .all(agentId);
    expect(sale).toHaveLength(1);
    expect(sale[0]!.is_take_profit).toBe(1);
    expect(BigInt(Math.round(Number(sale[0]!.input_amount) * 1e6))).toBe(bought - held);
    const landedSale = [...chain.landed.values()].at(-1)!;
    expect(BigInt(Math.round(Number(sale[0]!.output_amount) * 1e9))).toBe(
      chain.lamportsOf(address) - solBefore + landedSale.fee,
    );
    // The ledger's token balance mirrors the chain.
    const ledger = ctx.database.sqlite
      .query<{ balance: string }, [string, string]>(
        "SELECT balance FROM agent_balances WHERE agent_id = ? AND token_address = ?",
      )
      .get(agentId, mint);
    expect(BigInt(Math.round(Number(ledger!.balance) * 1e6))).toBe(held);
    // Flat price on the next tick: nothing more is sold.
    expect(await ctx.services.trading.monitor.tick()).toMatchObject({ actions: 0 });
    expect(walletTxs()).toBe(2);
  });

  test("a brand-new token Price API v3 omits: bought against the market data's price (decimals from the mint account), priced by the monitor from a sell quote, its take-profit fires", async () => {
    pool = agg.addPool({ lamportsPerToken: 2_000_000n, decimals: 9, unpriced: true });
    const mint = pool.mint.toBase58();
    // The buy's floor needs an independent price: market data has one (0.002 SOL at $150).
    service.fake.setToken(mint, { symbol: "NEW", priceUsd: "0.3", decimals: 9 });
    const agentId = await liveAgent({
      takeProfit: { enabled: true, percentage: 50, sellPercentage: 50, maxLevels: 3 },
    });
    await signal();
    expect(walletTxs()).toBe(1);
    // The price source still does not know the mint; the monitor prices it from the quote.
    expect(await ctx.services.trading.monitor.tick()).toMatchObject({ priced: 1, actions: 0 });
    const stored = () =>
      ctx.database.sqlite
        .query<{ last_price_sol: string | null }, [string]>("SELECT last_price_sol FROM positions WHERE agent_id = ?")
        .get(agentId)!.last_price_sol;
    expect(Number(stored())).toBeCloseTo(0.002, 9); // 2,000,000 lamports per whole token
    pool.opts.lamportsPerToken = 3_200_000n; // +60%: past level 1 (+50%)
    expect(await ctx.services.trading.monitor.tick()).toMatchObject({ priced: 1, actions: 1, failed: 0 });
    expect(Number(stored())).toBeCloseTo(0.0032, 9);
    expect(walletTxs()).toBe(2);
    const [pos] = await json(await ctx.request("GET", `/api/v1/agent-positions/${agentId}`, { token }));
    expect(pos.takeProfit).toMatchObject({ levelsHit: 1 });
    const held = (await rpc().getBalances(address)).tokens.get(mint)!.amount;
    expect(BigInt(Math.round(pos.takeProfit.remainingAmount * 1e9))).toBe(held);
  });

  test("DCA buys are screened like the opening buy: a transfer fee raised since entry refuses the order; once lowered again, the order lands on chain", async () => {
    pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6, token2022: true, transferFeeBps: 0 });
    const agentId = await liveAgent({
      stopLoss: { enabled: false },
      dca: { enabled: true, maxOrders: 2, priceDropTriggerPercentage: 20, amountPercentage: 50 },
    });
    await signal();
    expect(walletTxs()).toBe(1);
    agg.setTransferFee(pool, 500); // 5%, above filters.maxTransferFeeBps (100)
    ctx.clock.advance(11 * 60_000); // past the mint-account cache
    pool.opts.lamportsPerToken = 700_000n; // −30%: DCA order 1 is due
    expect(await ctx.services.trading.monitor.tick()).toMatchObject({ actions: 1, failed: 1 });
    expect(walletTxs()).toBe(1);
    expect(ctx.logs.some((l) => l.includes('"trade failed"') && l.includes("maxTransferFeeBps"))).toBe(true);
    const dcaOrders = () =>
      ctx.database.sqlite
        .query<{ n: number }, [string]>(
          "SELECT count(*) AS n FROM agent_transactions WHERE agent_id = ? AND transaction_type = 'BUY'",
        )
        .get(agentId)!.n - 1;
    expect(dcaOrders()).toBe(0);

    agg.setTransferFee(pool, 0);
    ctx.clock.advance(11 * 60_000);
    expect(await ctx.services.trading.monitor.tick()).toMatchObject({ actions: 1, failed: 0 });
    expect(walletTxs()).toBe(2);
    expect(dcaOrders()).toBe(1);
    // The position holds what the wallet holds after both buys.
    const held = (await rpc().getBalances(address)).tokens.get(pool.mint.toBase58())!.amount;
    const remaining = ctx.database.sqlite
      .query<{ remaining_amount: string }, [string]>("SELECT remaining_amount FROM positions WHERE agent_id = ?")
      .get(agentId)!.remaining_amount;
    expect(BigInt(Math.round(Number(remaining) * 1e6))).toBe(held);
  });

  test("a hostile swap (an extra transfer to a third address) is refused before signing: nothing sent", async () => {
    const agentId = await liveAgent();
    agg.mode = "hostile";
    const id = await signal();
    expect(chain.sends.length).toBe(0);
    expect(chain.lamportsOf(agg.thief)).toBe(0n);
    expect(evaluation(id, agentId)?.reason).toStartWith("Swap refused before signing:");
    expect(count("positions", "agent_id = ?", agentId)).toBe(0);
  });

  test("a send that errors but lands is recorded once and never repeated", async () => {
    const agentId = await liveAgent();
    chain.sendModes.push({ kind: "error-but-land" });
    const id = await signal();
    expect(walletTxs()).toBe(1);
    expect(new Set(chain.sends).size).toBe(1);
    expect(evaluation(id, agentId)?.outcome).toBe("traded");
    expect(count("positions", "agent_id = ?", agentId)).toBe(1);
    expect(count("live_trades", "status = 'confirmed'")).toBe(1);
  });

  test("a swap that never lands: pending while in doubt, failed only once the chain proves the blockhash expired", async () => {
    const agentId = await liveAgent();
    for (let i = 0; i < 5; i++) chain.sendModes.push({ kind: "drop" });
    const id = await signal();
    expect(count("agent_transactions", "agent_id = ? AND status = 'pending'", agentId)).toBe(1);
    await ctx.services.trading.monitor.tick();
    expect(count("live_trades", "status = 'pending'")).toBe(1); // not proven yet: still in doubt
    chain.expireBlockhash();
    await ctx.services.trading.monitor.tick();
    expect(count("live_trades", "status = 'expired'")).toBe(1);
    expect(count("agent_transactions", "agent_id = ? AND status = 'failed'", agentId)).toBe(1);
    expect(evaluation(id, agentId)?.outcome).toBe("failed");
    expect(count("positions", "agent_id = ?", agentId)).toBe(0);
    expect(walletTxs()).toBe(0);
  });
});
