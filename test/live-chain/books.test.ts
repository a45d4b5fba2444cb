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

// Books that reconcile, on a real chain (docs/decisions.md "Books that reconcile",
// docs/decisions/pnl-is-wallet-gain.md): a live BUY's inputAmount is the SOL that went into the
// swap, the rent of every token account of the wallet a swap funds or closes (any mint: the
// traded one's, a wSOL account left open, an intermediate hop's) is recorded on its own
// (rentDepositSol, rentRefundSol), the entry price is the simulation's for the same fill, DCA
// orders are sized from the swap, a swap's SOL is the wallet's change with its wrapped-SOL
// accounts (wSOL it held before is never proceeds), and a closed position's P/L is what the
// wallet gained, every fee (the account close's too) in it.

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

const historicalPnl = (agentId: string) =>
  lamports(
    ctx.database.sqlite
      .query<{ p: string }, [string]>("SELECT profit_loss_sol AS p FROM historical_swaps WHERE agent_id = ?")
      .get(agentId)!.p,
  );

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

    await close(liveId);
    const rows = await records(liveId);
    const sale = rows.find((r) => r.transactionType === "SELL")!;
    // The account's close gave the whole rent back, recorded on the SELL, and its 5000-lamport
    // fee joined the SELL's fees.
    expect(lamports(sale.rentRefundSol)).toBe(RENT);
    expect(sale.outputAmount).toBe("0.1");
    // Flat round trip: P/L is every fee paid (two swaps and the close), the rent in none, and
    // it is exactly what the wallet gained.
    expect(historicalPnl(liveId)).toBe(-(lamports(buy!.fees) + lamports(sale.fees)));
    expect(historicalPnl(liveId)).toBe(chain.lamportsOf(address) - start);
    expect(fromRecords(start, rows)).toBe(chain.lamportsOf(address));

    const simClosed = await close(simId);
    const simRows = await records(simId);
    expect(simRows.map((r) => [r.rentDepositSol, r.rentRefundSol])).toEqual([
      ["0.00203928", "0"],
      ["0", "0.00203928"],
    ]);
    // 0.000105 per swap and 0.000005 for the close.
    expect(simClosed.profitLossSol).toBe(-0.000215);
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

    await close(liveId);
    const [buy, sale] = await records(liveId);
    // Both accounts' rent came back: the wSOL account's (the sale closed it), the mint's (closed after).
    expect(sale).toMatchObject({ transactionType: "SELL", outputAmount: "0.1", rentRefundSol: "0.00407856" });
    // A flat round trip: a loss of the fees, not +0.5 SOL.
    expect(historicalPnl(liveId)).toBe(-(lamports(buy!.fees) + lamports(sale!.fees)));
  });
});

describe("rent is rent: every account the wallet funds or closes in a swap", () => {
  test("a buy whose route also opens the wallet's account of another mint is refused before signing (the inspection allows the ATAs of the swap's two mints only): nothing recorded, no lamport spent", async () => {
    const pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
    const hop = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
    const liveId = await agent("live", FIXED);
    const start = chain.lamportsOf(address);
    agg.tamper = { alsoOpens: hop };
    await signal(pool);
    agg.tamper = {};
    expect(await records(liveId)).toEqual([]);
    expect(chain.lamportsOf(address)).toBe(start);
    expect(chain.svm.getAccount(getAssociatedTokenAddressSync(hop.mint, wallet.publicKey))).toBeNull();
  });

  test("a buy that leaves its wSOL account open: its rent is rentDepositSol; the sale that unwraps and closes it gets it back as rentRefundSol; P/L is the wallet's gain to the lamport", async () => {
    const pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
    const liveId = await agent("live", FIXED);
    const start = chain.lamportsOf(address);
    agg.tamper = { keepWsolOpen: true };
    await signal(pool);
    agg.tamper = {};
    const wsol = getAssociatedTokenAddressSync(NATIVE_MINT, wallet.publicKey);
    expect(BigInt(chain.svm.getAccount(wsol)!.lamports)).toBe(RENT);
    const [buy] = await records(liveId);
    expect(buy).toMatchObject({ transactionType: "BUY", inputAmount: "0.1", outputAmount: "100" });
    expect(lamports(buy!.rentDepositSol)).toBe(2n * RENT);
    expect(fromRecords(start, [buy!])).toBe(chain.lamportsOf(address));

    await close(liveId);
    // The sale's cleanup closed the wSOL account, then the service closed the emptied account of
    // the traded mint: both rents back on the SELL, the proceeds the swap's SOL only.
    expect(chain.svm.getAccount(wsol)?.lamports ?? 0).toBe(0);
    const rows = await records(liveId);
    const sale = rows.find((r) => r.transactionType === "SELL")!;
    expect(sale.outputAmount).toBe("0.1");
    expect(lamports(sale.rentRefundSol)).toBe(2n * RENT);
    expect(fromRecords(start, rows)).toBe(chain.lamportsOf(address));
    expect(historicalPnl(liveId)).toBe(chain.lamportsOf(address) - start);
  });
});
