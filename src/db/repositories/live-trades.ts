import type { Database } from "bun:sqlite";
import type { liveTrades } from "../schema/trading.ts";

// live_trades: the journal of live swaps (src/trading/live-journal.ts says what each state means).
// `intent` is stored as the JSON text the journal gives; it parses it back.

export type LiveTradeRecord = typeof liveTrades.$inferSelect;

/** What the executor journals before sending (status "sending"). */
export type NewLiveTrade = Pick<
  LiveTradeRecord,
  | "signature"
  | "agentId"
  | "walletAddress"
  | "tokenAddress"
  | "side"
  | "inputAtomic"
  | "expectedOutputAtomic"
  | "tokenDecimals"
  | "lastValidBlockHeight"
  | "intent"
>;

const SELECT = `SELECT signature, agent_id AS agentId, wallet_address AS walletAddress, token_address AS tokenAddress, side,
  input_atomic AS inputAtomic, expected_output_atomic AS expectedOutputAtomic, token_decimals AS tokenDecimals,
  last_valid_block_height AS lastValidBlockHeight, status, intent, transaction_id AS transactionId, error,
  created_at AS createdAt, updated_at AS updatedAt FROM live_trades`;

export class LiveTradeRepository {
  constructor(private readonly sqlite: Database) {}

  insertSending(r: NewLiveTrade, now: string): void {
    this.sqlite
      .query(
        `INSERT INTO live_trades (signature, agent_id, wallet_address, token_address, side, input_atomic, expected_output_atomic, token_decimals,
           last_valid_block_height, status, intent, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'sending', ?, ?, ?)`,
      )
      .run(
        r.signature,
        r.agentId,
        r.walletAddress,
        r.tokenAddress,
        r.side,
        r.inputAtomic,
        r.expectedOutputAtomic,
        r.tokenDecimals,
        r.lastValidBlockHeight,
        r.intent,
        now,
        now,
      );
  }

  resolve(signature: string, status: string, error: string | null, transactionId: string | null, now: string): void {
    this.sqlite
      .query(
        "UPDATE live_trades SET status = ?, error = COALESCE(?, error), transaction_id = COALESCE(?, transaction_id), updated_at = ? WHERE signature = ?",
      )
      .run(status, error, transactionId, now, signature);
  }

  markPending(signature: string, intentJson: string, transactionId: string, now: string): void {
    this.sqlite
      .query(
        "UPDATE live_trades SET status = 'pending', intent = ?, transaction_id = ?, updated_at = ? WHERE signature = ?",
      )
      .run(intentJson, transactionId, now, signature);
  }

  get(signature: string): LiveTradeRecord | null {
    return this.sqlite.query<LiveTradeRecord, [string]>(`${SELECT} WHERE signature = ?`).get(signature);
  }

  /** Rows whose outcome is not recorded yet, oldest first. */
  unresolved(): LiveTradeRecord[] {
    return this.sqlite
      .query<LiveTradeRecord, []>(`${SELECT} WHERE status IN ('sending', 'pending') ORDER BY created_at, rowid`)
      .all();
  }

  hasUnresolved(agentId: string, tokenAddress: string): boolean {
    return (
      this.sqlite
        .query<{ n: number }, [string, string]>(
          "SELECT count(*) AS n FROM live_trades WHERE agent_id = ? AND token_address = ? AND status IN ('sending', 'pending')",
        )
        .get(agentId, tokenAddress)!.n > 0
    );
  }

  /** Intents (JSON) of this agent's swaps of this token that were sent and did not fail or expire. */
  intentsInPlay(agentId: string, tokenAddress: string): Array<{ intent: string; status: string }> {
    return this.sqlite
      .query<{ intent: string; status: string }, [string, string]>(
        "SELECT intent, status FROM live_trades WHERE agent_id = ? AND token_address = ? AND status IN ('sending', 'pending', 'confirmed') AND intent IS NOT NULL",
      )
      .all(agentId, tokenAddress);
  }

  hasUnresolvedForWallet(walletAddress: string): boolean {
    return (
      this.sqlite
        .query<{ n: number }, [string]>(
          "SELECT count(*) AS n FROM live_trades WHERE wallet_address = ? AND status IN ('sending', 'pending')",
        )
        .get(walletAddress)!.n > 0
    );
  }
}
