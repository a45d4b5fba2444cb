import { afterEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { createLogger } from "../../src/logger.ts";
import { MintInfoSource } from "../../src/market/mint-info.ts";
import { TOKEN_2022_PROGRAM_ID } from "../../src/market/solana-rpc.ts";
import { Big, SOL_MINT } from "../../src/money.ts";
import { maxSwapFeeLamports } from "../../src/trading/live/executor.ts";
import {
  closesTokenAccount,
  priorityFeeLamports,
  TOKEN_ACCOUNT_CLOSE_FEE_SOL,
  transferFeeAtomic,
} from "../../src/trading/rules/fees.ts";
import { simulatedPriorityLamports, simulationFeeModel } from "../../src/trading/rules/simulation-fees.ts";
import { SimulationExecutor } from "../../src/trading/simulation-executor.ts";
import { TokenScreen } from "../../src/trading/token-screen.ts";
import { type FakeMarket, startFakeMarket } from "../fakes/market.ts";
import { json } from "../helpers/context.ts";
import { MINT, MINT2, RENT, startTrading, type TradingContext } from "../helpers/trading.ts";
import { type MarketHarness, marketHarness } from "../market/helpers.ts";

// Simulation is never kinder than live (docs/decisions.md "Simulation fidelity"): a mint's first buy pays
// the token account's rent (its BUY's rentDepositSol, returned to the wallet's SOL as the closing
// SELL's rentRefundSol when the position closes and the account with it; never in fees or P/L,
// while the close's fee is in that SELL's fees and the P/L, as live's close transaction), a
// Token-2022 transfer fee is withheld from the tokens a swap moves, and a simulated swap pays the
// priority fee live would pay at most. Figures: SOL $100, the token at $0.01 (0.0001 SOL), 5 % of
// 10 SOL = 0.5 SOL per buy, network fee 0.000005 SOL.

let t: TradingContext | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const txs = async (agentId: string) =>
  json(await t!.ctx.request("GET", `/api/v1/agent-transactions?agentId=${agentId}`, { token: t!.token }));
const closePosition = async (positionId: string) => {
  const res = await t!.ctx.request("POST", `/api/v1/agent-positions/${positionId}/close`, { token: t!.token });
  expect(res.status).toBe(200);
  return json(res);
};

describe("token account rent", () => {
  test("the first buy of a mint pays the rent on its own record; the close returns it to the wallet, not the P/L; the next position pays again", async () => {
    t = await startTrading();
    const agent = await t.createAgent();
    await t.postSignal();
    await t.settle();
    // 0.5 swapped + 0.000105 fees + 0.00203928 rent.
    expect(t.solBalance(agent.id)).toBe("9.49785572");
    const [pos] = await t.positions(agent.id);
    const [buy] = await txs(agent.id);
    expect(buy).toMatchObject({
      transactionType: "BUY",
      inputAmount: "0.5",
      fees: "0.000105",
      rentDepositSol: "0.00203928",
      rentRefundSol: "0",
    });
    // The rent is not a cost of the position: its P/L at the entry price is the buy's fees.
    expect(pos.profitLoss.native).toBeCloseTo(-0.000105, 12);
    // The entry price is the swap's, rent and fees excluded.
    expect(pos.purchase.priceNative).toBe(0.0001);

    // Closed at the entry price: the sale returns the swap's 0.5 SOL. The position's P/L is
    // Σ SELL(out − fees) − Σ BUY(in + fees) = −(the two swaps' fees and the account close's)
    // = −0.000215: exactly what the wallet lost over the position's life, the rent having come
    // back whole (docs/decisions/pnl-is-wallet-gain.md).
    const closed = await closePosition(pos.id);
    const fees = new Big("0.000105").times(2).plus(TOKEN_ACCOUNT_CLOSE_FEE_SOL);
    expect(closed.profitLossSol).toBe(-Number(fees));
    expect(closed.profitLossSol).toBe(-0.000215);
    const [swap] = await json(
      await t.ctx.request("GET", `/api/v1/agent-historical-swaps?agentId=${agent.id}`, { token: t.token }),
    );
    expect(swap).toMatchObject({ profitLossSol: "-0.000215", salePrice: "0.0001" });
    const sell = (await txs(agent.id)).find((x: { transactionType: string }) => x.transactionType === "SELL");
    expect(sell).toMatchObject({
      inputAmount: "5000",
      outputAmount: "0.5",
      fees: "0.00011", // the swap's 0.000105 and the account close's 0.000005
      rentDepositSol: "0",
      rentRefundSol: RENT,
    });
    // The account is closed and the rent is the wallet's SOL again: the P/L is the wallet's change.
    expect(t.solBalance(agent.id)).toBe(new Big(10).plus(closed.profitLossSol).toFixed());
    expect(t.solBalance(agent.id)).toBe(new Big(10).plus(swap.profitLossSol).toFixed());
    expect(t.solBalance(agent.id)).toBe("9.999785");
    expect(t.tokenBalance(agent.id)).toBe("0");

    // A new position in the same mint opens a new token account: the rent is paid again.
    t.ctx.clock.advance(60_000);
    await t.postSignal();
    await t.settle();
    // 5 % of 9.999785 = 0.49998925 swapped, 0.000105 fees, 0.00203928 rent.
    expect(t.solBalance(agent.id)).toBe(new Big("9.999785").minus("0.49998925").minus("0.00214428").toFixed());
    const second = (await txs(agent.id))[0];
    expect(second).toMatchObject({ transactionType: "BUY", fees: "0.000105", rentDepositSol: "0.00203928" });
  });

  test("a DCA buy into an open position pays no rent (the account exists); every mint has its own account", async () => {
    t = await startTrading();
    const agent = await t.createAgent({
      config: {
        stopLoss: { enabled: false, percentage: 25 },
        dca: { enabled: true, maxOrders: 1, priceDropTriggerPercentage: 10, amountPercentage: 50 },
      },
    });
    await t.postSignal();
    await t.settle();
    t.fake.setToken(MINT, { priceUsd: "0.009" });
    expect(await t.ctx.services.trading.monitor.tick()).toMatchObject({ actions: 1, failed: 0 });
    const dca = (await txs(agent.id)).find((x: { isDca: boolean }) => x.isDca);
    expect(dca).toMatchObject({ inputAmount: "0.25", fees: "0.000105", rentDepositSol: "0" });
    // 10 − 0.500105 − 0.00203928 (rent) − 0.250105.
    expect(t.solBalance(agent.id)).toBe("9.24775072");

    await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
    await t.settle();
    const wif = (await txs(agent.id)).find((x: { outputMint: string }) => x.outputMint === MINT2);
    expect([wif.fees, wif.rentDepositSol]).toEqual(["0.000105", RENT]);
  });
});

describe("priority fee: the live model", () => {
  test("unset, SIMULATION_PRIORITY_FEE_SOL follows LIVE_PRIORITY_FEE_MAX: the live cap, 0.001 SOL by default", async () => {
    t = await startTrading({ env: { SIMULATION_PRIORITY_FEE_SOL: "" } });
    expect(t.ctx.config.SIMULATION_PRIORITY_FEE_SOL).toBeUndefined();
    const agent = await t.createAgent();
    await t.postSignal();
    await t.settle();
    const [buy] = await txs(agent.id);
    // 0.000005 + 0.001; the rent on its own.
    expect([buy.fees, buy.rentDepositSol]).toEqual(["0.001005", RENT]);
  });

  test("LIVE_PRIORITY_FEE_MAX is what a simulated swap pays", async () => {
    t = await startTrading({ env: { SIMULATION_PRIORITY_FEE_SOL: "", LIVE_PRIORITY_FEE_MAX: "20000" } });
    const agent = await t.createAgent();
    await t.postSignal();
    await t.settle();
    const [buy] = await txs(agent.id);
    expect(buy.fees).toBe("0.000025");
  });

  test("with Jito on, the simulated swap pays the tip a live bundle carries too", async () => {
    t = await startTrading({
      env: {
        SIMULATION_PRIORITY_FEE_SOL: "",
        LIVE_PRIORITY_FEE_MAX: "20000",
        JITO_BLOCK_ENGINE_URL: "http://127.0.0.1:9",
        JITO_TIP_LAMPORTS: "30000",
      },
    });
    const agent = await t.createAgent();
    await t.postSignal();
    await t.settle();
    const [buy] = await txs(agent.id);
    expect(buy.fees).toBe("0.000055"); // 5000 + 20 000 + 30 000 lamports
  });

  test("a small buy pays what live would: the lower of LIVE_PRIORITY_FEE_MAX and LIVE_PRIORITY_FEE_MAX_BPS of its SOL (issue 44 item 1)", async () => {
    t = await startTrading({ env: { SIMULATION_PRIORITY_FEE_SOL: "" } });
    const agent = await t.createAgent({ config: { positionSizing: { type: "fixed", fixedAmountSol: 0.01 } } });
    await t.postSignal();
    await t.settle();
    const [buy] = await txs(agent.id);
    // 50 bps of 0.01 SOL = 50 000 lamports, below the 1 000 000 cap; plus the 5000-lamport network fee.
    expect(buy.inputAmount).toBe("0.01");
    expect(buy.fees).toBe("0.000055");
    // The sale pays 50 bps of its quoted proceeds, which here are below the cap too.
    const [position] = await t.positions(agent.id);
    await closePosition(position.id);
    const sell = (await txs(agent.id)).find((x: any) => x.transactionType === "SELL");
    const proceeds = new Big(sell.outputAmount);
    const expected = new Big(5000).plus(proceeds.times(1e9).times(50).div(10_000).round(0, Big.roundDown)).div(1e9);
    // The close of the token account is charged on the SELL too (TOKEN_ACCOUNT_CLOSE_FEE_SOL).
    expect(new Big(sell.fees).minus(TOKEN_ACCOUNT_CLOSE_FEE_SOL).eq(expected)).toBe(true);
  });

  test("with SWAP_API=v1 live applies no relative cap, so neither does the simulation", () => {
    const quote = { inputMint: SOL_MINT, inAmount: "10000000", outAmount: "1", order: undefined };
    const base = {
      SIMULATION_PRIORITY_FEE_SOL: undefined,
      LIVE_PRIORITY_FEE_MAX: 1_000_000,
      LIVE_PRIORITY_FEE_MAX_BPS: 50,
    };
    const none = { JITO_BLOCK_ENGINE_URL: "", JITO_TIP_LAMPORTS: 0 };
    expect(simulatedPriorityLamports(simulationFeeModel({ ...base, ...none, SWAP_API: "v1" }), quote)).toBe(1_000_000);
    expect(simulatedPriorityLamports(simulationFeeModel({ ...base, ...none, SWAP_API: "build" }), quote)).toBe(50_000);
    // An order whose own transaction names more pays that (live pays what Jupiter's message names).
    const order = { ...quote, order: { prioritizationFeeLamports: 70_000 } as any };
    expect(simulatedPriorityLamports(simulationFeeModel({ ...base, ...none, SWAP_API: "order" }), order)).toBe(70_000);
    expect(simulatedPriorityLamports(simulationFeeModel({ ...base, ...none, SWAP_API: "order" }), quote)).toBe(50_000);
  });

  test("an explicit SIMULATION_PRIORITY_FEE_SOL wins", async () => {
    t = await startTrading({ env: { SIMULATION_PRIORITY_FEE_SOL: "0.0003", LIVE_PRIORITY_FEE_MAX: "20000" } });
    const agent = await t.createAgent();
    await t.postSignal();
    await t.settle();
    const [buy] = await txs(agent.id);
    expect(buy.fees).toBe("0.000305");
  });

  test("one function: the simulation charges exactly the most the live inspection lets a swap pay", () => {
    for (const cap of [0, 20_000, 1_500_000]) {
      const config = {
        SIMULATION_PRIORITY_FEE_SOL: undefined,
        SWAP_API: "build" as const,
        LIVE_PRIORITY_FEE_MAX: cap,
        LIVE_PRIORITY_FEE_MAX_BPS: 50,
        JITO_BLOCK_ENGINE_URL: "",
        JITO_TIP_LAMPORTS: 10_000,
      };
      expect(simulatedPriorityLamports(simulationFeeModel(config))).toBe(priorityFeeLamports(cap));
      expect(maxSwapFeeLamports(cap)).toBe(5_000n + BigInt(priorityFeeLamports(cap)));
      const jito = { ...config, JITO_BLOCK_ENGINE_URL: "https://jito.example" };
      expect(simulatedPriorityLamports(simulationFeeModel(jito))).toBe(cap + 10_000);
    }
    expect(priorityFeeLamports("auto")).toBe(1_000_000);
  });
});

// ---- Token-2022 transfer fee ------------------------------------------------------------------

/** A Token-2022 mint account with a TransferFeeConfig extension, as the chain stores it. */
function token2022MintWithFee(decimals: number, bps: number, maximumFee: bigint): string {
  const data = Buffer.alloc(166 + 4 + 108);
  data.writeUInt32LE(0, 0); // no mint authority
  data.writeBigUInt64LE(1_000_000_000_000n, 36); // supply
  data[44] = decimals;
  data[45] = 1; // initialized
  data.writeUInt32LE(0, 46); // no freeze authority
  data[165] = 1; // account type: mint
  data.writeUInt16LE(1, 166); // extension TransferFeeConfig
  data.writeUInt16LE(108, 168);
  const fee = 170;
  for (const at of [fee + 72, fee + 90]) {
    data.writeBigUInt64LE(0n, at); // epoch
    data.writeBigUInt64LE(maximumFee, at + 8);
    data.writeUInt16LE(bps, at + 16);
  }
  return data.toString("base64");
}

describe("Token-2022 transfer fee", () => {
  let fake: FakeMarket;
  let h: MarketHarness;
  afterEach(async () => {
    await h.stop();
    await fake.stop();
  });

  async function executor(bps: number, maximumFee: bigint): Promise<SimulationExecutor> {
    fake = await startFakeMarket();
    fake.setSolPrice(100);
    fake.setToken(MINT, { symbol: "FEE", priceUsd: "0.01", decimals: 6 });
    h = marketHarness(fake);
    const account = {
      owner: TOKEN_2022_PROGRAM_ID,
      lamports: 1_461_600,
      data: [token2022MintWithFee(6, bps, maximumFee), "base64"],
    };
    // The mint account over the RPC, read and parsed by the same reader screening uses.
    const rpc = { call: async <T>() => ({ value: account }) as T };
    const clock = new ManualClock();
    const screen = new TokenScreen({
      mintInfo: new MintInfoSource({ rpc, clock }),
      quotes: h.market.quotes,
      logger: createLogger({ level: "silent", write: () => {} }),
      clock,
    });
    return new SimulationExecutor(
      h.market.quotes,
      { priorityFeeLamports: 100_000, orderPriorityFee: false, tipLamports: 0 },
      screen,
    );
  }

  const swap = (ex: SimulationExecutor, side: "BUY" | "SELL", amountAtomic: bigint) =>
    ex.swap({
      agentId: "a",
      walletAddress: "w",
      side,
      tokenMint: MINT,
      tokenDecimals: 6,
      amountAtomic,
      slippageBps: 100,
      maxBps: 1000,
    });

  test("a buy receives the quoted tokens minus the fee (ceil of bps, capped)", async () => {
    const ex = await executor(250, 1_000_000_000n);
    const fill = await swap(ex, "BUY", 500_000_000n); // 0.5 SOL → 5000 tokens quoted
    const quoted = 5_000_000_000n;
    expect(transferFeeAtomic(quoted, { basisPoints: 250, maximumFee: 1_000_000_000n })).toBe(125_000_000n);
    expect(fill.inputAtomic).toBe(500_000_000n);
    expect(fill.outputAtomic).toBe(quoted - 125_000_000n); // 4875 tokens arrive
  });

  test("the fee's maximum caps it", async () => {
    const ex = await executor(250, 7_000_000n);
    const fill = await swap(ex, "BUY", 500_000_000n);
    expect(fill.outputAtomic).toBe(5_000_000_000n - 7_000_000n);
  });

  test("a sale debits every token sent but only what reaches the pool is quoted and paid for", async () => {
    const ex = await executor(250, 1_000_000_000n);
    const fill = await swap(ex, "SELL", 4_000_000_000n); // 4000 tokens sent, 100 withheld
    const sent = fake.requestsTo("jupiter.build").at(-1)!;
    expect(sent.query.get("inputMint")).toBe(MINT);
    expect(sent.query.get("amount")).toBe("3900000000");
    expect(fill.inputAtomic).toBe(4_000_000_000n);
    // 3900 tokens × 0.0001 SOL.
    expect(fill.outputAtomic).toBe(390_000_000n);
    expect(sent.query.get("outputMint")).toBe(SOL_MINT);
  });

  test("a transfer-fee mint's token account is never closed, so no sale returns its rent; without a fee it is", async () => {
    // Live leaves such an account open (withheld fees block CloseAccount): both modes read the
    // same mint account and decide with closesTokenAccount (docs/decisions.md "Token account rent, live").
    const withFee = await executor(250, 1_000_000_000n);
    expect((await swap(withFee, "SELL", 4_000_000_000n)).keepsTokenAccount).toBe(true);
    expect(closesTokenAccount(250)).toBe(false);
    await h.stop();
    await fake.stop();
    const noFee = await executor(0, 0n);
    expect((await swap(noFee, "SELL", 4_000_000_000n)).keepsTokenAccount).toBeUndefined();
    expect(closesTokenAccount(0)).toBe(true);
  });

  test("rounding: the fee is rounded up, as the Token-2022 program does", () => {
    expect(transferFeeAtomic(1n, { basisPoints: 1, maximumFee: 10n })).toBe(1n);
    expect(transferFeeAtomic(10_001n, { basisPoints: 100, maximumFee: 1_000n })).toBe(101n);
    expect(transferFeeAtomic(10_000n, { basisPoints: 0, maximumFee: 1_000n })).toBe(0n);
    expect(transferFeeAtomic(10_000n, null)).toBe(0n);
  });
});
