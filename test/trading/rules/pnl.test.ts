import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { Big } from "../../../src/money.ts";
import {
  closePnl,
  evaluateTakeProfit,
  openCostSol,
  positionPnl,
  takeProfitSalePnl,
} from "../../../src/trading/rules/index.ts";

const s = (v: Big | null) => (v === null ? null : v.toFixed());

describe("openCostSol", () => {
  test.each([
    ["1.000105", "1000", "1000", "1.000105"],
    ["1", "1000", "500", "0.5"],
    ["1", "1000", "0", "0"],
    ["0.3", "3", "1", "0.1"],
    ["1", "0", "0", "0"],
  ])("cost %s, bought %s, remaining %s → %s", (costSol, purchaseAmount, remainingAmount, expected) => {
    expect(openCostSol({ costSol, purchaseAmount, remainingAmount }).toFixed()).toBe(expected);
  });
});

describe("takeProfitSalePnl", () => {
  test.each([
    // cost, bought, sold, proceeds, fees → net, basis, realized
    ["1", "1000", "500", "0.75", "0.000105", "0.749895", "0.5", "0.249895"],
    ["1", "1000", "500", "0.4", "0", "0.4", "0.5", "-0.1"],
    ["1.000105", "1000", "1000", "2", "0.000105", "1.999895", "1.000105", "0.99979"],
  ])(
    "cost %s, bought %s, sold %s for %s − fees %s",
    (costSol, purchaseAmount, tokensSold, proceedsSol, feesSol, net, basis, realized) => {
      const r = takeProfitSalePnl({ costSol, purchaseAmount, tokensSold, proceedsSol, feesSol });
      expect([r.netProceedsSol.toFixed(), r.costBasisSol.toFixed(), r.realizedProfitSol.toFixed()]).toEqual([
        net,
        basis,
        realized,
      ]);
    },
  );
});

const held = {
  costSol: "1",
  purchaseAmount: "1000",
  remainingAmount: "1000",
  entryPriceSol: "0.001",
  realizedProfitSol: "0",
};

describe("positionPnl", () => {
  test.each([
    {
      name: "untouched position in profit",
      input: { ...held, currentPriceSol: "0.0012", solUsdPrice: "150" },
      out: {
        currentPriceNative: "0.0012",
        currentPriceUsd: "0.18",
        valueNative: "1.2",
        valueUsd: "180",
        openCostSol: "1",
        unrealizedSol: "0.2",
        profitLossNative: "0.2",
        profitLossUsd: "30",
        profitLossPercent: "20",
        priceChangePercent: "20",
      },
    },
    {
      name: "fees count against P/L but not against the price change",
      input: { ...held, costSol: "1.000105", currentPriceSol: "0.001", solUsdPrice: "100" },
      out: {
        currentPriceNative: "0.001",
        currentPriceUsd: "0.1",
        valueNative: "1",
        valueUsd: "100",
        openCostSol: "1.000105",
        unrealizedSol: "-0.000105",
        profitLossNative: "-0.000105",
        profitLossUsd: "-0.0105",
        profitLossPercent: "-0.0104988976157", // -0.000105 / 1.000105, truncated to 13 places
        priceChangePercent: "0",
      },
    },
    {
      name: "after a take-profit sale: realized plus unrealized",
      input: {
        ...held,
        remainingAmount: "500",
        realizedProfitSol: "0.25",
        currentPriceSol: "0.0008",
        solUsdPrice: "200",
      },
      out: {
        currentPriceNative: "0.0008",
        currentPriceUsd: "0.16",
        valueNative: "0.4",
        valueUsd: "80",
        openCostSol: "0.5",
        unrealizedSol: "-0.1",
        profitLossNative: "0.15",
        profitLossUsd: "30",
        profitLossPercent: "15",
        priceChangePercent: "-20",
      },
    },
  ])("$name", ({ input, out }) => {
    const r = positionPnl(input);
    const got = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, (v as Big).toFixed()]));
    got.profitLossPercent = new Big(got.profitLossPercent!).round(13).toFixed();
    expect(got).toEqual(out);
  });
});

describe("closePnl", () => {
  test.each([
    {
      name: "plain close with fees",
      input: { ...held, costSol: "1.000105", proceedsSol: "1.5", feesSol: "0.000105", solUsdPrice: "100" },
      out: {
        netProceedsSol: "1.499895",
        openCostSol: "1.000105",
        profitLossSol: "0.49979",
        profitLossUsd: "49.979",
        salePriceSol: "0.0015",
        priceChangePercent: "50",
      },
      changePercent: "49.9737527559", // 0.49979 / 1.000105
    },
    {
      name: "close after take-profit includes the realized profit",
      input: {
        ...held,
        remainingAmount: "250",
        realizedProfitSol: "0.5",
        proceedsSol: "0.2",
        feesSol: "0",
        solUsdPrice: "150",
      },
      out: {
        netProceedsSol: "0.2",
        openCostSol: "0.25",
        profitLossSol: "0.45",
        profitLossUsd: "67.5",
        salePriceSol: "0.0008",
        priceChangePercent: "-20",
      },
      changePercent: "45",
    },
    {
      name: "nothing remained (take_profit close): P/L is the realized profit",
      input: {
        ...held,
        remainingAmount: "0",
        realizedProfitSol: "0.7",
        proceedsSol: "0",
        feesSol: "0",
        solUsdPrice: "100",
      },
      out: {
        netProceedsSol: "0",
        openCostSol: "0",
        profitLossSol: "0.7",
        profitLossUsd: "70",
        salePriceSol: null,
        priceChangePercent: null,
      },
      changePercent: "70",
    },
    {
      name: "loss",
      input: {
        ...held,
        costSol: "2",
        purchaseAmount: "10",
        remainingAmount: "10",
        entryPriceSol: "0.2",
        proceedsSol: "1.5",
        feesSol: "0",
        solUsdPrice: "100",
      },
      out: {
        netProceedsSol: "1.5",
        openCostSol: "2",
        profitLossSol: "-0.5",
        profitLossUsd: "-50",
        salePriceSol: "0.15",
        priceChangePercent: "-25",
      },
      changePercent: "-25",
    },
  ])("$name", ({ input, out, changePercent }) => {
    const r = closePnl(input);
    expect({
      netProceedsSol: s(r.netProceedsSol),
      openCostSol: s(r.openCostSol),
      profitLossSol: s(r.profitLossSol),
      profitLossUsd: s(r.profitLossUsd),
      salePriceSol: s(r.salePriceSol),
      priceChangePercent: s(r.priceChangePercent),
    }).toEqual(out);
    expect(r.changePercent.round(10).toFixed()).toBe(changePercent);
  });

  test("property: take-profit sales then a close add up to all net proceeds − all cost", () => {
    const amount = fc.bigInt({ min: 1n, max: 10n ** 15n });
    fc.assert(
      fc.property(
        amount, // tokens bought, atomic (6 decimals)
        fc.bigInt({ min: 1n, max: 10n ** 12n }), // cost, lamports
        fc.array(fc.tuple(fc.integer({ min: 1, max: 100 }), fc.bigInt({ min: 0n, max: 10n ** 12n })), { maxLength: 4 }),
        fc.bigInt({ min: 0n, max: 10n ** 12n }), // closing proceeds, lamports
        (boughtAtomic, costLamports, sales, closeLamports) => {
          const purchaseAmount = new Big(boughtAtomic.toString()).div(1e6);
          const costSol = new Big(costLamports.toString()).div(1e9);
          const fee = new Big("0.000105");
          let remaining = purchaseAmount;
          let realized = new Big(0);
          let allNet = new Big(0);
          let levelsHit = 0;
          for (const [sellPct, proceedsLamports] of sales) {
            const d = evaluateTakeProfit(
              { enabled: true, percentage: 10, sellPercentage: sellPct, maxLevels: 10 },
              { entryPriceSol: "1", remainingAmount: remaining, levelsHit, moonBagActivated: false, tokenDecimals: 6 },
              "100",
            );
            if (!d.triggered) continue;
            const proceedsSol = new Big(proceedsLamports.toString()).div(1e9);
            const sale = takeProfitSalePnl({
              costSol,
              purchaseAmount,
              tokensSold: d.sellAmount,
              proceedsSol,
              feesSol: fee,
            });
            realized = realized.plus(sale.realizedProfitSol);
            allNet = allNet.plus(sale.netProceedsSol);
            remaining = d.remainingAfter;
            levelsHit = d.levelsHit;
          }
          const closeProceeds = remaining.gt(0) ? new Big(closeLamports.toString()).div(1e9) : new Big(0);
          const closeFee = remaining.gt(0) ? fee : new Big(0);
          const close = closePnl({
            costSol,
            purchaseAmount,
            remainingAmount: remaining,
            entryPriceSol: "1",
            realizedProfitSol: realized,
            proceedsSol: closeProceeds,
            feesSol: closeFee,
            solUsdPrice: "100",
          });
          allNet = allNet.plus(closeProceeds.minus(closeFee));
          // Exact up to big.js's 30-decimal division.
          expect(close.profitLossSol.minus(allNet.minus(costSol)).abs().lt("1e-20")).toBe(true);
        },
      ),
    );
  });
});
