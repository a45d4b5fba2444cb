import { expect, test } from "bun:test";
import { fmtNum, fmtSol, fmtUsd, heldFor } from "../../src/dashboard/ui/format.ts";

// Prices of micro-priced tokens keep their significant digits on the dashboard (issue: a
// 0.000000142857 price showed as 0.00000014, so two different prices looked equal).

test("below 1: four significant digits, however small", () => {
  expect(fmtNum(0.000000142857)).toBe("0.0000001429");
  expect(fmtNum("0.00000014")).toBe("0.00000014");
  expect(fmtNum(0.000000145)).not.toBe(fmtNum(0.000000142857));
  expect(fmtNum(0.0123456)).toBe("0.01235");
  expect(fmtNum(-0.5)).toBe("-0.5");
  expect(fmtNum(0)).toBe("0");
});

test("from 1 up: the given number of decimals; missing values are a dash", () => {
  expect(fmtNum(1234.56789)).toBe("1,234.5679");
  expect(fmtNum(2.5, 2)).toBe("2.5");
  expect(fmtNum(null)).toBe("–");
  expect(fmtSol("9.49785572")).toBe("9.4979 SOL");
});

test("USD: cents from 1 up, significant digits below", () => {
  expect(fmtUsd(17.264572)).toBe("$17.26");
  expect(fmtUsd("0.00002")).toBe("$0.00002");
  expect(fmtUsd(-0.0000214567)).toBe("−$0.00002146");
});

test("heldFor: minutes, then hours and minutes, then days and hours", () => {
  const at = Date.parse("2026-01-03T12:00:00Z");
  expect(heldFor("2026-01-03T11:15:30Z", at)).toBe("44 min");
  expect(heldFor("2026-01-03T06:48:00Z", at)).toBe("5 h 12 min");
  expect(heldFor("2025-12-31T08:00:00Z", at)).toBe("3 d 4 h");
  expect(heldFor("2026-01-03T12:00:05Z", at)).toBe("0 min"); // a clock a little ahead is not negative
});
