import type { EventBus } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import type { PriceWaits } from "./monitor-prices.ts";

// Positions paused by their mint (src/trading/mint-watch.ts): the reason is the position's
// `waitingReason`, and its owner is told once per pause — `position.updated` with change "paused"
// when it starts or its reason changes, "resumed" when it lifts — not at every tick
// (docs/decisions/paused-positions.md). Held in memory: after a restart a pause still there is told
// once more, which is better than never.

const PAUSED_LOG = "position paused: its mint now has a control the agent's filters refuse";

interface Held {
  id: string;
  agentId: string;
  tokenAddress: string;
  userId: string;
}

/**
 * Whether a pause holds this action: a live exit keeps trying (the simulation before signing
 * refuses a sale the chain would, at no cost); a DCA buy, and every action of a simulated position
 * (a paper sale no chain judges would always succeed), wait.
 */
export const pauseHolds = (paused: boolean, mode: "simulation" | "live", action: string): boolean =>
  paused && (mode !== "live" || action === "dca");

export class PausedPositions {
  /** Per paused position, the reason its owner was told. */
  private readonly told = new Map<string, string>();

  constructor(private readonly d: { events: EventBus; waits: PriceWaits; log: Logger; now: () => number }) {}

  /** The position's pause as just read (null: none): shown, logged and told when it changes. */
  note(p: Held, reason: string | null): void {
    if (reason !== null && this.d.waits.set(p.id, reason, this.d.now()))
      this.d.log.warn(PAUSED_LOG, { positionId: p.id, agentId: p.agentId, tokenAddress: p.tokenAddress, reason });
    const before = this.told.get(p.id) ?? null;
    if (reason === before) return;
    const about = { positionId: p.id, agentId: p.agentId, tokenAddress: p.tokenAddress };
    if (reason === null) {
      this.told.delete(p.id);
      this.d.events.publish("position.updated", p.userId, { ...about, change: "resumed" });
    } else {
      this.told.set(p.id, reason);
      this.d.events.publish("position.updated", p.userId, { ...about, change: "paused", reason });
    }
  }

  /** Forgets positions no longer open (sold: nothing left to tell). */
  retain(positionIds: ReadonlySet<string>): void {
    for (const id of this.told.keys()) if (!positionIds.has(id)) this.told.delete(id);
  }
}
