import { describe, expect, test } from "bun:test";
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createSyncNativeInstruction,
  getAssociatedTokenAddressSync,
  NATIVE_MINT,
} from "@solana/spl-token";
import { Keypair, SystemProgram, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import { SOL_MINT } from "../../src/money.ts";
import type { ChainAggregator, Pool } from "../fakes/chain-aggregator.ts";
import type { LiteSvmRpc } from "../fakes/litesvm-rpc.ts";
import { json, type TestContext } from "../helpers/context.ts";
import { type LiveService, lamports, ledgerLamports, liveServicePerTest } from "./live-service.ts";

// Books that reconcile, on a real chain (docs/decisions.md "Books that reconcile"): a live BUY's
// inputAmount is the SOL that went into the swap, the token account's rent is recorded on its own
// (rentDepositSol on the BUY, rentRefundSol on the SELL once the account is closed), the entry
// price is the simulation's for the same fill, DCA orders are sized from the swap, and a swap's
// SOL is the wallet's change with its wrapped-SOL accounts: wSOL it held before is never proceeds.

let chain: LiteSvmRpc;
let agg: ChainAggregator;
let ctx: TestContext;
let token: string;
const wallet = Keypair.generate();
const address = wallet.publicKey.toBase58();
const RENT = 2_039_280n;
const FIXED = { positionSizing: { type: "fixed", fixedAmountSol: 0.1 }, stopLoss: { enabled: false, percentage: 25 } };

let service: LiveService;
liveServicePerTest(wallet, (s) => {
  service = s;
  ({ chain, agg, ctx, token } = s);
});

const req = (method: string, path: string, body?: unknown) => ctx.request(method, path, { token, body });

const agent = (mode: "live" | "simulation", config: Record<string, unknown>) => service.agent(mode, config);

const signal = (pool: Pool) => service.signal(pool.mint);

async function close(agentId: string): Promise<{ profitLossSol: number }> {
  const [pos] = await json(await req("GET", `/api/v1/agent-positions/${agentId}`));
  const res = await req("POST", `/api/v1/agent-positions/${agentId}/${pos.id}/close`);
  expect(res.status).toBe(200);
  await ctx.services.trading.live!.closer.idle();
  return json(res);
}

const records = (agentId: string) => service.records(agentId);
const fromRecords = ledgerLamports;

describe("live amounts split right", () => {
  test("a BUY's inputAmount is the swap's SOL, the rent is rentDepositSol; entry equals the simulation's; the records sum to the chain's SOL", async () => {
    const pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
    const liveId = await agent("live", FIXED);
    const simId = await agent("simulation", FIXED);
    const start = chain.lamportsOf(address);
    await signal(pool);

    const [buy] = await records(liveId);
    // 0.1 SOL into the swap for 100 tokens; the new token account's rent apart, not in fees.
    expect(buy).toMatchObject({ transactionType: "BUY", inputAmount: "0.1", outputAmount: "100" });
    expect(lamports(buy!.rentDepositSol)).toBe(RENT);
    expect(lamports(buy!.fees)).toBeLessThan(RENT);
    const [livePos] = await json(await req("GET", `/api/v1/agent-positions/${liveId}`));
    const [simPos] = await json(await req("GET", `/api/v1/agent-positions/${simId}`));
    expect(livePos.purchase.priceNative).toBe(0.001);
    expect(livePos.purchase.priceNative).toBe(simPos.purchase.priceNative);

    const closed = await close(liveId);
    const rows = await records(liveId);
    const sale = rows.find((r) => r.transactionType === "SELL")!;
    // The account's close gave the rent back less its 5000-lamport fee, recorded on the SELL.
    expect(lamports(sale.rentRefundSol)).toBe(RENT - 5_000n);
    expect(sale.outputAmount).toBe("0.1");
    // Flat round trip: P/L is the two swaps' fees, the rent in neither.
    expect(lamports(String(closed.profitLossSol))).toBe(-(lamports(buy!.fees) + lamports(sale.fees)));
    expect(fromRecords(start, rows)).toBe(chain.lamportsOf(address));

    const simClosed = await close(simId);
    const simRows = await records(simId);
    expect(simRows.map((r) => [r.rentDepositSol, r.rentRefundSol])).toEqual([
      ["0.00203928", "0"],
      ["0", "0.00203428"],
    ]);
    expect(simClosed.profitLossSol).toBe(-0.00021);
    const simSol = ctx.database.sqlite
      .query<{ balance: string }, [string, string]>(
        "SELECT balance FROM agent_balances WHERE agent_id = ? AND token_address = ?",
      )
      .get(simId, SOL_MINT)!.balance;
    expect(fromRecords(10_000_000_000n, simRows)).toBe(lamports(simSol));
  });

  test("a live DCA order is sized from the opening swap's SOL, never its rent", async () => {
    const pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
    const liveId = await agent("live", {
      ...FIXED,
      dca: { enabled: true, maxOrders: 1, priceDropTriggerPercentage: 10, amountPercentage: 50 },
    });
    await signal(pool);
    pool.opts.lamportsPerToken = 850_000n; // −15 %: order 1 fires
    expect(await ctx.services.trading.monitor.tick()).toMatchObject({ actions: 1, failed: 0 });
    const dca = (await records(liveId)).find((r) => r.isDca)!;
    // 50 % of 0.1 SOL: the rent of the opening buy is not part of the size, and a DCA pays none.
    expect(dca).toMatchObject({ inputAmount: "0.05", rentDepositSol: "0" });
  });
});

describe("SOL as the wallet sees it", () => {
  test("wrapped SOL the wallet held before a sale that unwraps it is not proceeds", async () => {
    const pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
    const liveId = await agent("live", FIXED);
    await signal(pool);
    // The wallet wraps 0.5 SOL of its own into its wSOL account; the sale's route pays into that
    // account and closes it, so the wallet's lamports rise by the proceeds AND the 0.5 SOL.
    const wsol = getAssociatedTokenAddressSync(NATIVE_MINT, wallet.publicKey);
    const msg = new TransactionMessage({
      payerKey: wallet.publicKey,
      recentBlockhash: chain.latestBlockhash().blockhash,
      instructions: [
        createAssociatedTokenAccountIdempotentInstruction(wallet.publicKey, wsol, wallet.publicKey, NATIVE_MINT),
        SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: wsol, lamports: 500_000_000n }),
        createSyncNativeInstruction(wsol),
      ],
    }).compileToV0Message();
    const wrap = new VersionedTransaction(msg);
    wrap.sign([wallet]);
    expect(chain.execute(wrap).err).toBeNull();

    const closed = await close(liveId);
    const [buy, sale] = await records(liveId);
    expect(sale).toMatchObject({ transactionType: "SELL", outputAmount: "0.1", rentRefundSol: "0.00203428" });
    // A flat round trip: a loss of the two swaps' fees, not +0.5 SOL.
    expect(lamports(String(closed.profitLossSol))).toBe(-(lamports(buy!.fees) + lamports(sale!.fees)));
  });
});
