import { expect, test } from "bun:test";
import fc from "fast-check";
import { Big, decStr, fromAtomic } from "../src/money.ts";

// decStr and fromAtomic are on every trade's path; their fast forms must give exactly what the
// plain big.js forms give (the references below are the earlier implementations).

function decStrReference(v: Big | string | number, dp = 18): string {
  const b = new Big(v).round(dp, Big.roundDown);
  const s = b.toFixed(dp);
  return s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s;
}
const fromAtomicReference = (atomic: bigint | string, decimals: number): Big =>
  new Big(atomic.toString()).div(new Big(10).pow(decimals));

const decimal = fc
  .tuple(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: -6, max: 40 }))
  .map(([m, k]) => (k >= 0 ? new Big(m.toString()).div(new Big(10).pow(k)) : new Big(m.toString()).times(10 ** -k)));

test("decStr: the same text as the padded-and-stripped form, for Big, string and number input", () => {
  for (const v of ["0", "-0", "1.500", "0.0000000000000000001", "-0.0000000000000000001", "1e21", "123", "1e-7"])
    for (const dp of [0, 2, 6, 9, 18]) expect(decStr(v, dp)).toBe(decStrReference(v, dp));
  expect(decStr(0.1 + 0.2)).toBe(decStrReference(0.1 + 0.2));
  fc.assert(
    fc.property(decimal, fc.constantFrom(0, 2, 6, 9, 12, 18, 24), fc.boolean(), (v, dp, asText) => {
      const input = asText ? v.toString() : v;
      expect(decStr(input, dp)).toBe(decStrReference(input, dp));
    }),
    { numRuns: 20_000 },
  );
});

test("fromAtomic: the same value as dividing by 10^decimals", () => {
  for (const [a, d] of [
    [0n, 9],
    [1n, 9],
    [-1n, 6],
    [1_000_000_000n, 9],
    [123n, 0],
    ["42", 3],
  ] as const)
    expect(fromAtomic(a, d).eq(fromAtomicReference(a, d))).toBe(true);
  fc.assert(
    fc.property(
      fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }),
      fc.integer({ min: 0, max: 30 }),
      fc.boolean(),
      (a, d, asText) => {
        const input = asText ? a.toString() : a;
        const got = fromAtomic(input, d);
        expect(got.eq(fromAtomicReference(input, d))).toBe(true);
        expect(decStr(got, 30)).toBe(decStrReference(fromAtomicReference(input, d), 30));
      },
    ),
    { numRuns: 20_000 },
  );
});
