import { afterAll, beforeAll, expect, test } from "bun:test";
import { Big } from "../../src/money.ts";
import { StoredOpenPositions } from "../../src/trading/position-view.ts";
import { createApiKey, json } from "../helpers/context.ts";
import { MINT, RENT, startTrading, type TradingContext } from "../helpers/trading.ts";

// One P/L (issue 12; src/trading/rules/pnl.ts positionPnl): a position that paid fees, sold at a
// take-profit level and bought again by DCA — all through the real engine, monitor and fake
// market — reports the same P/L in GET /agent-positions/:agentId and GET /agents/:id/positions,
// the same unrealized P/L in GET /agents/:id/performance, and the public API's wallet values the
// held tokens as the positions do. The expected figures are worked out below.

let t: TradingContext;
let agentId: string;

beforeAll(async () => {
  t = await startTrading();
  agentId = (
    await t.createAgent({
      config: {
        stopLoss: { enabled: false, percentage: 25 },
        takeProfit: { enabled: true, percentage: 50, sellPercentage: 50, maxLevels: 2 },
        dca: { enabled: true, maxOrders: 1, priceDropTriggerPercentage: 10, amountPercentage: 50 },
      },
    })
  ).id;
  await t.postSignal();
  await t.settle();
});
afterAll(() => t.close());

const tick = () => t.ctx.services.trading.monitor.tick();
const price = (usd: string) => t.fake.setToken(MINT, { priceUsd: usd });
const get = async (path: string, headers: Record<string, string> = {}) => {
  const res = await t.ctx.request("GET", path, headers.authorization ? { headers } : { token: t.token });
  expect(res.status, path).toBe(200);
  return json(res);
};

test("both position endpoints, the performance and the public API agree on a position with fees, take-profit and DCA", async () => {
  // SOL $100. Opening buy: 0.5 SOL → 5000 tokens at 0.0001 SOL, fees 0.000105: cost 0.500105
  // (the token account's rent, 0.00203928, is the BUY's rentDepositSol, not a cost).
  const FEE = new Big("0.000105");
  const [buy] = await get(`/api/v1/agent-transactions?agentId=${agentId}&transactionType=BUY`);
  expect([buy.fees, buy.rentDepositSol]).toEqual([FEE.toFixed(), RENT]);
  // Level 1 at entry × 1.5 = 0.00015 SOL ($0.015): half the tokens, 2500, sold for 0.375 SOL.
  price("0.015");
  expect(await tick()).toMatchObject({ actions: 1, failed: 0 });
  // DCA order 1 at entry × 0.9 = 0.00009 SOL ($0.009): 50 % of the opening 0.5 SOL buys
  // floor(0.25 / 0.00009, 6 dp) = 2777.777777 tokens.
  price("0.009");
  expect(await tick()).toMatchObject({ actions: 1, failed: 0 });
  // Priced at 0.00012 SOL ($0.012): no level (level 2 is twice the averaged entry), no order.
  price("0.012");
  expect(await tick()).toMatchObject({ actions: 0 });

  const costSol = new Big("0.5").plus(FEE).plus("0.25").plus(FEE); // 0.75021
  const purchaseAmount = new Big(5000).plus("2777.777777");
  const remaining = new Big(2500).plus("2777.777777");
  // Take-profit: net proceeds minus the average cost of the tokens sold (half of 0.500105).
  const realized = new Big("0.375").minus(FEE).minus(new Big("0.500105").times(2500).div(5000));
  const value = remaining.times("0.00012");
  // Held cost: the half left (0.2500525) plus the DCA buy (0.250105); the sale is not restated.
  const openCost = new Big("0.2500525").plus("0.250105");
  const pnlSol = realized.plus(value).minus(openCost);
  const pnlUsd = pnlSol.times(100);
  expect(realized.toFixed()).toBe("0.1248425");
  // 0.1248425 + 0.63333333324 − 0.5001575
  expect(pnlSol.toFixed(12)).toBe("0.258018333240");

  const [viaAgentPositions] = await get(`/api/v1/agent-positions/${agentId}`);
  const [viaAgent] = await get(`/api/v1/agents/${agentId}/positions`);
  for (const p of [viaAgentPositions, viaAgent]) {
    expect(p.takeProfit).toMatchObject({ levelsHit: 1, realizedProfitSol: Number(realized) });
    expect(p.purchase.amount).toBe(Number(purchaseAmount));
    expect(p.takeProfit.remainingAmount).toBe(Number(remaining));
    expect(p.profitLoss.native).toBe(Number(pnlSol.toFixed(15)));
    expect(p.profitLoss.usd).toBeCloseTo(Number(pnlUsd), 9);
    expect(p.profitLoss.percent).toBeCloseTo(Number(pnlSol.div(costSol).times(100)), 9);
    expect(p.current.valueUsd).toBeCloseTo(Number(value.times(100)), 9);
  }
  expect(viaAgent).toEqual(viaAgentPositions);
  // Without a token-price source the endpoints answer from the prices the monitor stored (the
  // same $0.012 here): the same P/L, fees included.
  const stored = await new StoredOpenPositions(t.ctx.services.trading.positions).listOpen({ agentIds: [agentId] });
  expect(stored).toEqual([viaAgentPositions]);

  // The performance's unrealized P/L is the same P/L without the realized part, exactly.
  const perf = await get(`/api/v1/agents/${agentId}/performance`);
  expect(perf.openPositions).toBe(1);
  expect(new Big(perf.unrealizedProfitLossSol).plus(realized).round(15).eq(pnlSol.round(15))).toBe(true);
  expect(new Big(perf.unrealizedProfitLossUsd).plus(realized.times(100)).round(12).eq(pnlUsd.round(12))).toBe(true);

  // The public API values the held tokens at the price the positions use (5277.777777 × $0.012).
  const key = (await createApiKey(t.ctx, t.token, ["history"])).key;
  const wallet = await get(`/v1/agents/${agentId}/wallet`, { authorization: `Bearer ${key}` });
  const holding = wallet.holdings.find((h: { tokenAddress: string }) => h.tokenAddress === MINT);
  expect(holding.balance).toBe(remaining.toFixed());
  expect(holding.valueUsd).toBe(value.times(100).toFixed(6));
  expect(Number(holding.valueUsd)).toBeCloseTo(viaAgentPositions.current.valueUsd, 5); // the wallet rounds down to 6 dp
});
