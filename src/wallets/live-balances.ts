import { type Clock, isoNow } from "../clock.ts";
import { inTransaction, type SqliteHandle } from "../db/client.ts";
import { findBalance, recordedTokenMints } from "../db/repositories/balances.ts";
import { PositionRepository } from "../db/repositories/positions.ts";
import { ConflictError } from "../errors.ts";
import { readBalance, setBalance } from "../ledgers/balance-ledger.ts";
import { recordBalanceSnapshot } from "../ledgers/balance-snapshots.ts";
import type { Logger } from "../logger.ts";
import type { ChainBalances, SolanaRpcClient } from "../market/solana-rpc.ts";
import { Big, decStr, fromAtomic, SOL_DECIMALS, SOL_MINT } from "../money.ts";
import type { LiveDepositChecker } from "./wallet-service.ts";

// A live wallet's recorded balances are a mirror of the chain: SOL from
// getBalance, each token from getTokenAccountsByOwner over both token programs, written with
// setBalance after each live trade and on demand (POST /wallets/:address/check-deposits). Setting,
// never adding: whatever happened on chain (fees, rent, a deposit, a withdrawal), the ledger ends
// equal to it, and recording a trade that already happened on chain can never fail on arithmetic.

type Handle = SqliteHandle;

export interface BalanceChange {
  tokenAddress: string;
  before: string;
  after: string;
}

export interface MirrorOptions {
  now: string;
  /** Token mints to mirror (SOL always is). Absent: every mint on chain and every one recorded. */
  mints?: readonly string[];
  /** Symbol for a token row the mirror creates. */
  symbolOf?: (mint: string) => string | undefined;
}

/**
 * Sets the wallet's recorded SOL and token balances to the chain's. Synchronous: call it inside
 * the settling transaction. Returns what changed.
 */
export function mirrorChainBalances(
  h: Handle,
  key: { agentId: string; walletAddress: string },
  chain: ChainBalances,
  opts: MirrorOptions,
): BalanceChange[] {
  const changes: BalanceChange[] = [];
  const apply = (tokenAddress: string, value: Big, decimals: number, symbol: string) => {
    const k = { ...key, tokenAddress };
    const before = readBalance(h, k);
    const exists = findBalance(h, k) !== null;
    if (!exists && value.eq(0)) return; // nothing held, nothing recorded: no empty row
    if (exists && before.eq(value)) return;
    setBalance(h, k, value, { now: opts.now, tokenSymbol: symbol, decimals });
    changes.push({ tokenAddress, before: decStr(before), after: decStr(value) });
  };
  apply(SOL_MINT, fromAtomic(chain.lamports, SOL_DECIMALS), SOL_DECIMALS, "SOL");
  let mints: string[];
  if (opts.mints) mints = [...opts.mints];
  else {
    const recorded = recordedTokenMints(h, key.agentId, key.walletAddress);
    mints = [...new Set([...chain.tokens.keys(), ...recorded])].filter((m) => m !== SOL_MINT);
  }
  for (const mint of mints) {
    if (mint === SOL_MINT) continue;
    const held = chain.tokens.get(mint);
    const decimals = held?.decimals ?? recordedDecimals(h, key, mint) ?? 0;
    const value = held ? fromAtomic(held.amount, held.decimals) : new Big(0);
    const symbol = opts.symbolOf?.(mint) ?? new PositionRepository(h.sqlite).latestSymbol(key.agentId, mint);
    apply(mint, value, decimals, symbol ?? mint.slice(0, 6));
  }
  return changes;
}

function recordedDecimals(h: Handle, key: { agentId: string; walletAddress: string }, mint: string): number | null {
  return findBalance(h, { ...key, tokenAddress: mint })?.decimals ?? null;
}

/** SOL plus open positions at their last known price (entry price until priced), as the engine's snapshots count it. */
function walletValueSol(h: Handle, agentId: string, walletAddress: string, sol: Big): Big {
  const rows = new PositionRepository(h.sqlite).openHoldings(agentId, walletAddress);
  return rows.reduce((t, r) => t.plus(new Big(r.remaining).times(r.price)), sol);
}

export interface LiveDepositDeps {
  sqlite: SqliteHandle["sqlite"];
  clock: Clock;
  logger: Logger;
  rpc: Pick<SolanaRpcClient, "getBalances">;
  /** True while a swap of the wallet is in doubt (the live trade journal). */
  hasUnresolvedTrade(walletAddress: string): boolean;
  /** USD per SOL when known without I/O (the snapshot's USD value), else null. */
  solUsd(): Big | null;
}

const DEPOSIT_CHECK_PENDING_MESSAGE =
  "A live trade of this wallet is awaiting confirmation; check deposits again once it is reconciled";

/**
 * POST /wallets/:walletAddress/check-deposits for live wallets (SPEC "Wallet endpoints"): reads
 * the wallet's balances on chain, counts every balance (SOL or a token) that is higher than the
 * recorded one as a deposit, mirrors all of them, and records a balance snapshot with reason
 * "deposit" when it found any. newBalance is the SOL balance on chain.
 */
export class LiveDepositService implements LiveDepositChecker {
  constructor(private readonly d: LiveDepositDeps) {}

  async checkDeposits(input: {
    agentId: string;
    walletAddress: string;
  }): Promise<{ depositsFound: number; newBalance: string }> {
    const { agentId, walletAddress } = input;
    // A swap in flight moves balances the ledger has not recorded yet: not a deposit.
    if (this.d.hasUnresolvedTrade(walletAddress)) throw new ConflictError(DEPOSIT_CHECK_PENDING_MESSAGE);
    const chain = await this.d.rpc.getBalances(walletAddress);
    const now = isoNow(this.d.clock);
    const h = { sqlite: this.d.sqlite };
    const sol = fromAtomic(chain.lamports, SOL_DECIMALS);
    const solUsd = this.d.solUsd();
    const changes = inTransaction(h, () => {
      const ch = mirrorChainBalances(h, { agentId, walletAddress }, chain, { now });
      if (ch.some((c) => new Big(c.after).gt(c.before))) {
        const total = walletValueSol(h, agentId, walletAddress, sol);
        recordBalanceSnapshot(h, {
          agentId,
          walletAddress,
          solBalance: decStr(sol),
          totalValueSol: decStr(total, 9),
          totalValueUsd: solUsd ? decStr(total.times(solUsd), 2) : null,
          reason: "deposit",
          now,
        });
      }
      return ch;
    });
    const deposits = changes.filter((c) => new Big(c.after).gt(c.before));
    const withdrawals = changes.filter((c) => new Big(c.after).lt(c.before));
    this.d.logger.info("live wallet balances checked", {
      agentId,
      walletAddress,
      depositsFound: deposits.length,
      deposits,
      withdrawals,
      solBalance: decStr(sol),
    });
    return { depositsFound: deposits.length, newBalance: decStr(sol) };
  }
}
