import { expect, test } from "bun:test";
import { evaluateStale, MS_PER_DAY } from "../../../src/trading/rules/index.ts";

const OPENED = Date.parse("2026-01-01T00:00:00.000Z");

test.each<[string, number | string | null, number, boolean]>([
  ["null never expires", null, 10_000 * MS_PER_DAY, false],
  ["younger than the limit", 7, 7 * MS_PER_DAY - 1, false],
  ["exactly at the limit is not stale", 7, 7 * MS_PER_DAY, false],
  ["one ms past the limit", 7, 7 * MS_PER_DAY + 1, true],
  ["fractional days: exactly 12 h", 0.5, 12 * 3_600_000, false],
  ["fractional days: past 12 h", "0.5", 12 * 3_600_000 + 1, true],
  ["0 days: at opening", 0, 0, false],
  ["0 days: 1 ms later", 0, 1, true],
])("%s", (_name, maxDays, ageMs, stale) => {
  const d = evaluateStale({ maxPositionAgeDays: maxDays }, OPENED, OPENED + ageMs);
  expect(d.stale).toBe(stale);
  if (d.stale) expect(d).toEqual({ stale: true, ageMs, maxAgeMs: Number(maxDays) * MS_PER_DAY });
});
