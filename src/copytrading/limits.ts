import type { DatabaseHandle } from "../db/client.ts";
import { WalletWatchRepository } from "../db/repositories/wallet-watches.ts";
import { Big, decStr, fromAtomic } from "../money.ts";
import type { SourceLimitResult, SourceLimits } from "../trading/source-limits.ts";

// Per-watch copy limits (docs/decisions/copy-trading-steering.md): what one followed wallet can
// make an agent buy. A buy signal of source `wallet:<address>` is checked, per agent, against its
// owner's watch of that address: the size is at most maxSolPerTrade (the agent's sizing when
// smaller); refused when the agent already holds maxOpenPositions positions opened from this
// wallet's signals, or when the SOL its buys from this wallet swapped today (UTC) plus this one
// would pass dailySolBudget. The signal processor asks before its balance check and records a
// refusal with its rule, like every other rule, in the signal's processing.

interface WatchLimits {
  maxSolPerTrade: Big;
  maxOpenPositions: number;
  dailySolBudget: Big;
}

/** The rule itself, over what the agent already holds and spent from this wallet. */
function applyWatchLimits(
  limits: WatchLimits,
  exposure: { open: number; spentToday: Big },
  sizeSol: Big,
): SourceLimitResult {
  if (exposure.open >= limits.maxOpenPositions)
    return {
      eligible: false,
      rule: "copy_max_open_positions",
      reason: `${exposure.open} positions copied from this wallet are open (the watch allows ${limits.maxOpenPositions})`,
    };
  const size = sizeSol.gt(limits.maxSolPerTrade) ? limits.maxSolPerTrade : sizeSol;
  if (exposure.spentToday.plus(size).gt(limits.dailySolBudget))
    return {
      eligible: false,
      rule: "copy_daily_budget",
      reason: `${exposure.spentToday.toFixed()} SOL copied from this wallet today; ${size.toFixed()} more would pass the watch's daily budget of ${limits.dailySolBudget.toFixed()} SOL`,
    };
  return { eligible: true, sizeSol: size };
}

const sol = (lamports: string) => new Big(decStr(fromAtomic(lamports, 9), 9));

export class CopyLimits implements SourceLimits {
  private readonly watches: WalletWatchRepository;

  constructor(database: DatabaseHandle) {
    this.watches = new WalletWatchRepository(database);
  }

  check(
    signal: { userId: string; source: string | null },
    agentId: string,
    sizeSol: Big,
    nowMs: number,
  ): SourceLimitResult {
    const address = signal.source?.startsWith("wallet:") ? signal.source.slice("wallet:".length) : null;
    const watch = address ? this.watches.byAddress(signal.userId, address) : undefined;
    if (!watch) return { eligible: true, sizeSol };
    const dayStart = new Date(Math.floor(nowMs / 86_400_000) * 86_400_000).toISOString();
    const exposure = this.watches.copiedExposure(agentId, signal.source!, dayStart);
    return applyWatchLimits(
      {
        maxSolPerTrade: sol(watch.maxSolPerTradeLamports),
        maxOpenPositions: watch.maxOpenPositions,
        dailySolBudget: sol(watch.dailySolBudgetLamports),
      },
      { open: exposure.open, spentToday: exposure.openingSol.reduce((a, s) => a.plus(s), new Big(0)) },
      sizeSol,
    );
  }
}
