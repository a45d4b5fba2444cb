import { type Clock, isoNow } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import type { PositionRepository } from "../db/repositories/positions.ts";
import { SignalRepository } from "../db/repositories/signals.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import { Big, decStr } from "../money.ts";
import { MANUAL_SOURCE } from "./manual-buy.ts";
import type { CloseResult, TradingEngine } from "./trading-engine.ts";

// The sell buttons (issue 44 item 5, docs/decisions/operator-experience-v.md "The sell
// buttons"): POST /agent-positions/:agentId/:positionId/sell { percent } and the position page's
// "Sell 25 % / 50 % / 100 %". A part is sold through the engine's sell(), the exit path a
// take-profit sale takes (same fee and slippage model, same settlement, the live journal before
// sending); 100 % is the manual close itself. A part is recorded as manual: a SELL signal of
// source `manual` (processed at once, as a manual buy's), whose id the SELL transaction carries
// and whose trade key and journal intent make the sale happen once.

export interface ManualSaleResult {
  success: true;
  percent: number;
  /** True when the position is closed: 100 %, the manual close. */
  closed: boolean;
  transactionId: string;
  transactionHash: string;
  /** The SELL's signal: the request's manual signal (a part); absent for the close. */
  signalId?: number;
  tokensSold?: string;
  proceedsSol?: string;
  remainingAmount: string;
  realizedProfitSol?: string;
  /** The close's answer (SPEC "Close position") when it closed. */
  historicalSwapId?: string;
  profitLossSol?: number;
  profitLossUsd?: number;
  changePercent?: number;
}

interface Deps {
  database: DatabaseHandle;
  clock: Clock;
  engine: TradingEngine;
  positions: PositionRepository;
}

export class ManualSales {
  private readonly signals: SignalRepository;

  constructor(private readonly d: Deps) {
    this.signals = new SignalRepository(d.database.sqlite);
  }

  async sell(userId: string, agentId: string, positionId: string, percent: number): Promise<ManualSaleResult> {
    // Another user's position, or one of another agent, answers like a missing one; the owner's
    // closed position says so (the engine re-checks under the position's lock: a close in flight).
    const p = this.d.positions.byId(positionId);
    if (!p || p.userId !== userId || p.agentId !== agentId) throw new NotFoundError("Position not found");
    if (p.status !== "open") throw new ConflictError("Position is already closed");
    if (percent >= 100) return this.close(userId, agentId, positionId);
    const share = new Big(String(percent));
    const signal = this.signals.insert(
      userId,
      null,
      {
        tokenAddress: p.tokenAddress,
        symbol: p.tokenSymbol,
        signalType: "sell",
        activationReason: `manual sale of ${share} % of position ${positionId}`,
        signalStrength: 5,
        source: MANUAL_SOURCE,
      },
      isoNow(this.d.clock),
      "processed",
    );
    const t = await this.d.engine.sellPart(positionId, share, { userId, agentId, signalId: signal.id });
    return {
      success: true,
      percent,
      closed: false,
      transactionId: t.transactionId,
      transactionHash: t.hash ?? "",
      signalId: signal.id,
      tokensSold: decStr(t.sold),
      proceedsSol: decStr(t.proceeds),
      remainingAmount: decStr(t.remainingAfter),
      realizedProfitSol: decStr(t.realizedAfter),
    };
  }

  private async close(userId: string, agentId: string, positionId: string): Promise<ManualSaleResult> {
    let closed: CloseResult;
    try {
      closed = await this.d.engine.closePosition(positionId, "manual", { userId, agentId });
    } catch (err) {
      // It was open and ours a moment ago: another sale closed it meanwhile.
      if (err instanceof NotFoundError) throw new ConflictError("Position is already closed");
      throw err;
    }
    return { ...closed, percent: 100, closed: true, remainingAmount: "0" };
  }
}
