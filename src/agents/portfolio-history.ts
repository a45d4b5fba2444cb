import type { Clock } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import {
  insertPortfolioSnapshot,
  prunePortfolioSnapshots,
  usersWithAgents,
} from "../db/repositories/portfolio-snapshots.ts";
import type { Logger } from "../logger.ts";
import { Big, decStr } from "../money.ts";
import { TickLoop } from "../tick-loop.ts";
import type { OpenPositionSource } from "./open-positions.ts";
import { computePortfolio, utcDayStart } from "./portfolio.ts";

// Account value over time per user and mode (issue 34 item 7; docs/decisions/portfolio-history.md).
// Once per 5-minute slot, each user with agents gets one point per mode that has wallets: the
// portfolio's totals as GET /portfolio computes them (SOL in the wallets + open positions marked
// at the current price; P/L = realized + unrealized). Points older than 30 days are deleted.

export const SNAPSHOT_INTERVAL_MS = 5 * 60_000;
export const SNAPSHOT_RETENTION_MS = 30 * 86_400_000;
/** How often the loop looks whether a new slot began (a slot is never missed by more than this). */
const CHECK_EVERY_MS = 60_000;

/**
 * The snapshot rule: the start of the slot `now` falls in when no point was taken in it yet
 * (`lastSlot` is the slot of the last point, null before the first), else null. A clock that
 * went back never writes into a slot before the last one.
 */
export function snapshotSlot(now: number, lastSlot: number | null, intervalMs = SNAPSHOT_INTERVAL_MS): number | null {
  const slot = Math.floor(now / intervalMs) * intervalMs;
  return lastSlot === null || slot > lastSlot ? slot : null;
}

export interface PortfolioSnapshotterDeps {
  database: DatabaseHandle;
  positions: OpenPositionSource;
  agentIdsOf(userId: string): string[];
  solUsdPrice(): string | null;
  clock: Clock;
  logger: Logger;
}

export class PortfolioSnapshotter {
  private lastSlot: number | null = null;
  private readonly log: Logger;
  private readonly loop = new TickLoop(
    () => this.tick(),
    () => CHECK_EVERY_MS,
    (err) => {
      this.log.error("portfolio snapshot failed", { reason: err instanceof Error ? err.message : String(err) });
      return undefined;
    },
  );

  constructor(private readonly d: PortfolioSnapshotterDeps) {
    this.log = d.logger.child({ component: "portfolio-history" });
  }

  /** One check: when a new slot began, a point per user and mode, and the old ones pruned. Returns points written. */
  async tick(): Promise<number> {
    const now = this.d.clock.now();
    const slot = snapshotSlot(now, this.lastSlot);
    if (slot === null) return 0;
    this.lastSlot = slot;
    const at = new Date(slot).toISOString();
    const before = new Date(slot - SNAPSHOT_RETENTION_MS).toISOString();
    const h = this.d.database;
    let written = 0;
    for (const userId of usersWithAgents(h)) {
      const p = await computePortfolio({
        db: h,
        positions: this.d.positions,
        agentIds: this.d.agentIdsOf(userId),
        userId,
        solUsdPrice: this.d.solUsdPrice(),
        todayStart: utcDayStart(now),
      });
      for (const mode of ["simulation", "live"] as const) {
        const t = p[mode];
        if (t.wallets === 0 && t.openPositions === 0) continue;
        const profitLossSol = decStr(new Big(t.realizedProfitLossSol).plus(t.unrealizedProfitLossSol));
        insertPortfolioSnapshot(h, { userId, mode, at, totalValueSol: t.totalValueSol, profitLossSol });
        prunePortfolioSnapshots(h, userId, mode, before);
        written++;
      }
    }
    return written;
  }

  start(): void {
    this.loop.start();
  }

  /** Stops the loop and waits for the tick in flight. */
  stop(): Promise<void> {
    return this.loop.stop();
  }
}
