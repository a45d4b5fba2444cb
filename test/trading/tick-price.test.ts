import { expect, test } from "bun:test";
import fc from "fast-check";
import { Big, decStr } from "../../src/money.ts";
import { canonicalDecimal, tickPrice } from "../../src/trading/tick-price.ts";

// The monitor writes canonicalDecimal(stored peak) where it used to write decStr(Big(stored peak)),
// and the tick price's texts where it used to compute them per position: the same text either way.

test("canonicalDecimal is decStr, for stored text in any form", () => {
  for (const v of ["0", "1", "0.0001", "1.500", "01", "0.0", "1e-7", "-0.5", "123.000000000000000000001"])
    expect(canonicalDecimal(v)).toBe(decStr(v));
  const decimal = fc
    .tuple(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.integer({ min: 0, max: 24 }))
    .map(([m, k]) => new Big(m.toString()).div(new Big(10).pow(k)));
  fc.assert(
    fc.property(decimal, fc.constantFrom("decStr", "toFixed", "toString"), (v, form) => {
      const text = form === "decStr" ? decStr(v) : form === "toFixed" ? v.toFixed(24) : v.toString();
      expect(canonicalDecimal(text)).toBe(decStr(text));
    }),
  );
});

test("a token's tick price: texts as decStr makes them; the screen's text only when exact", () => {
  const p = tickPrice("0.0101", new Big(100));
  expect(p.sol).toBe("0.000101");
  expect(p.usd).toBe("0.0101");
  expect(p.screen.text).toBe("0.000101");
  expect(p.screen.approx).toBe(0.000101);
  const third = tickPrice("1", new Big(3));
  expect(third.sol).toBe(decStr(new Big(1).div(3)));
  expect(third.screen.text).toBeNull();
});
