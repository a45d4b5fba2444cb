import type { Clock } from "../../clock.ts";
import { SOL_MINT } from "../../money.ts";
import type { LandedTransaction } from "../landed-transaction.ts";
import { type SignatureInfo, SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from "../solana-rpc.ts";
import type { SignaturePage, WalletActivitySource } from "../wallet-activity.ts";
import { DemoMarketState } from "./providers.ts";
import { seededBase58, uniform } from "./seeded.ts";
import { DEMO_TOKENS, demoAddress } from "./tokens.ts";

// Synthetic wallets for copy trading on the demo market (DEMO_MARKET=true; README "Copy
// trading"). As with the demo whales, time is cut into buckets; whether a wallet trades in a
// bucket, when, which demo token, which side and how much SOL (log-uniform 0.02 to 3 SOL, so some
// trades fall under the default 0.1 SOL minimum) are pure functions of (wallet, bucket). Each
// trade is served as the node would serve it: a signature list and a transaction with pre/post
// balances and token balances, at the walk's prices of that moment. About one transaction in ten
// fails on chain (meta.err), as real ones do.

const DEMO_COPY_BUCKET_MS = 30_000;
const HISTORY_MS = 3_600_000;
const TRADE_PROBABILITY = 0.35;
const FEE = 5_000n;
const START_LAMPORTS = 5_000n * 1_000_000_000n;
const TOKEN_ACCOUNT_RENT = 2_039_280n;
const POOL_LAMPORTS = 1_000_000n * 1_000_000_000n;
/** The PumpSwap AMM program (src/copytrading/dex-programs.ts). */
const DEMO_DEX = "pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA";

/** A transfer's data: the instruction tag (System: u32 at 0; SPL token: one byte), then the u64 amount. */
function leg(tag: number, amount: bigint, amountAt: 1 | 4): Uint8Array {
  const d = new Uint8Array(amountAt + 8);
  d[0] = tag;
  new DataView(d.buffer).setBigUint64(amountAt, amount, true);
  return d;
}

/** The demo's followable wallets: readable 32-byte base58 addresses like the demo tokens'. */
export const DEMO_COPY_WALLETS: ReadonlyArray<{ address: string; label: string }> = Object.freeze([
  { address: demoAddress("CopyAnt"), label: "Demo ant (small, frequent)" },
  { address: demoAddress("CopyBee"), label: "Demo bee (mid-size)" },
  { address: demoAddress("CopyShark"), label: "Demo shark (large, rare)" },
]);

interface DemoTrade {
  signature: string;
  at: number;
  tx: LandedTransaction;
}

export class DemoCopyWallets implements WalletActivitySource {
  private readonly market: DemoMarketState;

  constructor(private readonly clock: Pick<Clock, "now">) {
    this.market = new DemoMarketState(clock);
  }

  allow(): boolean {
    return true;
  }

  private trade(wallet: number, bucket: number): DemoTrade | null {
    const size = [1, 2.5, 6][wallet] ?? 1;
    if (uniform(61, wallet, bucket) >= TRADE_PROBABILITY / size) return null;
    const at = Math.floor(bucket * DEMO_COPY_BUCKET_MS + uniform(62, wallet, bucket) * DEMO_COPY_BUCKET_MS);
    if (at > this.clock.now()) return null;
    const token = DEMO_TOKENS[Math.floor(uniform(63, wallet, bucket) * 8)]!;
    const buy = uniform(64, wallet, bucket) < 0.65;
    const sol = Math.exp(Math.log(0.02) + uniform(65, wallet, bucket) * Math.log(150)) * size;
    const lamports = BigInt(Math.round(sol * 1e9));
    const units = (sol * this.market.priceUsd(SOL_MINT, at)) / this.market.priceUsd(token.address, at);
    const atomic = BigInt(Math.max(1, Math.round(units * 10 ** token.decimals)));
    const owner = DEMO_COPY_WALLETS[wallet]!.address;
    const held = atomic * 10n;
    const failed = uniform(66, wallet, bucket) < 0.1;
    const solAfter = failed ? START_LAMPORTS - FEE : START_LAMPORTS - FEE + (buy ? -lamports : lamports);
    const tokensAfter = failed ? held : held + (buy ? atomic : -atomic);
    // The wallet's token account is the fourth key, as a node lists the accounts a swap touches.
    const entry = (amount: bigint) => ({
      accountIndex: 3,
      mint: token.address,
      owner,
      amount,
      decimals: token.decimals,
    });
    const signature = seededBase58(64, 67, wallet, bucket);
    const pool = demoAddress("CopyAmm");
    const tokenAccount = seededBase58(32, 68, wallet, token.decimals);
    const poolVault = seededBase58(32, 69, wallet, token.decimals);
    const poolAfter = failed ? POOL_LAMPORTS : POOL_LAMPORTS + (buy ? lamports : -lamports);
    return {
      signature,
      at,
      tx: {
        slot: Math.floor(at / 400),
        blockTime: Math.floor(at / 1000),
        err: failed ? { InstructionError: [2, { Custom: 6001 }] } : null,
        feeLamports: FEE,
        accountKeys: [
          owner,
          pool,
          token.address,
          tokenAccount,
          poolVault,
          DEMO_DEX,
          TOKEN_PROGRAM_ID,
          SYSTEM_PROGRAM_ID,
        ],
        preBalances: [START_LAMPORTS, POOL_LAMPORTS, 0n, TOKEN_ACCOUNT_RENT, TOKEN_ACCOUNT_RENT, 1n, 1n, 1n],
        postBalances: [solAfter, poolAfter, 0n, TOKEN_ACCOUNT_RENT, TOKEN_ACCOUNT_RENT, 1n, 1n, 1n],
        // Signed by the wallet, swapping through a DEX program whose calls move the SOL (a buy's
        // System transfer; a sale's SOL the pool pays out by writing lamports) and the token: a
        // trade copy trading counts (src/copytrading/detect.ts).
        signers: [owner],
        instructions: [
          {
            program: DEMO_DEX,
            accounts: [owner, pool, token.address, tokenAccount, poolVault],
            data: new Uint8Array([1]),
            inner: failed
              ? []
              : buy
                ? [
                    { program: SYSTEM_PROGRAM_ID, accounts: [owner, pool], data: leg(2, lamports, 4), stackHeight: 2 },
                    {
                      program: TOKEN_PROGRAM_ID,
                      accounts: [poolVault, tokenAccount, pool],
                      data: leg(3, atomic, 1),
                      stackHeight: 2,
                    },
                  ]
                : [
                    {
                      program: TOKEN_PROGRAM_ID,
                      accounts: [tokenAccount, poolVault, owner],
                      data: leg(3, atomic, 1),
                      stackHeight: 2,
                    },
                  ],
          },
        ],
        preTokenBalances: [entry(held)],
        postTokenBalances: [entry(tokensAfter)],
      },
    };
  }

  /** The wallet's trades of the last hour, newest first. */
  private trades(address: string): DemoTrade[] {
    const wallet = DEMO_COPY_WALLETS.findIndex((w) => w.address === address);
    if (wallet < 0) return [];
    const now = this.clock.now();
    const out: DemoTrade[] = [];
    for (
      let b = Math.floor(now / DEMO_COPY_BUCKET_MS);
      b >= Math.floor((now - HISTORY_MS) / DEMO_COPY_BUCKET_MS);
      b--
    ) {
      const t = this.trade(wallet, b);
      if (t) out.push(t);
    }
    return out;
  }

  async signatures(address: string, page: SignaturePage): Promise<SignatureInfo[]> {
    const out: SignatureInfo[] = [];
    const trades = this.trades(address);
    const from = page.before === null ? 0 : trades.findIndex((t) => t.signature === page.before) + 1 || trades.length;
    for (const t of trades.slice(from)) {
      if (t.signature === page.until || out.length >= page.limit) break;
      out.push({ signature: t.signature, slot: t.tx.slot, err: t.tx.err, blockTime: t.tx.blockTime ?? null });
    }
    return out;
  }

  async transaction(signature: string): Promise<LandedTransaction | null> {
    for (const w of DEMO_COPY_WALLETS) {
      const t = this.trades(w.address).find((x) => x.signature === signature);
      if (t) return t.tx;
    }
    return null;
  }
}
