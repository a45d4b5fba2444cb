import { expect, test } from "bun:test";
import { resolveToken } from "../../src/dashboard/ui/names.ts";

// The strategy editor's token picker: what an entry resolves to. Symbols are not unique, so one
// naming several mints must be picked from the suggestions (which carry the mint).

const BONK = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
const WIF = "EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm";
const FAKE_BONK = "So11111111111111111111111111111111111111112";
const known = new Map([
  [BONK, "BONK"],
  [WIF, "WIF"],
]);

test.each([
  ["a symbol, any case", "wif", known, { mint: WIF }],
  ["a pasted mint", ` ${BONK} `, known, { mint: BONK }],
  ["a suggestion: symbol and mint", `BONK ${BONK}`, known, { mint: BONK }],
  ["an unknown mint is still a mint", FAKE_BONK, new Map(), { mint: FAKE_BONK }],
  ["an unknown symbol", "NOPE", known, { error: "No token called NOPE among your signals: paste its mint address" }],
  [
    "a symbol two mints share",
    "bonk",
    new Map([...known, [FAKE_BONK, "BONK"]]),
    { error: "Several tokens are called bonk: pick one from the list (it shows each mint)" },
  ],
])("%s", (_name, entry, symbols, expected) => {
  expect(resolveToken(entry, symbols)).toEqual(expected);
});
