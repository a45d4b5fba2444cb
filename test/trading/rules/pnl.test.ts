import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { Big } from "../../../src/money.ts";
import {
  applyDcaFill,
  closePnl,
  costOfTokensSold,
  openCostSol,
  positionPnl,
  salePnl,
} from "../../../src/trading/rules/index.ts";

const s = (v: Big | null) => (v === null ? null : v.toFixed());

describe("costOfTokensSold", () => {
  test.each([
    // held cost, remaining, sold → cost of the tokens sold
    ["1.000105", "1000", "1000", "1.000105"],
    ["1", "1000", "500", "0.5"],
    ["1", "1000", "0", "0"],
    ["0.3", "3", "1", "0.1"],
    ["1", "0", "0", "0"],
    ["1.5", "1600", "2000", "1.5"], // more than held: all of it, never more
  ])("held %s over %s tokens, %s sold → %s", (heldCostSol, remainingAmount, sold, expected) => {
    expect(costOfTokensSold(heldCostSol, remainingAmount, sold).toFixed()).toBe(expected);
  });

  test("openCostSol is the held cost", () => {
    expect(openCostSol({ heldCostSol: "0.42" }).toFixed()).toBe("0.42");
  });
});

describe("salePnl", () => {
  test.each([
    // held, remaining, sold, proceeds, fees → net, basis, realized, held after
    ["1", "1000", "500", "0.75", "0.000105", "0.749895", "0.5", "0.249895", "0.5"],
    ["1", "1000", "500", "0.4", "0", "0.4", "0.5", "-0.1", "0.5"],
    ["1.000105", "1000", "1000", "2", "0.000105", "1.999895", "1.000105", "0.99979", "0"],
    // after a DCA that followed a sale: the average cost of what is held now
    ["1.5", "1500", "750", "0.6", "0", "0.6", "0.75", "-0.15", "0.75"],
  ])(
    "held %s over %s, sold %s for %s − fees %s",
    (heldCostSol, remainingAmount, tokensSold, proceedsSol, feesSol, net, basis, realized, after) => {
      const r = salePnl({ heldCostSol, remainingAmount, tokensSold, proceedsSol, feesSol });
      expect([
        r.netProceedsSol.toFixed(),
        r.costBasisSol.toFixed(),
        r.realizedProfitSol.toFixed(),
        r.heldCostAfterSol.toFixed(),
      ]).toEqual([net, basis, realized, after]);
    },
  );
});

const held = {
  costSol: "1",
  heldCostSol: "1",
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
      input: { ...held, costSol: "1.000105", heldCostSol: "1.000105", currentPriceSol: "0.001", solUsdPrice: "100" },
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
        heldCostSol: "0.5",
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
      input: {
        ...held,
        costSol: "1.000105",
        heldCostSol: "1.000105",
        proceedsSol: "1.5",
        feesSol: "0.000105",
        solUsdPrice: "100",
      },
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
        heldCostSol: "0.25",
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
        heldCostSol: "0",
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
        heldCostSol: "2",
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

  test("a DCA buy after a take-profit sale does not restate the cost: P/L is the SOL the wallet gained", () => {
    // Buy 1 SOL for 1000 tokens; sell half at +50 %; DCA 100 % of the original size at −10 %;
    // close everything at that price. The wallet: −1 + 0.75 − 1 + 1.45 = +0.2 SOL. Pro-rating the
    // cost over every token ever bought reported 0.1737 here.
    let p = { costSol: "1", heldCostSol: "1", remainingAmount: "1000", purchaseAmount: "1000", entryPriceSol: "0.001" };
    const tp = salePnl({
      heldCostSol: p.heldCostSol,
      remainingAmount: p.remainingAmount,
      tokensSold: "500",
      proceedsSol: "0.75",
      feesSol: "0",
    });
    const realized = tp.realizedProfitSol;
    p = { ...p, heldCostSol: tp.heldCostAfterSol.toFixed(), remainingAmount: "500" };
    const dca = applyDcaFill({ ...p, dcaOrders: 0 }, { solSwapped: "1", feesSol: "0", tokensReceived: "1111.111111" });
    const close = closePnl({
      costSol: dca.costSol,
      heldCostSol: dca.heldCostSol,
      remainingAmount: dca.remainingAmount,
      entryPriceSol: dca.entryPriceSol,
      realizedProfitSol: realized,
      proceedsSol: "1.45",
      feesSol: "0",
      solUsdPrice: "100",
    });
    expect(close.profitLossSol.toFixed()).toBe("0.2");
  });

  test("property: any buy / take-profit / DCA / close sequence: P/L = Σ SELL(out − fees) − Σ BUY(in + fees)", () => {
    const lamports = (max: bigint) => fc.bigInt({ min: 1n, max });
    const step = fc.oneof(
      fc.record({ kind: fc.constant("tp" as const), pct: fc.integer({ min: 1, max: 100 }), out: lamports(10n ** 12n) }),
      fc.record({
        kind: fc.constant("dca" as const),
        sol: lamports(10n ** 12n),
        tokens: fc.bigInt({ min: 1n, max: 10n ** 15n }),
      }),
    );
    fc.assert(
      fc.property(
        lamports(10n ** 12n), // opening buy, lamports
        fc.bigInt({ min: 1n, max: 10n ** 15n }), // tokens it bought, atomic (6 decimals)
        fc.array(step, { maxLength: 8 }),
        fc.bigInt({ min: 0n, max: 10n ** 12n }), // closing proceeds, lamports
        fc.bigInt({ min: 0n, max: 200_000n }), // fees per swap, lamports
        (inLamports, boughtAtomic, steps, closeLamports, feeLamports) => {
          const sol = (l: bigint) => new Big(l.toString()).div(1e9);
          const tok = (a: bigint) => new Big(a.toString()).div(1e6);
          const fee = sol(feeLamports);
          let p = {
            costSol: sol(inLamports).plus(fee),
            heldCostSol: sol(inLamports).plus(fee),
            remainingAmount: tok(boughtAtomic),
            purchaseAmount: tok(boughtAtomic),
            entryPriceSol: sol(inLamports).div(tok(boughtAtomic)),
          };
          let realized = new Big(0);
          let wallet = sol(inLamports).plus(fee).neg(); // Σ SELL(out − fees) − Σ BUY(in + fees)
          for (const st of steps) {
            if (st.kind === "dca") {
              const next = applyDcaFill(
                { ...p, dcaOrders: 0 },
                { solSwapped: sol(st.sol), feesSol: fee, tokensReceived: tok(st.tokens) },
              );
              p = { ...p, ...next };
              wallet = wallet.minus(sol(st.sol)).minus(fee);
              continue;
            }
            const sold = p.remainingAmount.times(st.pct).div(100).round(6, Big.roundDown);
            if (sold.lte(0) || sold.gte(p.remainingAmount)) continue; // the close sells the rest
            const sale = salePnl({
              heldCostSol: p.heldCostSol,
              remainingAmount: p.remainingAmount,
              tokensSold: sold,
              proceedsSol: sol(st.out),
              feesSol: fee,
            });
            realized = realized.plus(sale.realizedProfitSol);
            p = { ...p, heldCostSol: sale.heldCostAfterSol, remainingAmount: p.remainingAmount.minus(sold) };
            wallet = wallet.plus(sol(st.out)).minus(fee);
          }
          const close = closePnl({
            ...p,
            realizedProfitSol: realized,
            proceedsSol: sol(closeLamports),
            feesSol: fee,
            solUsdPrice: "100",
          });
          wallet = wallet.plus(sol(closeLamports)).minus(fee);
          // Exactly: the cost the sales take out sums to the cost the buys put in.
          expect(close.profitLossSol.toFixed()).toBe(wallet.toFixed());
        },
      ),
    );
  });
});
