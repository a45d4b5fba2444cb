// Heavy libraries that only some set-ups use, loaded on their first use instead of at start
// (docs/decisions.md "Performance", "Start-up and memory"): evaluating @solana/web3.js or
// grammy costs megabytes of resident memory and tens of milliseconds each.
// A simulation-only service with no Telegram token never needs either, so an `import` at the
// top of a module would make every start pay for them.
//
// `require` (not `await import()`): the call sites are synchronous (parsing a WALLET_N key,
// deserializing a transaction, building the bot), and Bun evaluates a required module on the
// first call only, from source as well as inside the compiled binary. The types stay static.

type Web3 = typeof import("@solana/web3.js");
type Grammy = typeof import("grammy");

let web3Module: Web3 | undefined;
let grammyModule: Grammy | undefined;

/** @solana/web3.js: live wallets and live trading only. */
export function web3(): Web3 {
  web3Module ??= require("@solana/web3.js") as Web3;
  return web3Module;
}

/** grammy: only when TELEGRAM_BOT_TOKEN is set. */
export function grammy(): Grammy {
  grammyModule ??= require("grammy") as Grammy;
  return grammyModule;
}
