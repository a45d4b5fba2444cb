import { describe, expect, test } from "bun:test";
import {
  decidePositionAction,
  type MonitoredPosition,
  MS_PER_DAY,
  type PositionRulesConfig,
} from "../../../src/trading/rules/index.ts";

const OPENED = Date.parse("2026-01-01T00:00:00.000Z");

const config = (over: Partial<PositionRulesConfig> = {}): PositionRulesConfig => ({
  stopLoss: { enabled: true, percentage: 25 },
  takeProfit: { enabled: true, percentage: 50, sellPercentage: 50, maxLevels: 3 },
  dca: { enabled: true, maxOrders: 3, priceDropTriggerPercentage: 10, amountPercentage: 50 },
  filters: { maxPositionAgeDays: 7 },
  ...over,
});
const position = (over: Partial<MonitoredPosition> = {}): MonitoredPosition => ({
  entryPriceSol: "1",
  remainingAmount: "100",
  levelsHit: 0,
  moonBagActivated: false,
  tokenDecimals: 6,
  dcaOrders: 0,
  originalCostSol: "1",
  openedAtMs: OPENED,
  peakPriceSol: "1",
  ...over,
});

const fresh = OPENED + MS_PER_DAY;
const old = OPENED + 7 * MS_PER_DAY + 1;

describe("decidePositionAction: one action per tick, in rule order", () => {
  test.each<[string, PositionRulesConfig, MonitoredPosition, string, number, string, string, boolean]>([
    // name, config, position, price, now, expected kind/reason, new peak, peak changed
    ["nothing applies", config(), position(), "1.1", fresh, "none", "1.1", true],
    ["price unchanged: peak unchanged", config(), position(), "1", fresh, "none", "1", false],
    ["stale beats a stop-loss", config(), position(), "0.1", old, "close:stale_trade", "1", false],
    ["stale beats take-profit", config(), position(), "2", old, "close:stale_trade", "2", true],
    ["exactly at the age limit is not stale", config(), position(), "1", OPENED + 7 * MS_PER_DAY, "none", "1", false],
    ["no age limit", config({ filters: { maxPositionAgeDays: null } }), position(), "1", old, "none", "1", false],
    [
      "stop-loss beats DCA (price below both triggers)",
      config(),
      position(),
      "0.75",
      fresh,
      "close:stop_loss",
      "1",
      false,
    ],
    ["DCA when above the stop price", config(), position(), "0.9", fresh, "dca", "1", false],
    [
      "DCA with stop-loss disabled",
      config({ stopLoss: { enabled: false, percentage: 25 } }),
      position(),
      "0.5",
      fresh,
      "dca",
      "1",
      false,
    ],
    [
      "stop-loss after a new peak",
      config(),
      position({ peakPriceSol: "2" }),
      "1.5",
      fresh,
      "close:stop_loss",
      "2",
      false,
    ],
    ["take-profit exactly at level 1", config(), position(), "1.5", fresh, "take_profit", "1.5", true],
    [
      "moon bag: no take-profit, no DCA",
      config(),
      position({ levelsHit: 3, moonBagActivated: true, peakPriceSol: "5" }),
      "4",
      fresh,
      "none",
      "5",
      false,
    ],
    [
      "moon bag: stop-loss still applies",
      config(),
      position({ levelsHit: 3, moonBagActivated: true, peakPriceSol: "5" }),
      "3.75",
      fresh,
      "close:stop_loss",
      "5",
      false,
    ],
    [
      "moon bag: stale still applies",
      config(),
      position({ levelsHit: 3, moonBagActivated: true, peakPriceSol: "5" }),
      "4",
      old,
      "close:stale_trade",
      "5",
      false,
    ],
  ])("%s", (_name, cfg, pos, price, now, expected, peak, changed) => {
    const d = decidePositionAction({ config: cfg, position: pos, priceSol: price, nowMs: now });
    const kind = d.action.kind === "close" ? `close:${d.action.reason}` : d.action.kind;
    expect(kind).toBe(expected);
    expect(d.peakPriceSol.toFixed()).toBe(peak);
    expect(d.peakChanged).toBe(changed);
  });

  test("a take-profit action carries the sale and the state to persist", () => {
    const d = decidePositionAction({ config: config(), position: position(), priceSol: "3", nowMs: fresh });
    expect(d.action.kind).toBe("take_profit");
    if (d.action.kind !== "take_profit") return;
    expect({
      level: d.action.level,
      levelPriceSol: d.action.levelPriceSol.toFixed(),
      sellAmount: d.action.sellAmount.toFixed(),
      remainingAfter: d.action.remainingAfter.toFixed(),
      levelsHit: d.action.levelsHit,
      moonBagActivated: d.action.moonBagActivated,
      moonBagAmount: d.action.moonBagAmount,
      closesPosition: d.action.closesPosition,
    }).toEqual({
      level: 1,
      levelPriceSol: "1.5",
      sellAmount: "50",
      remainingAfter: "50",
      levelsHit: 1,
      moonBagActivated: false,
      moonBagAmount: null,
      closesPosition: false,
    });
  });

  test("a DCA action carries the order and its SOL amount", () => {
    const d = decidePositionAction({ config: config(), position: position(), priceSol: "0.9", nowMs: fresh });
    expect(d.action.kind).toBe("dca");
    if (d.action.kind !== "dca") return;
    expect([d.action.order, d.action.amountSol.toFixed(), d.action.triggerPriceSol.toFixed()]).toEqual([
      1,
      "0.5",
      "0.9",
    ]);
  });

  test("close actions say why, for the log", () => {
    const stop = decidePositionAction({
      config: config(),
      position: position({ peakPriceSol: "2" }),
      priceSol: "1.5",
      nowMs: fresh,
    });
    expect(stop.action).toEqual({
      kind: "close",
      reason: "stop_loss",
      detail: "Price 1.5 SOL is at or below the stop price 1.5 SOL (peak 2)",
    });
    const stale = decidePositionAction({ config: config(), position: position(), priceSol: "1", nowMs: old });
    expect(stale.action).toEqual({ kind: "close", reason: "stale_trade", detail: "Position older than 7 days" });
  });
});
