import type { Database } from "bun:sqlite";
import { OPEN as LIVE_TRADE_OPEN } from "./live-trades.ts";

type TradingMode = "simulation" | "live";

// Reads of positions and historical_swaps for the account-wide risk limits (issue 34 item 1):
// a user's open positions in one mode and the trades of a time window; and the live buys whose
// outcome the journal has not resolved yet (issue 41 item 1), which count as what they would
// become. Read only; the positions table is written from positions.ts alone, live_trades from
// live-trades.ts.

export interface OpenExposure {
  /** Open positions of the user's agents in the mode. */
  openPositions: number;
  /** held_cost_sol of each (decimal text): summed with Big by the caller. */
  heldCostSol: string[];
}

/** A live buy sent and not resolved (journal status sending, pending or unknown). */
export interface InDoubtBuy {
  agentId: string;
  /** The journal intent's kind: "open" (a signal's buy) or "dca"; null for a row without one. */
  kind: string | null;
  signalId: number | null;
  positionId: string | null;
  order: number | null;
  /** SOL in, in lamports (decimal text). */
  inputLamports: string;
}

export interface WindowTrades {
  /** profit_loss_sol of each position closed in the window. */
  closedProfitLossSol: string[];
  /** Positions opened in the window and still open. */
  open: Array<{
    realizedProfitSol: string;
    remainingAmount: string;
    heldCostSol: string;
    entryPriceSol: string;
    lastPriceSol: string | null;
  }>;
}

export class RiskExposureReader {
  constructor(private readonly sqlite: Database) {}

  openExposure(userId: string, mode: TradingMode): OpenExposure {
    const rows = this.sqlite
      .query<{ held_cost_sol: string }, [string, string]>(
        `SELECT p.held_cost_sol FROM positions p JOIN agents a ON a.id = p.agent_id
         WHERE a.user_id = ? AND p.status = 'open' AND p.trading_mode = ?`,
      )
      .all(userId, mode);
    return { openPositions: rows.length, heldCostSol: rows.map((r) => r.held_cost_sol) };
  }

  agentOpenPositions(agentId: string, mode: TradingMode): number {
    return (
      this.sqlite
        .query<{ n: number }, [string, string]>(
          "SELECT count(*) AS n FROM positions WHERE agent_id = ? AND status = 'open' AND trading_mode = ?",
        )
        .get(agentId, mode)?.n ?? 0
    );
  }

  /** The user's live buys whose outcome is unknown (few: the journal resolves them every tick). */
  inDoubtBuys(userId: string): InDoubtBuy[] {
    return this.sqlite
      .query<InDoubtBuy, [string]>(
        `SELECT l.agent_id AS agentId, json_extract(l.intent, '$.kind') AS kind,
                json_extract(l.intent, '$.signalId') AS signalId, json_extract(l.intent, '$.positionId') AS positionId,
                json_extract(l.intent, '$.order') AS "order", l.input_atomic AS inputLamports
         FROM live_trades l JOIN agents a ON a.id = l.agent_id
         WHERE a.user_id = ? AND l.side = 'BUY' AND l.status IN ${LIVE_TRADE_OPEN}`,
      )
      .all(userId);
  }

  /** What the user's agents traded in the mode since `since` (ISO 8601). */
  windowTrades(userId: string, mode: TradingMode, since: string): WindowTrades {
    const closed = this.sqlite
      .query<{ pl: string }, [string, string, string]>(
        `SELECT h.profit_loss_sol AS pl FROM historical_swaps h
         JOIN positions p ON p.id = h.position_id JOIN agents a ON a.id = p.agent_id
         WHERE a.user_id = ? AND p.trading_mode = ? AND h.sale_time >= ?`,
      )
      .all(userId, mode, since);
    const open = this.sqlite
      .query<
        {
          realizedProfitSol: string;
          remainingAmount: string;
          heldCostSol: string;
          entryPriceSol: string;
          lastPriceSol: string | null;
        },
        [string, string, string]
      >(
        `SELECT p.realized_profit_sol AS realizedProfitSol, p.remaining_amount AS remainingAmount,
                p.held_cost_sol AS heldCostSol, p.entry_price_sol AS entryPriceSol, p.last_price_sol AS lastPriceSol
         FROM positions p JOIN agents a ON a.id = p.agent_id
         WHERE a.user_id = ? AND p.status = 'open' AND p.trading_mode = ? AND p.opened_at >= ?`,
      )
      .all(userId, mode, since);
    return { closedProfitLossSol: closed.map((r) => r.pl), open };
  }

  /** Users whose agents traded in the mode since `since`: the ones a breaker sweep looks at. */
  usersTradingSince(mode: TradingMode, since: string): string[] {
    return this.sqlite
      .query<{ user_id: string }, [string, string, string]>(
        `SELECT DISTINCT a.user_id FROM agents a JOIN positions p ON p.agent_id = a.id
         WHERE p.trading_mode = ? AND ((p.status = 'open' AND p.opened_at >= ?) OR p.closed_at >= ?)`,
      )
      .all(mode, since, since)
      .map((r) => r.user_id);
  }
}
