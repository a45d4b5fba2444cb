import { describe, expect, test } from "bun:test";
import { Big } from "../../../src/money.ts";
import {
  applyDcaFill,
  type DcaPositionState,
  type DcaSettings,
  dcaTriggerPrice,
  dcaWithinMinimumBalance,
  evaluateDca,
} from "../../../src/trading/rules/index.ts";

const dca = (over: Partial<DcaSettings> = {}): DcaSettings => ({
  enabled: true,
  maxOrders: 3,
  priceDropTriggerPercentage: 10,
  amountPercentage: 50,
  ...over,
});
const pos = (over: Partial<DcaPositionState> = {}): DcaPositionState => ({
  entryPriceSol: "0.001",
  dcaOrders: 0,
  originalCostSol: "0.5",
  moonBagActivated: false,
  ...over,
});

describe("dcaTriggerPrice", () => {
  test.each([
    ["0.001", 10, 1, "0.0009"],
    ["0.001", 10, 2, "0.0008"],
    ["0.001", 10, 3, "0.0007"],
    ["0.3", "7.5", 2, "0.255"],
    ["1", 50, 2, "0"],
  ])("entry %s, drop %p%%, order %p → %s", (entry, drop, order, expected) => {
    expect(dcaTriggerPrice(entry, drop, order).toFixed()).toBe(expected);
  });
});

describe("evaluateDca", () => {
  test.each<[string, DcaSettings, DcaPositionState, string, null | { order: number; amount: string; trigger: string }]>(
    [
      ["above the first trigger", dca(), pos(), "0.00090001", null],
      ["exactly at the first trigger", dca(), pos(), "0.0009", { order: 1, amount: "0.25", trigger: "0.0009" }],
      ["below the first trigger", dca(), pos(), "0.0005", { order: 1, amount: "0.25", trigger: "0.0009" }],
      [
        "order 2 is measured from the current average entry",
        dca(),
        pos({ dcaOrders: 1, entryPriceSol: "0.00095" }),
        "0.00076",
        { order: 2, amount: "0.25", trigger: "0.00076" },
      ],
      [
        "order 2 not reached at order 1's trigger",
        dca(),
        pos({ dcaOrders: 1, entryPriceSol: "0.00095" }),
        "0.0008",
        null,
      ],
      [
        "the last order (k = maxOrders)",
        dca(),
        pos({ dcaOrders: 2 }),
        "0.0007",
        { order: 3, amount: "0.25", trigger: "0.0007" },
      ],
      ["no order beyond maxOrders", dca(), pos({ dcaOrders: 3 }), "0.00000001", null],
      [
        "the amount is a share of the ORIGINAL cost, in lamports",
        dca({ amountPercentage: 33 }),
        pos({ originalCostSol: "0.1234567891" }),
        "0.0001",
        {
          order: 1,
          amount: "0.040740740",
          trigger: "0.0009",
        },
      ],
      ["disabled", dca({ enabled: false }), pos(), "0", null],
      ["no DCA on a moon bag", dca(), pos({ moonBagActivated: true }), "0.0001", null],
      [
        "a trigger at or below zero never fires",
        dca({ priceDropTriggerPercentage: 50, maxOrders: 3 }),
        pos({ dcaOrders: 1 }),
        "0",
        null,
      ],
      [
        "an amount that rounds to 0 lamports does not fire",
        dca({ amountPercentage: 1 }),
        pos({ originalCostSol: "0.00000001" }),
        "0.0001",
        null,
      ],
    ],
  )("%s", (_name, settings, position, price, expected) => {
    const d = evaluateDca(settings, position, price);
    if (expected === null) {
      expect(d).toEqual({ triggered: false });
      return;
    }
    if (!d.triggered) throw new Error("expected a DCA order");
    expect({ order: d.order, amount: d.amountSol.toFixed(9), trigger: d.triggerPriceSol.toFixed() }).toEqual({
      ...expected,
      amount: new Big(expected.amount).toFixed(9),
    });
  });
});

describe("applyDcaFill", () => {
  test("averages the entry over all tokens bought and adds fees to the cost only", () => {
    // Opening buy: 0.5 SOL for 500 tokens (entry 0.001) + 0.000105 fees.
    // DCA: 0.25 SOL for 312.5 tokens (price 0.0008) + 0.000105 fees.
    const after = applyDcaFill(
      {
        entryPriceSol: "0.001",
        purchaseAmount: "500",
        remainingAmount: "500",
        costSol: "0.500105",
        heldCostSol: "0.500105",
        dcaOrders: 0,
      },
      { solSwapped: "0.25", feesSol: "0.000105", tokensReceived: "312.5" },
    );
    expect({
      entryPriceSol: after.entryPriceSol.toFixed(),
      purchaseAmount: after.purchaseAmount.toFixed(),
      remainingAmount: after.remainingAmount.toFixed(),
      costSol: after.costSol.toFixed(),
      heldCostSol: after.heldCostSol.toFixed(),
      dcaOrders: after.dcaOrders,
    }).toEqual({
      entryPriceSol: new Big("0.75").div("812.5").toFixed(), // 0.000923076923…
      purchaseAmount: "812.5",
      remainingAmount: "812.5",
      costSol: "0.75021",
      heldCostSol: "0.75021",
      dcaOrders: 1,
    });
  });

  test("after take-profit sales the remainder grows by the tokens bought", () => {
    const after = applyDcaFill(
      {
        entryPriceSol: "0.002",
        purchaseAmount: "100",
        remainingAmount: "50",
        costSol: "0.2",
        heldCostSol: "0.1",
        dcaOrders: 1,
      },
      { solSwapped: "0.1", feesSol: "0", tokensReceived: "100" },
    );
    expect(after.entryPriceSol.toFixed()).toBe("0.0015");
    expect(after.purchaseAmount.toFixed()).toBe("200");
    expect(after.remainingAmount.toFixed()).toBe("150");
    expect(after.costSol.toFixed()).toBe("0.3");
    // The held cost grows by the buy only: what the sale realized is not restated.
    expect(after.heldCostSol.toFixed()).toBe("0.2");
    expect(after.dcaOrders).toBe(2);
  });
});

describe("dcaWithinMinimumBalance", () => {
  test.each([
    // balance, order, minimum → allowed
    ["10", "0.5", "9.5", true],
    ["10", "0.500000001", "9.5", false],
    ["16", "8", "9.5", false],
    ["1", "0", "0.5", true],
    ["0.4", "0.1", "0", true],
  ])("balance %s, order %s, minimum %s → %p", (balance, amount, minimum, expected) => {
    expect(dcaWithinMinimumBalance(balance, amount, minimum)).toBe(expected);
  });
});
