// The DEX programs a copied trade must swap through (docs/decisions/copy-trading-steering.md):
// the one list. A transaction of a followed wallet is copied only when one of its instructions
// (top level, or called from one) belongs to a program here or in WALLET_WATCH_EXTRA_PROGRAMS,
// and the SOL that left the wallet went into that instruction's accounts. Mainnet program ids, as
// the programs declare them and public decoders use them (e.g. github.com/wwb413/solanaj
// parse/bean/Consts.java; sonarwatch/portfolio plugins/pumpfun/constants.ts;
// Web3-Agora/substreams-solana meteora/src/constant/constant.rs).

const DEX_PROGRAMS: Readonly<Record<string, string>> = {
  JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4: "Jupiter v6 aggregator",
  "675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8": "Raydium AMM v4",
  CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C: "Raydium CPMM",
  CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK: "Raydium CLMM",
  whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc: "Orca Whirlpool",
  LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo: "Meteora DLMM",
  Eo7WjKq67rjJQSZxS6z3YkapzY3eMj6Xy8X5EQVn5UaB: "Meteora DAMM v1 (dynamic pools)",
  cpamdpZCGKUy5JxQXB4dcpGPiikHawvSWAd6mEn1sGG: "Meteora DAMM v2",
  "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P": "Pump.fun",
  pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA: "PumpSwap",
};

/** The built-in list plus WALLET_WATCH_EXTRA_PROGRAMS. */
export function dexProgramSet(extra: readonly string[]): ReadonlySet<string> {
  return new Set([...Object.keys(DEX_PROGRAMS), ...extra]);
}
