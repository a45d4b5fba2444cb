import { describe, expect, test } from "bun:test";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Keypair } from "@solana/web3.js";
import bs58 from "bs58";
import { Big, SOL_MINT, toAtomic } from "../../src/money.ts";
import type { LiveTrading } from "../../src/trading/live/index.ts";
import { TOKEN_ACCOUNT_CLOSE_FEE_SOL } from "../../src/trading/rules/fees.ts";
import type { ChainAggregator, Pool } from "../fakes/chain-aggregator.ts";
import type { LiteSvmRpc } from "../fakes/litesvm-rpc.ts";
import { json, type TestContext } from "../helpers/context.ts";
import { ledgerLamports as fromRecords, type LiveService, lamports, liveServicePerTest } from "./live-service.ts";

// The token account's rent on a real chain (docs/decisions.md "Token account rent, live"): after
// a live sale closes its position and empties the wallet's token account, the service closes the
// account with its own one-instruction transaction and the rent is the wallet's SOL again, on
// chain and in the ledger (the closing SELL's rentRefundSol; the close's fee in its fees and the
// P/L). A partial take-profit keeps it; a Token-2022 mint with a transfer fee
// keeps it (withheld fees block the close), and the simulation returns no rent for such a mint.

let chain: LiteSvmRpc;
let agg: ChainAggregator;
let ctx: TestContext;
let token: string;
const wallet = Keypair.generate();
const address = wallet.publicKey.toBase58();
const RENT_LAMPORTS = 2_039_280n;

let service: LiveService;

liveServicePerTest(wallet, (s) => {
  service = s;
  ({ chain, agg, ctx, token } = s);
});

const req = (method: string, path: string, body?: unknown) => ctx.request(method, path, { token, body });
const live = (): LiveTrading => ctx.services.trading.live!;

const agent = (mode: "live" | "simulation", config?: Record<string, unknown>) => service.agent(mode, config);

const signal = (pool: Pool) => service.signal(pool.mint);

async function closeAll(agentId: string): Promise<void> {
  const [pos] = await json(await req("GET", `/api/v1/agent-positions/${agentId}`));
  expect((await req("POST", `/api/v1/agent-positions/${agentId}/${pos.id}/close`)).status).toBe(200);
  await live().closer.idle();
}

const ataOf = (pool: Pool) => getAssociatedTokenAddressSync(pool.mint, wallet.publicKey, false, pool.programId);
const exists = (pool: Pool) => (chain.svm.getAccount(ataOf(pool))?.lamports ?? 0n) > 0n;
const walletTxs = () => [...chain.landed.values()].filter((t) => t.keys.static[0] === address).length;
const ledger = (agentId: string, mint: string) =>
  ctx.database.sqlite
    .query<{ balance: string }, [string, string, string]>(
      "SELECT balance FROM agent_balances WHERE agent_id = ? AND token_address = ? AND wallet_address = ?",
    )
    .get(agentId, mint, address)?.balance;
const ledgerLamports = (agentId: string) => BigInt(Math.round(Number(ledger(agentId, SOL_MINT)) * 1e9));

describe("the token account's rent, live", () => {
  test("buy then close: the emptied token account is closed by its own transaction; chain SOL = ledger SOL", async () => {
    const pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
    const agentId = await agent("live");
    await signal(pool);
    expect(exists(pool)).toBe(true);
    expect(BigInt(chain.svm.getAccount(ataOf(pool))!.lamports)).toBe(RENT_LAMPORTS);
    await closeAll(agentId);
    // Buy, sale, and the close of the account: one instruction of the token program, nothing else.
    expect(walletTxs()).toBe(3);
    const close = [...chain.landed.values()].at(-1)!;
    expect(close.err).toBeNull();
    expect(close.tx.message.compiledInstructions).toHaveLength(1);
    expect(close.fee).toBe(5_000n);
    // The wallet gets the rent less the close's fee, the fee a simulated close charges.
    const back = close.postBalances[0]! - close.preBalances[0]!;
    expect(back).toBe(RENT_LAMPORTS - lamports(TOKEN_ACCOUNT_CLOSE_FEE_SOL));
    expect(exists(pool)).toBe(false);
    expect(ledgerLamports(agentId)).toBe(chain.lamportsOf(address));
    expect(Number(ledger(agentId, pool.mint.toBase58()))).toBe(0);
    // Not a trade: no transaction row, no journal row for it.
    const n = (sql: string) => ctx.database.sqlite.query<{ n: number }, []>(sql).get()!.n;
    expect(n("SELECT count(*) AS n FROM agent_transactions")).toBe(2);
    expect(n("SELECT count(*) AS n FROM live_trades")).toBe(2);
    expect(ctx.logs.some((l) => l.includes("token account closed; its rent is back in the wallet"))).toBe(true);
  });

  test("opened and closed at the same price: in both modes the rent is on the records (deposit, refund), never in the P/L; the P/L is the wallet's gain to the lamport, the close's fee included", async () => {
    const pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
    const liveId = await agent("live");
    const simId = await agent("simulation");
    const startLive = chain.lamportsOf(address);
    await signal(pool);
    await closeAll(liveId);
    const [simPos] = await json(await req("GET", `/api/v1/agent-positions/${simId}`));
    expect((await req("POST", `/api/v1/agent-positions/${simId}/${simPos.id}/close`)).status).toBe(200);
    const pnl = (agentId: string) =>
      lamports(
        ctx.database.sqlite
          .query<{ profit_loss_sol: string }, [string]>(
            "SELECT profit_loss_sol FROM historical_swaps WHERE agent_id = ?",
          )
          .get(agentId)!.profit_loss_sol,
      );
    for (const id of [liveId, simId]) {
      const txs = await service.records(id);
      const buy = txs.find((t) => t.transactionType === "BUY")!;
      const sale = txs.find((t) => t.transactionType === "SELL")!;
      expect({ id, deposit: lamports(buy.rentDepositSol), refund: lamports(sale.rentRefundSol) }).toEqual({
        id,
        deposit: RENT_LAMPORTS,
        refund: RENT_LAMPORTS,
      });
      // The position lost its fees (two swaps' and the close's, on the SELL): the rent is in no
      // sale, no cost and no P/L.
      expect({ id, pnl: pnl(id) }).toEqual({ id, pnl: -(lamports(buy.fees) + lamports(sale.fees)) });
      // Sold at the buy's price: the sale is what the buy swapped.
      expect({ id, sold: lamports(sale.outputAmount) }).toEqual({ id, sold: lamports(buy.inputAmount) });
    }
    // The wallet's SOL is what the records say, to the lamport, in both modes.
    expect(fromRecords(startLive, await service.records(liveId))).toBe(chain.lamportsOf(address));
    expect(ledgerLamports(liveId)).toBe(chain.lamportsOf(address));
    const simSol = ctx.database.sqlite
      .query<{ balance: string }, [string, string]>(
        "SELECT balance FROM agent_balances WHERE agent_id = ? AND token_address = ?",
      )
      .get(simId, SOL_MINT)!.balance;
    expect(fromRecords(10_000_000_000n, await service.records(simId))).toBe(lamports(simSol));
    // The P/L is what the wallet gained, to the lamport, in both modes; the simulation's equals live's.
    expect(pnl(liveId)).toBe(chain.lamportsOf(address) - startLive);
    expect(pnl(simId)).toBe(lamports(simSol) - 10_000_000_000n);
    expect(pnl(simId)).toBeLessThanOrEqual(pnl(liveId));
  });

  test("a partial take-profit leaves the account open; the take-profit that sells the rest closes it; the P/L is the wallet's gain", async () => {
    const pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
    const agentId = await agent("live", {
      takeProfit: { enabled: true, percentage: 50, sellPercentage: 40, maxLevels: 3 },
    });
    const start = chain.lamportsOf(address);
    await signal(pool);
    pool.opts.lamportsPerToken *= 2n; // level 1 (+50%)
    expect(await ctx.services.trading.monitor.tick()).toMatchObject({ actions: 1, failed: 0 });
    await live().closer.idle();
    expect(walletTxs()).toBe(2);
    expect(exists(pool)).toBe(true);
    expect(ledgerLamports(agentId)).toBe(chain.lamportsOf(address));
    await closeAll(agentId);
    expect(walletTxs()).toBe(4);
    expect(exists(pool)).toBe(false);
    expect(ledgerLamports(agentId)).toBe(chain.lamportsOf(address));
    // A profit over two sales: every fee in it (the close's too), the rent back; to the lamport.
    const [swap] = await json(await req("GET", `/api/v1/agent-historical-swaps?agentId=${agentId}`));
    expect(lamports(swap.profitLossSol)).toBeGreaterThan(0n);
    expect(lamports(swap.profitLossSol)).toBe(chain.lamportsOf(address) - start);
  });

  test("a take-profit that sells everything closes the position and the account", async () => {
    const pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
    const agentId = await agent("live", {
      takeProfit: { enabled: true, percentage: 50, sellPercentage: 100, maxLevels: 1 },
    });
    await signal(pool);
    pool.opts.lamportsPerToken *= 2n;
    expect(await ctx.services.trading.monitor.tick()).toMatchObject({ actions: 1, closed: 1, failed: 0 });
    await live().closer.idle();
    expect(walletTxs()).toBe(3);
    expect(exists(pool)).toBe(false);
    expect(ledgerLamports(agentId)).toBe(chain.lamportsOf(address));
  });

  test("a closing sale settled later by the reconciler closes the account then", async () => {
    const pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
    const agentId = await agent("live");
    await signal(pool);
    const [pos] = await json(await req("GET", `/api/v1/agent-positions/${agentId}`));
    // The sale lands but its confirmation is held: the close answers "pending".
    chain.withholdConfirmations = true;
    expect((await req("POST", `/api/v1/agent-positions/${agentId}/${pos.id}/close`)).status).toBe(502);
    await live().closer.idle();
    expect(walletTxs()).toBe(2);
    expect(exists(pool)).toBe(true);
    chain.withholdConfirmations = false;
    await ctx.services.trading.monitor.tick(); // the reconciler settles the sale
    await live().closer.idle();
    expect(walletTxs()).toBe(3);
    expect(exists(pool)).toBe(false);
    expect(ledgerLamports(agentId)).toBe(chain.lamportsOf(address));
  });

  test("a close that never confirms changes nothing: the position stays closed, the rent stays locked, a warning names the account", async () => {
    const pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
    const agentId = await agent("live");
    await signal(pool);
    // The sale lands; every send of the account's close is dropped.
    chain.sendModes.push({ kind: "land" }, ...Array.from({ length: 10 }, () => ({ kind: "drop" as const })));
    await closeAll(agentId);
    expect(walletTxs()).toBe(2);
    expect(exists(pool)).toBe(true);
    const n = (sql: string) => ctx.database.sqlite.query<{ n: number }, []>(sql).get()!.n;
    expect(n("SELECT count(*) AS n FROM positions WHERE status = 'closed'")).toBe(1);
    expect(ledgerLamports(agentId)).toBe(chain.lamportsOf(address));
    const warning = ctx.logs.find((l) => l.includes("token account close not confirmed"));
    expect(warning).toContain(ataOf(pool).toBase58());
    expect(warning).not.toContain(bs58.encode(wallet.secretKey));
  });

  test("Token-2022 without a transfer fee: closed with the Token-2022 program", async () => {
    const pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6, token2022: true, transferFeeBps: 0 });
    const agentId = await agent("live");
    await signal(pool);
    await closeAll(agentId);
    expect(walletTxs()).toBe(3);
    const close = [...chain.landed.values()].at(-1)!;
    expect(close.keys.static).toContain(pool.programId.toBase58());
    expect(exists(pool)).toBe(false);
    expect(ledgerLamports(agentId)).toBe(chain.lamportsOf(address));
  });

  test("Token-2022 with a transfer fee: live leaves the account open, and the simulation returns no rent either", async () => {
    const pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6, token2022: true, transferFeeBps: 50 });
    const plain = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6, token2022: true, transferFeeBps: 0 });
    const liveId = await agent("live");
    const simId = await agent("simulation");
    await signal(pool);
    await closeAll(liveId);
    expect(walletTxs()).toBe(2); // no close sent
    expect(exists(pool)).toBe(true);
    expect(ledgerLamports(liveId)).toBe(chain.lamportsOf(address));
    expect(ctx.logs.some((l) => l.includes("token account left open") && l.includes("transfer fee"))).toBe(true);

    // The simulation agent's closing sale: the swap's SOL only, and no rent back to the wallet.
    const simSol = () =>
      toAtomic(
        new Big(
          ctx.database.sqlite
            .query<{ balance: string }, [string, string]>(
              "SELECT balance FROM agent_balances WHERE agent_id = ? AND token_address = ?",
            )
            .get(simId, SOL_MINT)!.balance,
        ),
        9,
      );
    const [pos] = await json(await req("GET", `/api/v1/agent-positions/${simId}`));
    const beforeFeeClose = simSol();
    expect((await req("POST", `/api/v1/agent-positions/${simId}/${pos.id}/close`)).status).toBe(200);
    const sell = (agentId: string, mint: string) =>
      ctx.database.sqlite
        .query<{ input_amount: string; output_amount: string; fees: string }, [string, string]>(
          "SELECT input_amount, output_amount, fees FROM agent_transactions WHERE agent_id = ? AND transaction_type = 'SELL' AND input_mint = ?",
        )
        .get(agentId, mint)!;
    const lamports = (sol: string) => toAtomic(new Big(sol), 9);
    const swapped = (p: Pool, tokens: string) => {
      // What the simulation quotes: the tokens sent minus the fee, then the fake's quote of that.
      const sent = BigInt(Math.round(Number(tokens) * 1e6));
      const arriving = sent - agg.transferFee(p, sent);
      return ((arriving - agg.transferFee(p, arriving)) * p.opts.lamportsPerToken) / 1_000_000n;
    };
    const feeSale = sell(simId, pool.mint.toBase58());
    expect(lamports(feeSale.output_amount)).toBe(swapped(pool, feeSale.input_amount));
    expect(simSol()).toBe(beforeFeeClose + lamports(feeSale.output_amount) - lamports(feeSale.fees));

    // The same agent on a mint without a fee: the sale is the swap's SOL only (the rent is in no
    // sale and no P/L, in either mode), and the account's close brings the rent back to the wallet,
    // its fee in the SELL's fees.
    await signal(plain);
    const [pos2] = await json(await req("GET", `/api/v1/agent-positions/${simId}`));
    const beforePlainClose = simSol();
    expect((await req("POST", `/api/v1/agent-positions/${simId}/${pos2.id}/close`)).status).toBe(200);
    const plainSale = sell(simId, plain.mint.toBase58());
    expect(lamports(plainSale.output_amount)).toBe(swapped(plain, plainSale.input_amount));
    expect(simSol()).toBe(
      beforePlainClose + lamports(plainSale.output_amount) - lamports(plainSale.fees) + RENT_LAMPORTS,
    );
  });
});
