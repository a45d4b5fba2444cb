import type { DatabaseHandle } from "../db/client.ts";
import { WalletWatchRepository, type WalletWatchRow } from "../db/repositories/wallet-watches.ts";
import { Big, decStr, fromAtomic } from "../money.ts";
import type { SourceLimitResult, SourceLimits } from "../trading/source-limits.ts";

// Per-watch copy limits (docs/decisions/copy-trading-steering.md): what one followed wallet can
// make an agent buy. A buy signal of source `wallet:<address>` is checked, per agent, against its
// owner's watch of that address: the size is at most maxSolPerTrade (the agent's sizing when
// smaller); refused when the agent already holds maxOpenPositions positions opened from this
// wallet's signals, or when the SOL its buys from this wallet swapped today (UTC) plus this one
// would pass dailySolBudget. The signal processor asks before its balance check and records a
// refusal with its rule, like every other rule, in the signal's processing.
//
// A watch group's signal (`group:<name>`, issue 41 item 3) is bounded the same way by the
// smallest of each limit among its members' watches, and counted against its own budgets: the
// positions and SOL of the group's signals, apart from each member's own copies. Live buys whose
// outcome is unknown count in both (WalletWatchRepository.copiedExposure).

interface WatchLimits {
  maxSolPerTrade: Big;
  maxOpenPositions: number;
  dailySolBudget: Big;
}

/** Whose limits apply, for the reasons: one watch's, or a group's (its members'). */
type LimitsOf = "wallet" | "group";

/** The rule itself, over what the agent already holds and spent from this source. */
function applyWatchLimits(
  limits: WatchLimits,
  of: LimitsOf,
  exposure: { open: number; spentToday: Big },
  sizeSol: Big,
): SourceLimitResult {
  const allows = of === "wallet" ? "the watch allows" : "its members' watches allow";
  const budget = of === "wallet" ? "the watch's daily budget" : "the group's daily budget (its members' smallest)";
  if (exposure.open >= limits.maxOpenPositions)
    return {
      eligible: false,
      rule: "copy_max_open_positions",
      reason: `${exposure.open} positions copied from this ${of} are open (${allows} ${limits.maxOpenPositions})`,
    };
  const size = sizeSol.gt(limits.maxSolPerTrade) ? limits.maxSolPerTrade : sizeSol;
  if (exposure.spentToday.plus(size).gt(limits.dailySolBudget))
    return {
      eligible: false,
      rule: "copy_daily_budget",
      reason: `${exposure.spentToday.toFixed()} SOL copied from this ${of} today; ${size.toFixed()} more would pass ${budget} of ${limits.dailySolBudget.toFixed()} SOL`,
    };
  return { eligible: true, sizeSol: size };
}

const sol = (lamports: string) => new Big(decStr(fromAtomic(lamports, 9), 9));

const limitsOfWatch = (w: WalletWatchRow): WatchLimits => ({
  maxSolPerTrade: sol(w.maxSolPerTradeLamports),
  maxOpenPositions: w.maxOpenPositions,
  dailySolBudget: sol(w.dailySolBudgetLamports),
});

/** Each limit the smallest among the members' (a group can do no more than its most careful watch). */
function smallest(all: WatchLimits[]): WatchLimits {
  return all.reduce((a, b) => ({
    maxSolPerTrade: b.maxSolPerTrade.lt(a.maxSolPerTrade) ? b.maxSolPerTrade : a.maxSolPerTrade,
    maxOpenPositions: Math.min(a.maxOpenPositions, b.maxOpenPositions),
    dailySolBudget: b.dailySolBudget.lt(a.dailySolBudget) ? b.dailySolBudget : a.dailySolBudget,
  }));
}

export class CopyLimits implements SourceLimits {
  private readonly watches: WalletWatchRepository;

  constructor(database: DatabaseHandle) {
    this.watches = new WalletWatchRepository(database);
  }

  /** The limits of a signal's source: its watch's, or its group's members'; null for other sources. */
  private limitsOf(userId: string, source: string | null): { limits: WatchLimits; of: LimitsOf } | null {
    if (source?.startsWith("wallet:")) {
      const watch = this.watches.byAddress(userId, source.slice("wallet:".length));
      return watch ? { limits: limitsOfWatch(watch), of: "wallet" } : null;
    }
    if (source?.startsWith("group:")) {
      const members = this.watches.groupMembers(userId, source.slice("group:".length));
      return members.length > 0 ? { limits: smallest(members.map(limitsOfWatch)), of: "group" } : null;
    }
    return null;
  }

  check(
    signal: { userId: string; source: string | null },
    agentId: string,
    sizeSol: Big,
    nowMs: number,
  ): SourceLimitResult {
    const found = this.limitsOf(signal.userId, signal.source);
    if (!found) return { eligible: true, sizeSol };
    const dayStart = new Date(Math.floor(nowMs / 86_400_000) * 86_400_000).toISOString();
    const exposure = this.watches.copiedExposure(agentId, signal.source!, dayStart);
    return applyWatchLimits(
      found.limits,
      found.of,
      { open: exposure.open, spentToday: exposure.openingSol.reduce((a, s) => a.plus(s), new Big(0)) },
      sizeSol,
    );
  }
}
