import { expect, test } from "bun:test";
import { explorerHref } from "../../src/dashboard/ui/explorer.ts";

// Explorer links (issue 34 item 7): EXPLORER_URL's page of a transaction, wallet or token; a
// query such as ?cluster=devnet is kept; simulated ids (sim_…) and an empty EXPLORER_URL give none.

const MINT = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
const SIG = "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW";

test.each([
  ["a token on Solscan", "token", MINT, "https://solscan.io", `https://solscan.io/token/${MINT}`],
  ["a transaction", "tx", SIG, "https://solscan.io", `https://solscan.io/tx/${SIG}`],
  ["a wallet", "account", MINT, "https://solscan.io", `https://solscan.io/account/${MINT}`],
  [
    "another explorer with a path and a query",
    "tx",
    SIG,
    "https://explorer.example/solana?cluster=devnet",
    `https://explorer.example/solana/tx/${SIG}?cluster=devnet`,
  ],
  ["a simulated transaction", "tx", "sim_0123456789abcdef0123456789abcdef", "https://solscan.io", null],
  ["a simulated wallet", "account", `sim_${MINT}`, "https://solscan.io", null],
  ["no id", "tx", null, "https://solscan.io", null],
  ["links turned off (EXPLORER_URL empty)", "token", MINT, "", null],
] as const)("%s", (_, kind, id, base, expected) => {
  expect(explorerHref(kind, id, base)).toBe(expected);
});
