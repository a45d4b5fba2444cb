import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Big, SOL_MINT } from "../../src/money.ts";
import { balanceOf } from "../agents/fixtures.ts";
import { json, login, type TestContext } from "../helpers/context.ts";
import { MINT, MINT2, startTrading, type TradingContext } from "../helpers/trading.ts";

// The position monitor end to end (PRODUCT.md §4; issue 5 acceptance): stop-loss after a new
// peak, take-profit levels then the moon bag, DCA up to maxOrders, stale close, exit signals, and
// peak / take-profit progress that survives a restart. The tests drive ticks directly and move
// the ManualClock. Numbers are worked out by hand: SOL at $100, the token bought at $0.01
// (0.0001 SOL), 0.5 SOL swapped for 5000 tokens, 0.000105 SOL of fees per swap; the opening buy
// also pays the token account's rent, 0.00203928 SOL, recorded apart (rentDepositSol): cost
// 0.500105 SOL. The close returns the rent to the wallet's SOL (rentRefundSol): never into the
// sale, the cost or the position's P/L; the 0.000005 SOL fee of closing the account is in the
// closing SELL's fees and the P/L, which is what the wallet gained.

let t: TradingContext;
/** The service in use: replaced by restart(). */
let ctx: TestContext;
const restarted: TestContext[] = [];
/** Access token of the admin user (renewed when the clock moves past its life). */
let token: string;

beforeEach(async () => {
  t = await startTrading();
  ctx = t.ctx;
  token = t.token;
});
afterEach(async () => {
  for (const c of restarted.splice(0)) await c.close();
  await t.close();
});

async function restart() {
  ctx = await ctx.restart();
  restarted.push(ctx);
}

const tick = () => ctx.services.trading.monitor.tick();
const price = (usd: string) => t.fake.setToken(MINT, { priceUsd: usd });
const get = async (path: string) => {
  const res = await ctx.request("GET", `/api/v1${path}`, { token });
  expect(res.status, path).toBe(200);
  return json(res);
};
const positions = (agentId: string) => get(`/agent-positions/${agentId}`);
const txs = (agentId: string, query = "") => get(`/agent-transactions?agentId=${agentId}${query}`);
const swaps = (agentId: string) => get(`/agent-historical-swaps?agentId=${agentId}`);
const bal = (agentId: string, mint = SOL_MINT) => balanceOf(ctx, agentId, mint);
const row = (id: string) =>
  ctx.database.sqlite
    .query<
      {
        status: string;
        close_reason: string | null;
        peak_price_sol: string;
        levels_hit: number;
        remaining_amount: string;
        realized_profit_sol: string;
      },
      [string]
    >(
      "SELECT status, close_reason, peak_price_sol, levels_hit, remaining_amount, realized_profit_sol FROM positions WHERE id = ?",
    )
    .get(id)!;

async function openOne(config?: Record<string, unknown>) {
  const agent = await t.createAgent({ config });
  const signal = await t.postSignal();
  await t.settle();
  const [pos] = await positions(agent.id);
  expect(pos.purchase).toMatchObject({ priceNative: 0.0001, amount: 5000 });
  return { agent, signal, pos };
}

describe("trailing stop-loss", () => {
  test("a new peak is persisted (and survives a restart); exactly peak × (1 − 25 %) closes, just above does not", async () => {
    const { agent, pos } = await openOne();
    price("0.02"); // 0.0002 SOL: the new peak
    expect(await tick()).toMatchObject({ positions: 1, priced: 1, actions: 0 });
    expect(row(pos.id).peak_price_sol).toBe("0.0002");
    expect((await positions(agent.id))[0].stopLoss).toEqual({ percentage: 25, peakPrice: 0.0002 });

    await restart();
    expect((await positions(agent.id))[0].stopLoss).toEqual({ percentage: 25, peakPrice: 0.0002 });

    // Stop price 0.0002 × 0.75 = 0.00015 SOL ($0.015). A hair above: nothing.
    price("0.0150001");
    expect(await tick()).toMatchObject({ actions: 0, closed: 0 });
    expect(row(pos.id)).toMatchObject({ status: "open", peak_price_sol: "0.0002" });

    price("0.015");
    expect(await tick()).toMatchObject({ actions: 1, closed: 1, failed: 0 });
    expect(row(pos.id)).toMatchObject({ status: "closed", close_reason: "stop_loss", remaining_amount: "0" });
    // 5000 tokens for 0.75 SOL: P/L 0.74989 − 0.500105 = 0.249785 (the rent is not a cost, the
    // account close's fee is).
    const [swap] = await swaps(agent.id);
    expect(swap).toMatchObject({
      closeReason: "stop_loss",
      profitLossSol: "0.249785",
      profitLossUsd: "24.9785",
      salePrice: "0.00015",
      purchasePrice: "0.0001",
      amount: "5000",
    });
    // The close closed the token account: its rent came back to the balance (rentRefundSol):
    // 10 − 0.500105 − 0.00203928 + 0.74989 + 0.00203928 = 10 + the P/L.
    expect(bal(agent.id)).toBe("10.249785");
    expect(bal(agent.id, MINT)).toBe("0");
    expect(await positions(agent.id)).toEqual([]);
    const sells = await txs(agent.id, "&transactionType=SELL");
    expect(sells.length).toBe(1);
    expect(sells[0]).toMatchObject({
      inputAmount: "5000",
      outputAmount: "0.75", // the swap's SOL only: the rent is not part of the sale
      isTakeProfit: false,
      id: swap.saleTransactionId,
    });
    const line = ctx.logs.map((l) => JSON.parse(l)).find((l) => l.msg === "rule triggered" && l.rule === "stop_loss");
    expect(line).toMatchObject({ positionId: pos.id, agentId: agent.id });
  });

  test("without a new peak the stop is measured from the entry price; a price that never falls far enough never closes", async () => {
    const { pos } = await openOne({ stopLoss: { enabled: true, percentage: 10 } });
    price("0.00900001"); // above 0.0001 × 0.9
    await tick();
    expect(row(pos.id)).toMatchObject({ status: "open", peak_price_sol: "0.0001" });
    price("0.009");
    await tick();
    expect(row(pos.id)).toMatchObject({ status: "closed", close_reason: "stop_loss" });
  });

  test("stop-loss disabled: no close however far the price falls", async () => {
    const { pos } = await openOne({ stopLoss: { enabled: false, percentage: 10 } });
    price("0.0001");
    expect(await tick()).toMatchObject({ actions: 0 });
    expect(row(pos.id).status).toBe("open");
  });
});

describe("prices the monitor cannot get", () => {
  test("an unpriced token is never treated as zero: no stop-loss, the stored prices stay", async () => {
    const { pos } = await openOne();
    price("0.02");
    await tick();
    t.fake.setToken(MINT, { priceUsd: null }); // absent from Jupiter's price answer
    expect(await tick()).toMatchObject({ positions: 1, priced: 0, actions: 0 });
    expect(row(pos.id)).toMatchObject({ status: "open", peak_price_sol: "0.0002" });
    // The price source failing outright: the tick is skipped, nothing changes.
    price("0.001");
    const fail = { status: 500, body: { error: "down" } };
    t.fake.inject("jupiter.price", fail, fail, fail);
    expect(await tick()).toMatchObject({ positions: 1, priced: 0, actions: 0 });
    expect(row(pos.id).status).toBe("open");
    // Prices back: the stop-loss fires.
    expect(await tick()).toMatchObject({ priced: 1, closed: 1 });
    expect(row(pos.id)).toMatchObject({ status: "closed", close_reason: "stop_loss" });
  });
});

describe("the price write", () => {
  test("a row is written only when its rowid still holds its id (a VACUUM may renumber rowids)", async () => {
    await t.createAgent({ name: "a1" });
    await t.createAgent({ name: "a2" });
    await t.postSignal();
    await t.settle();
    const store = ctx.services.trading.positions;
    const [a, b] = store.monitoredOpen().positions;
    if (!a || !b) throw new Error("two open positions expected");
    const prices = { lastPriceSol: "0.0003", lastPriceUsd: "0.03", peakPriceSol: "0.0003" };
    store.recordPrices([{ ...prices, id: a.id, rowid: b.rowid }], new Date().toISOString());
    expect(row(a.id).peak_price_sol).toBe("0.0001");
    expect(row(b.id).peak_price_sol).toBe("0.0001");
    store.recordPrices([{ ...prices, id: a.id, rowid: a.rowid }], new Date().toISOString());
    expect(row(a.id).peak_price_sol).toBe("0.0003");
    expect(row(b.id).peak_price_sol).toBe("0.0001");
  });
});

describe("take-profit levels, then the moon bag", () => {
  test("levels sell one per tick; progress shows in GET positions and survives a restart; the moon bag is left to stop-loss", async () => {
    const { agent } = await openOne({
      takeProfit: { enabled: true, percentage: 50, sellPercentage: 50, maxLevels: 3 },
    });
    // $0.03 = 0.0003 SOL is past all three levels (0.00015, 0.0002, 0.00025): one level per tick.
    price("0.03");
    const expected = [
      // sold, remaining, realizedProfitSol: proceeds − 0.000105 − 0.500105 × sold / 5000, cumulated
      // (average cost; the token account's rent is not a cost)
      { sold: "2500", proceeds: "0.75", remaining: 2500, realized: 0.4998425 },
      { sold: "1250", proceeds: "0.375", remaining: 1250, realized: 0.74971125 },
      { sold: "625", proceeds: "0.1875", remaining: 625, realized: 0.874593125 },
    ];
    for (const [i, e] of expected.entries()) {
      expect(await tick()).toMatchObject({ actions: 1, closed: 0, failed: 0 });
      const [p] = await positions(agent.id);
      const last = i === expected.length - 1;
      expect(p.takeProfit).toEqual({
        remainingAmount: e.remaining,
        levelsHit: i + 1,
        realizedProfitSol: e.realized,
        moonBagActivated: last,
        moonBagAmount: last ? 625 : null,
      });
      expect(p.purchase.amount).toBe(5000);
      expect(bal(agent.id, MINT)).toBe(String(e.remaining));
    }
    // No fourth level.
    expect(await tick()).toMatchObject({ actions: 0 });

    const tpSales = await txs(agent.id, "&isTakeProfit=true");
    expect(tpSales.map((x: any) => [x.transactionType, x.isTakeProfit, x.inputAmount, x.outputAmount]).sort()).toEqual(
      expected.map((e) => ["SELL", true, e.sold, e.proceeds]).sort(),
    );
    expect((await txs(agent.id, "&isTakeProfit=false")).map((x: any) => x.transactionType)).toEqual(["BUY"]);
    expect((await txs(agent.id)).length).toBe(4);
    // 9.49785572 (after the buy's fees and rent) + 0.749895 + 0.374895 + 0.187395
    expect(bal(agent.id)).toBe("10.81004072");

    await restart();
    const [p] = await positions(agent.id);
    expect(p.takeProfit).toEqual({
      remainingAmount: 625,
      levelsHit: 3,
      realizedProfitSol: 0.874593125,
      moonBagActivated: true,
      moonBagAmount: 625,
    });
    expect(p.stopLoss.peakPrice).toBe(0.0003);
    expect(await tick()).toMatchObject({ actions: 0 });

    // The moon bag falls to peak × 0.75 = 0.000225 SOL: stop-loss sells the 625 tokens for 0.140625.
    price("0.0225");
    expect(await tick()).toMatchObject({ actions: 1, closed: 1 });
    const [swap] = await swaps(agent.id);
    // P/L: every net proceed minus the cost = (0.749895 + 0.374895 + 0.187395 + 0.14052)
    // − 0.500105 − 0.000005 (the account close's fee) = 0.952595 (the rent is apart). The balance
    // also gets the rent back: 10.81004072 + 0.140515 + 0.00203928 = 10 + the P/L.
    expect(swap).toMatchObject({
      closeReason: "stop_loss",
      profitLossSol: "0.952595",
      profitLossUsd: "95.2595",
      amount: "5000",
    });
    expect(bal(agent.id)).toBe("10.952595");
    expect(bal(agent.id, MINT)).toBe("0");
  });

  test("a level exactly at its price fires; just below does not", async () => {
    const { agent } = await openOne({
      takeProfit: { enabled: true, percentage: 50, sellPercentage: 50, maxLevels: 3 },
    });
    price("0.0149999");
    expect(await tick()).toMatchObject({ actions: 0 });
    price("0.015");
    expect(await tick()).toMatchObject({ actions: 1 });
    expect((await positions(agent.id))[0].takeProfit.levelsHit).toBe(1);
    // Level 2 at 0.0002: the same price does not sell again.
    expect(await tick()).toMatchObject({ actions: 0 });
  });

  test("sellPercentage 100 sells everything at the first level and closes with closeReason take_profit", async () => {
    const { agent, pos } = await openOne({
      takeProfit: { enabled: true, percentage: 50, sellPercentage: 100, maxLevels: 3 },
    });
    price("0.015");
    expect(await tick()).toMatchObject({ actions: 1, closed: 1 });
    expect(row(pos.id)).toMatchObject({
      status: "closed",
      close_reason: "take_profit",
      remaining_amount: "0",
      levels_hit: 1,
    });
    const sells = await txs(agent.id, "&isTakeProfit=true");
    // The sale that empties the position closes the token account: the rent comes back to the
    // balance as the SELL's rentRefundSol, not into the sale or the P/L (0.74989 − 0.500105, the
    // close's fee in the SELL's fees).
    expect(sells.map((x: any) => [x.inputAmount, x.outputAmount])).toEqual([["5000", "0.75"]]);
    const [swap] = await swaps(agent.id);
    expect(sells.map((x: any) => x.rentRefundSol)).toEqual(["0.00203928"]);
    expect(swap).toMatchObject({
      closeReason: "take_profit",
      profitLossSol: "0.249785",
      saleTransactionId: sells[0].id,
    });
    expect(t.count("historical_swaps", "position_id = ?", pos.id)).toBe(1);
    expect(bal(agent.id)).toBe("10.249785"); // 10 − 0.500105 − 0.00203928 + 0.74989 + 0.00203928
  });
});

describe("DCA", () => {
  test("orders fire at average entry × (1 − k × 10 %) up to maxOrders and not beyond; entry and amount grow", async () => {
    const { agent, pos, signal } = await openOne({
      stopLoss: { enabled: false, percentage: 25 },
      dca: { enabled: true, maxOrders: 2, priceDropTriggerPercentage: 10, amountPercentage: 50 },
    });
    // Order 1 at 0.0001 × 0.9 = 0.00009 SOL ($0.009). A hair above: nothing.
    price("0.0090001");
    expect(await tick()).toMatchObject({ actions: 0 });
    price("0.009");
    expect(await tick()).toMatchObject({ actions: 1, failed: 0 });
    // 50 % of the original 0.5 SOL = 0.25 SOL → floor(0.25 / 0.00009, 6 dp) = 2777.777777 tokens.
    let [p] = await positions(agent.id);
    expect(p.purchase.amount).toBe(7777.777777);
    expect(p.takeProfit.remainingAmount).toBe(7777.777777);
    const entry1 = 0.75 / 7777.777777;
    expect(p.purchase.priceNative).toBeCloseTo(entry1, 15);
    expect(bal(agent.id)).toBe("9.24775072"); // the opening buy's rent is still locked
    expect(bal(agent.id, MINT)).toBe("7777.777777");

    // The same price does not fire order 2 (trigger now entry1 × 0.8 ≈ 0.0000771428 SOL).
    expect(await tick()).toMatchObject({ actions: 0 });
    price("0.0077");
    expect(await tick()).toMatchObject({ actions: 1, failed: 0 });
    // 0.25 SOL / 0.000077 = 3246.753246 tokens (6 dp, down).
    [p] = await positions(agent.id);
    expect(p.purchase.amount).toBe(11024.531023);
    expect(p.purchase.priceNative).toBeCloseTo(1 / 11024.531023, 15);
    expect(bal(agent.id)).toBe("8.99764572");

    // Order 3 would fire at $0.005, but maxOrders is 2.
    price("0.005");
    expect(await tick()).toMatchObject({ actions: 0 });
    price("0.001");
    expect(await tick()).toMatchObject({ actions: 0 });

    // DCA buys carry the position's opening signal.
    const dcas = await txs(agent.id, "&isDca=true");
    expect(
      dcas.map((x: any) => [x.transactionType, x.isDca, x.inputAmount, x.outputAmount, x.fees, x.signalId]).sort(),
    ).toEqual([
      ["BUY", true, "0.25", "2777.777777", "0.000105", signal.id],
      ["BUY", true, "0.25", "3246.753246", "0.000105", signal.id],
    ]);
    expect((await txs(agent.id)).length).toBe(3);
    expect(row(pos.id).status).toBe("open");
    // DCA count survives a restart: still no third order.
    await restart();
    expect(await tick()).toMatchObject({ actions: 0 });
    // Cost 0.500105 (rent apart) + 2 × 0.250105 = 1.000315; value at $0.001: 11024.531023 × 0.00001.
    [p] = await positions(agent.id);
    expect(p.profitLoss.native).toBeCloseTo(11024.531023 * 0.00001 - 1.000315, 12);
  });

  test("take-profit, then a DCA buy, then the close: P/L is Σ SELL(out − fees) − Σ BUY(in + fees), the SOL the wallet gained", async () => {
    const { agent, pos } = await openOne({
      stopLoss: { enabled: false, percentage: 25 },
      takeProfit: { enabled: true, percentage: 50, sellPercentage: 50, maxLevels: 3 },
      dca: { enabled: true, maxOrders: 1, priceDropTriggerPercentage: 10, amountPercentage: 100 },
    });
    price("0.015"); // +50 %: half sold
    expect(await tick()).toMatchObject({ actions: 1, failed: 0 });
    price("0.009"); // −10 %: DCA buys 100 % of the opening 0.5 SOL
    expect(await tick()).toMatchObject({ actions: 1, failed: 0 });
    const res = await ctx.request("POST", `/api/v1/agent-positions/${pos.id}/close`, { token });
    expect(res.status).toBe(200);
    const closed = await json(res);
    const records = await txs(agent.id);
    expect(records.map((x: any) => `${x.transactionType}:${x.isDca}:${x.isTakeProfit}`).sort()).toEqual([
      "BUY:false:false",
      "BUY:true:false",
      "SELL:false:false",
      "SELL:false:true",
    ]);
    let flows = new Big(0);
    let rent = new Big(0);
    for (const x of records) {
      const net =
        x.transactionType === "BUY" ? new Big(x.inputAmount).plus(x.fees).neg() : new Big(x.outputAmount).minus(x.fees);
      flows = flows.plus(net);
      rent = rent.plus(x.rentRefundSol ?? "0").minus(x.rentDepositSol ?? "0");
    }
    const [swap] = await swaps(agent.id);
    expect(swap.profitLossSol).toBe(flows.toFixed());
    expect(closed.profitLossSol).toBe(Number(flows));
    // The wallet gained exactly that: the rent went out and came back whole.
    expect(rent.toFixed()).toBe("0");
    expect(bal(agent.id)).toBe(new Big(10).plus(flows).plus(rent).toFixed());
  });

  test("editing the opening BUY's record (inputAmount 16) does not change the DCA order's size", async () => {
    const { agent, pos } = await openOne({
      stopLoss: { enabled: false, percentage: 25 },
      dca: { enabled: true, maxOrders: 1, priceDropTriggerPercentage: 10, amountPercentage: 50 },
    });
    const [buy] = await txs(agent.id, "&transactionType=BUY");
    const edit = await ctx.request("PUT", `/api/v1/agent-transactions/${buy.id}`, {
      token,
      body: { inputAmount: "16" },
    });
    expect(edit.status).toBe(200);
    expect((await json(edit)).inputAmount).toBe("16"); // what is shown changes
    price("0.009");
    expect(await tick()).toMatchObject({ actions: 1, failed: 0 });
    // 50 % of the 0.5 SOL the opening buy swapped (the position's own openingSol), not of 16.
    const dcas = await txs(agent.id, "&isDca=true");
    expect(dcas.map((x: any) => x.inputAmount)).toEqual(["0.25"]);
    expect(row(pos.id).remaining_amount).toBe("7777.777777");
  });

  test("a DCA order that would take the wallet under minimumAgentBalance is skipped (minimum_balance), logged, counted", async () => {
    const { agent, pos } = await openOne({
      stopLoss: { enabled: false, percentage: 25 },
      dca: { enabled: true, maxOrders: 2, priceDropTriggerPercentage: 10, amountPercentage: 1000 },
    });
    // Order 1 would cost 5 SOL + fees; leave 1 SOL in the wallet.
    ctx.database.sqlite
      .query("UPDATE agent_balances SET balance = '1' WHERE agent_id = ? AND token_address = ?")
      .run(agent.id, SOL_MINT);
    price("0.009");
    const quotes = t.fake.requestsTo("jupiter.build").length;
    expect(await tick()).toMatchObject({ actions: 1, failed: 0 });
    // Refused before the swap: no quote asked for (a live swap would already have spent the SOL).
    expect(t.fake.requestsTo("jupiter.build").length).toBe(quotes);
    expect(bal(agent.id)).toBe("1");
    expect(bal(agent.id, MINT)).toBe("5000");
    expect(t.count("agent_transactions", "agent_id = ? AND is_dca = 1", agent.id)).toBe(0);
    expect(row(pos.id).remaining_amount).toBe("5000");
    const line = ctx.logs
      .map((l) => JSON.parse(l))
      .find((l) => l.msg === "DCA order skipped" && l.positionId === pos.id);
    expect(line).toMatchObject({ agentId: agent.id, dcaOrder: 1, rule: "minimum_balance" });
    expect(line.reason).toContain("below minimumAgentBalance 0.5");
    const metrics = await ctx.services.metrics.exposition();
    expect(metrics).toContain('trading_trades_skipped_total{mode="simulation",rule="minimum_balance"} 1');
  });
});

describe("stale trade", () => {
  test("exactly maxPositionAgeDays old is kept; one millisecond later it closes with stale_trade", async () => {
    const { agent, pos } = await openOne({ filters: { maxPositionAgeDays: 1 } });
    ctx.clock.advance(86_400_000);
    expect(await tick()).toMatchObject({ actions: 0 });
    ctx.clock.advance(1);
    expect(await tick()).toMatchObject({ actions: 1, closed: 1 });
    expect(row(pos.id)).toMatchObject({ status: "closed", close_reason: "stale_trade" });
    token = (await login(ctx)).token; // a day later the first access token has expired
    const [swap] = await swaps(agent.id);
    // Sold at the entry price: P/L is the two swaps' fees and the account close's, −0.000215 (the
    // rent is apart, and back): the balance is 10 − 0.000215 = 9.999785.
    expect(swap).toMatchObject({
      closeReason: "stale_trade",
      profitLossSol: "-0.000215",
      profitLossUsd: "-0.0215",
      salePrice: "0.0001",
    });
    expect(new Date(swap.saleTime).getTime() - new Date(swap.purchaseTime).getTime()).toBe(86_400_001);
    expect(bal(agent.id)).toBe("9.999785");
  });

  test("stale-trade comes before take-profit in a tick", async () => {
    const { pos } = await openOne({
      filters: { maxPositionAgeDays: 0.5 },
      takeProfit: { enabled: true, percentage: 50, sellPercentage: 50, maxLevels: 3 },
    });
    ctx.clock.advance(43_200_001);
    price("0.02");
    await tick();
    expect(row(pos.id)).toMatchObject({ status: "closed", close_reason: "stale_trade", levels_hit: 0 });
  });
});

describe("exit signals", () => {
  for (const signalType of ["sell", "EXIT", "Close"]) {
    test(`signalType ${signalType} closes the owner's positions in the token with closeReason signal`, async () => {
      const holder = await t.createAgent({ name: "holder" });
      const buy = await t.postSignal();
      await t.settle();
      const [pos] = await positions(holder.id);
      // Holds the other token only: untouched. No position at all: nothing bought.
      const other = await t.createAgent({ name: "other-token" });
      await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
      await t.settle();
      const bystander = await t.createAgent({ name: "bystander" });

      price("0.012");
      const exit = await t.postSignal({ signalType });
      await t.settle();
      expect(row(pos.id)).toMatchObject({ status: "closed", close_reason: "signal" });
      const [swap] = await swaps(holder.id);
      // 5000 tokens for 0.6 SOL: 0.59989 − 0.500105 = 0.099785 (the account close's fee in).
      expect(swap).toMatchObject({ closeReason: "signal", profitLossSol: "0.099785", signalId: String(buy.id) });
      const sells = await txs(holder.id, "&transactionType=SELL");
      expect(sells.map((x: any) => [x.signalId, x.outputAmount, x.id])).toEqual([
        [exit.id, "0.6", swap.saleTransactionId], // the swap's SOL only: the rent goes to the balance
      ]);
      expect(
        t.count("trade_idempotency", "agent_id = ? AND signal_id = ? AND action = 'SELL'", holder.id, exit.id),
      ).toBe(1);
      const ev = ctx.database.sqlite
        .query<{ outcome: string }, [number, string]>(
          "SELECT outcome FROM signal_evaluations WHERE signal_id = ? AND agent_id = ?",
        )
        .get(exit.id, holder.id);
      expect(ev?.outcome).toBe("closed");
      expect(t.count("positions", "agent_id = ? AND status = 'open'", other.id)).toBe(1);
      expect(t.count("positions", "agent_id = ?", bystander.id)).toBe(0);
      expect(t.count("agent_transactions", "signal_id = ?", exit.id)).toBe(1);
    });
  }

  test("another user's exit signal does not close my position", async () => {
    const mine = await t.createAgent();
    await t.postSignal();
    await t.settle();
    const { createUser, createApiKey } = await import("../helpers/context.ts");
    const other = await createUser(ctx);
    const theirKey = (await createApiKey(ctx, other.token, ["signals"])).key;
    await t.postSignal({ signalType: "sell" }, theirKey);
    await t.settle();
    expect(t.count("positions", "agent_id = ? AND status = 'open'", mine.id)).toBe(1);
  });
});
