import { type Clock, isoNow } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { LiveTradeRepository } from "../db/repositories/live-trades.ts";
import { ManualReplayRepository, type ManualSaleRecord } from "../db/repositories/manual-replays.ts";
import type { PositionRepository } from "../db/repositories/positions.ts";
import { SignalRepository } from "../db/repositories/signals.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import { Big, decNum, decStr } from "../money.ts";
import { MANUAL_SOURCE } from "./manual-buy.ts";
import { IN_PROGRESS_MESSAGE, ManualRequestKeys, type RequestKey } from "./manual-idempotency.ts";
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
  private readonly replays: ManualReplayRepository;
  private readonly liveTrades: LiveTradeRepository;
  private readonly keys: ManualRequestKeys;

  constructor(private readonly d: Deps) {
    this.signals = new SignalRepository(d.database.sqlite);
    this.replays = new ManualReplayRepository(d.database.sqlite);
    this.liveTrades = new LiveTradeRepository(d.database.sqlite);
    this.keys = new ManualRequestKeys(d.database, d.clock);
  }

  /**
   * Sells, or with an Idempotency-Key seen before answers the first request's sale from the SELL
   * its signal wrote (manual-idempotency.ts; `replayed`: nothing was done, nothing to audit). A close asked with a key is given a manual signal
   * too, so its SELL names the request; without a key the close is the plain manual close.
   */
  async sell(
    userId: string,
    agentId: string,
    positionId: string,
    percent: number,
    key?: RequestKey,
  ): Promise<{ sale: ManualSaleResult; replayed: boolean }> {
    // Another user's position, or one of another agent, answers like a missing one; the owner's
    // closed position says so (the engine re-checks under the position's lock: a close in flight).
    const p = this.d.positions.byId(positionId);
    if (!p || p.userId !== userId || p.agentId !== agentId) throw new NotFoundError("Position not found");
    const request = ["sell", agentId, positionId, percent];
    // A sale in doubt on chain (its journal row) counts as made: never sold again.
    const traded = (signalId: number) =>
      this.replays.saleOfSignal(positionId, signalId) !== null || this.liveTrades.signalInPlay(agentId, signalId);
    const first = this.keys.prior(key, request, traded);
    if (first !== null) return { sale: this.replay(positionId, first, percent), replayed: true };
    if (p.status !== "open") throw new ConflictError("Position is already closed");
    const closing = percent >= 100;
    if (closing && !key) return { sale: await this.close(userId, agentId, positionId), replayed: false };
    const share = new Big(String(percent));
    const signal = this.signals.insert(
      userId,
      null,
      {
        tokenAddress: p.tokenAddress,
        symbol: p.tokenSymbol,
        signalType: "sell",
        activationReason: closing
          ? `manual close of position ${positionId}`
          : `manual sale of ${share} % of position ${positionId}`,
        signalStrength: 5,
        source: MANUAL_SOURCE,
      },
      isoNow(this.d.clock),
      "processed",
    );
    const sale = await this.keys.run(key, request, signal.id, traded, async (): Promise<ManualSaleResult> => {
      if (closing) return this.close(userId, agentId, positionId, signal.id);
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
    });
    return { sale, replayed: false };
  }

  private async close(
    userId: string,
    agentId: string,
    positionId: string,
    signalId?: number,
  ): Promise<ManualSaleResult> {
    let closed: CloseResult;
    try {
      closed = await this.d.engine.closePosition(positionId, "manual", { userId, agentId, signalId });
    } catch (err) {
      // It was open and ours a moment ago: another sale closed it meanwhile.
      if (err instanceof NotFoundError) throw new ConflictError("Position is already closed");
      throw err;
    }
    return { ...closed, percent: 100, closed: true, remainingAmount: "0" };
  }

  /**
   * The first request's answer from its SELL: the close's figures when it closed the position; a
   * part's tokens and proceeds, with what the position holds and has realized now. A SELL still
   * awaiting the chain (or a swap in doubt with none yet) is in progress.
   */
  private replay(positionId: string, signalId: number, percent: number): ManualSaleResult {
    const sale = this.replays.saleOfSignal(positionId, signalId);
    if (!sale || sale.status === "pending") throw new ConflictError(IN_PROGRESS_MESSAGE);
    const base = { success: true as const, percent, transactionId: sale.transactionId };
    const hash = sale.transactionHash ?? "";
    if (sale.historicalSwapId !== null) return { ...base, ...closeFigures(sale), transactionHash: hash };
    const p = this.d.positions.byId(positionId);
    return {
      ...base,
      closed: false,
      transactionHash: hash,
      signalId,
      tokensSold: sale.tokensSold,
      proceedsSol: sale.proceedsSol,
      remainingAmount: p?.remainingAmount ?? "0",
      realizedProfitSol: p?.realizedProfitSol ?? "0",
    };
  }
}

/** The close's answer (SPEC "Close position") from its historical swap. */
function closeFigures(sale: ManualSaleRecord) {
  return {
    closed: true,
    remainingAmount: "0",
    historicalSwapId: sale.historicalSwapId as string,
    profitLossSol: decNum(sale.profitLossSol as string),
    profitLossUsd: decNum(sale.profitLossUsd as string),
    changePercent: decNum(sale.changePercent as string),
  };
}
