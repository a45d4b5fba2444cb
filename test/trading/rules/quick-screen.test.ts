import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { Big } from "../../../src/money.ts";
import {
  dcaTriggerPrice,
  decidePositionAction,
  MS_PER_DAY,
  type PositionRulesConfig,
  type ScreenPosition,
  screenPosition,
  screenPrice,
  stopLossPrice,
  takeProfitLevelPrice,
} from "../../../src/trading/rules/index.ts";

// The screen may only ever say what the exact rules say: whenever it answers, decidePositionAction
// fires nothing and moves the peak the same way. Prices are drawn near every threshold (exactly
// at it, and a hair either side) as well as anywhere.

const OPENED = Date.parse("2026-01-01T00:00:00.000Z");

const base = (): PositionRulesConfig => ({
  stopLoss: { enabled: true, percentage: 25 },
  takeProfit: { enabled: false, percentage: 50, sellPercentage: 50, maxLevels: 3 },
  dca: { enabled: false, maxOrders: 3, priceDropTriggerPercentage: 10, amountPercentage: 50 },
  filters: { maxPositionAgeDays: null },
});

const position = (over: Partial<ScreenPosition> = {}): ScreenPosition => ({
  entryPriceSol: "0.0001",
  remainingAmount: "500",
  levelsHit: 0,
  moonBagActivated: false,
  dcaOrders: 0,
  openedAt: new Date(OPENED).toISOString(),
  peakPriceSol: "0.0001",
  ...over,
});

function exact(config: PositionRulesConfig, p: ScreenPosition, price: Big, nowMs: number) {
  return decidePositionAction({
    config,
    position: { ...p, tokenDecimals: 6, originalCostSol: "0.05", openedAtMs: Date.parse(p.openedAt) },
    priceSol: price,
    nowMs,
  });
}

/** Asserts agreement; returns the screen's answer. */
function agree(config: PositionRulesConfig, p: ScreenPosition, price: Big, nowMs: number) {
  const screen = screenPosition(config, p, screenPrice(price), nowMs);
  if (screen !== null) {
    const d = exact(config, p, price, nowMs);
    expect(d.action.kind).toBe("none");
    expect(d.peakChanged).toBe(screen === "price");
    expect(d.peakPriceSol.eq(screen === "price" ? price : new Big(p.peakPriceSol as string))).toBe(true);
  }
  return screen;
}

describe("screenPosition", () => {
  test("the monitor's common case is screened: a price 1 % up raises the peak, 1 % down keeps it", () => {
    const now = OPENED + MS_PER_DAY;
    expect(agree(base(), position(), new Big("0.000101"), now)).toBe("price");
    expect(agree(base(), position(), new Big("0.000099"), now)).toBe("kept");
    const all: PositionRulesConfig = {
      stopLoss: { enabled: true, percentage: 25 },
      takeProfit: { enabled: true, percentage: 50, sellPercentage: 50, maxLevels: 3 },
      dca: { enabled: true, maxOrders: 3, priceDropTriggerPercentage: 10, amountPercentage: 50 },
      filters: { maxPositionAgeDays: 7 },
    };
    expect(agree(all, position(), new Big("0.000101"), now)).toBe("price");
  });

  test("what is too close to call in doubles goes to the exact rules", () => {
    const now = OPENED + MS_PER_DAY;
    const at = (v: string) => screenPrice(new Big(v));
    // exactly at the stop price (0.000075)
    expect(screenPosition(base(), position(), at("0.000075"), now)).toBeNull();
    // a hair above it
    expect(screenPosition(base(), position(), at("0.000075000000000001"), now)).toBeNull();
    // a stop percentage whose 100 − x would cancel
    const near100 = { ...base(), stopLoss: { enabled: true, percentage: 99.99999 } };
    expect(screenPosition(near100, position(), at("0.00005"), now)).toBeNull();
    // exactly at the age limit
    const aged = { ...base(), filters: { maxPositionAgeDays: 1 } };
    expect(screenPosition(aged, position(), at("0.00009"), OPENED + MS_PER_DAY)).toBeNull();
    // not a number, tiny
    expect(screenPosition(base(), position({ peakPriceSol: "abc" }), at("0.00009"), now)).toBeNull();
    expect(screenPosition(base(), position({ peakPriceSol: "1e-20" }), at("1e-20"), now)).toBeNull();
  });

  test("the peak is decided exactly, also when the price is back at it", () => {
    const now = OPENED + MS_PER_DAY;
    // the same price as when the peak was set: unchanged
    expect(agree(base(), position(), new Big("0.0001"), now)).toBe("kept");
    // above it by less than a double can tell, in the 30th decimal
    const hair = new Big("0.0001").plus("1e-30");
    expect(agree(base(), position(), hair, now)).toBe("price");
    // below it by as little
    expect(agree(base(), position(), new Big("0.0001").minus("1e-30"), now)).toBe("kept");
  });

  test("property: whenever it answers, the exact rules fire nothing and move the peak the same way", () => {
    const decimal = fc
      .tuple(fc.bigInt({ min: 1n, max: 10n ** 15n }), fc.integer({ min: 0, max: 24 }))
      .map(([m, k]) => new Big(m.toString()).div(new Big(10).pow(k)));
    const pct = fc.oneof(
      fc.integer({ min: 1, max: 100 }),
      fc.double({ min: 0.5, max: 100, noNaN: true }),
      fc.constantFrom(25.3, 99.99999, 99.9999999999, 33.333333333333336),
    );
    const config = fc.record({
      stopLoss: fc.record({ enabled: fc.boolean(), percentage: pct }),
      takeProfit: fc.record({
        enabled: fc.boolean(),
        percentage: fc.oneof(pct, fc.integer({ min: 1, max: 10_000 })),
        sellPercentage: pct,
        maxLevels: fc.integer({ min: 1, max: 5 }),
      }),
      dca: fc.record({
        enabled: fc.boolean(),
        maxOrders: fc.integer({ min: 1, max: 5 }),
        priceDropTriggerPercentage: fc.oneof(pct, fc.constantFrom(20, 25, 50)),
        amountPercentage: pct,
      }),
      filters: fc.record({
        maxPositionAgeDays: fc.oneof(
          fc.constant(null),
          fc.integer({ min: 1, max: 30 }),
          fc.double({ min: 0.01, max: 30, noNaN: true }),
        ),
      }),
    });
    const pos = fc.record({
      entryPriceSol: decimal,
      peakFactor: fc.constantFrom("1", "1.01", "1.5", "3"),
      remainingAmount: fc.constantFrom("500", "0", "0.000001", "123.456"),
      levelsHit: fc.integer({ min: 0, max: 5 }),
      moonBagActivated: fc.boolean(),
      dcaOrders: fc.integer({ min: 0, max: 5 }),
    });
    const nudge = fc.constantFrom(
      "0",
      "1e-30",
      "-1e-30",
      "1e-18",
      "-1e-18",
      "0.0000000001",
      "-0.0000000001",
      "0.01",
      "-0.01",
    );
    fc.assert(
      fc.property(
        config,
        pos,
        fc.integer({ min: 0, max: 4 }),
        decimal,
        nudge,
        fc.integer({ min: 0, max: 40 * MS_PER_DAY }),
        (cfg, r, near, anywhere, delta, ageMs) => {
          const entry = r.entryPriceSol;
          const peak = entry.times(r.peakFactor);
          const p = position({
            entryPriceSol: entry.toString(),
            peakPriceSol: peak.toString(),
            remainingAmount: r.remainingAmount,
            levelsHit: r.levelsHit,
            moonBagActivated: r.moonBagActivated,
            dcaOrders: r.dcaOrders,
          });
          const level = r.levelsHit + 1;
          const targets = [
            anywhere,
            peak,
            stopLossPrice(peak, cfg.stopLoss.percentage),
            takeProfitLevelPrice(entry, cfg.takeProfit.percentage, level),
            dcaTriggerPrice(entry, cfg.dca.priceDropTriggerPercentage, r.dcaOrders + 1),
          ];
          const target = targets[near] as Big;
          const price = target.times(new Big(1).plus(delta));
          if (price.lte(0)) return;
          const now =
            near === 0 && delta === "0" ? OPENED + ageMs : OPENED + Math.round(ageMs / MS_PER_DAY) * MS_PER_DAY;
          agree(cfg, p, price, now);
        },
      ),
      { numRuns: 20_000 },
    );
  });
});
