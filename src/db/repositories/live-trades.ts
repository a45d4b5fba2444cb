import type { Database } from "bun:sqlite";
import type { liveTrades } from "../schema/trading.ts";

// live_trades: the journal of live swaps (src/trading/live/journal.ts says what each state means).
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
  | "blockhash"
  | "lastValidBlockHeight"
  | "signedAtSlot"
  | "priorityFeeLamports"
  | "intent"
> &
  Partial<Pick<LiveTradeRecord, "tipLamports" | "requestId" | "router" | "orderFeeBps">>;

/** States whose outcome is not recorded yet: the swap may still land, or may have landed unseen. */
export const OPEN = "('sending', 'pending', 'unknown')";
/** Sent and neither failed nor expired: in doubt, or landed. */
const IN_PLAY = "('sending', 'pending', 'unknown', 'confirmed')";

const SELECT = `SELECT signature, agent_id AS agentId, wallet_address AS walletAddress, token_address AS tokenAddress, side,
  input_atomic AS inputAtomic, expected_output_atomic AS expectedOutputAtomic, token_decimals AS tokenDecimals,
  blockhash, last_valid_block_height AS lastValidBlockHeight, signed_at_slot AS signedAtSlot,
  priority_fee_lamports AS priorityFeeLamports, tip_lamports AS tipLamports, request_id AS requestId, router,
  order_fee_bps AS orderFeeBps, status, intent, transaction_id AS transactionId, error,
  created_at AS createdAt, updated_at AS updatedAt FROM live_trades`;

export class LiveTradeRepository {
  constructor(private readonly sqlite: Database) {}

  insertSending(r: NewLiveTrade, now: string): void {
    this.sqlite
      .query(
        `INSERT INTO live_trades (signature, agent_id, wallet_address, token_address, side, input_atomic, expected_output_atomic, token_decimals,
           blockhash, last_valid_block_height, signed_at_slot, priority_fee_lamports, tip_lamports, request_id, router, order_fee_bps,
           status, intent, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'sending', ?, ?, ?)`,
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
        r.blockhash,
        r.lastValidBlockHeight,
        r.signedAtSlot,
        r.priorityFeeLamports,
        r.tipLamports ?? 0,
        r.requestId ?? null,
        r.router ?? null,
        r.orderFeeBps ?? null,
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

  /**
   * Outcome not provable by this node (see live/outcome.ts): kept open, with why. Its pending
   * trade shows status "unknown" (GET /agent-transactions, the dashboard), and an opening buy's
   * signal evaluation stays "pending" with `notice` as its reason. Settling later overwrites both.
   * Returns false when the row was already unknown.
   */
  markUnknown(signature: string, reason: string, notice: string, now: string): boolean {
    const row = this.get(signature);
    if (!row || row.status === "unknown") return false;
    this.sqlite.transaction(() => {
      this.sqlite
        .query("UPDATE live_trades SET status = 'unknown', error = ?, updated_at = ? WHERE signature = ?")
        .run(reason, now, signature);
      if (row.transactionId)
        this.sqlite
          .query("UPDATE agent_transactions SET status = 'unknown', updated_at = ? WHERE id = ? AND status = 'pending'")
          .run(now, row.transactionId);
      const intent = row.intent ? (JSON.parse(row.intent) as { kind?: string; signalId?: unknown }) : null;
      if (intent?.kind === "open" && typeof intent.signalId === "number")
        this.sqlite
          .query(
            "UPDATE signal_evaluations SET reason = ? WHERE signal_id = ? AND agent_id = ? AND outcome = 'pending'",
          )
          .run(notice, intent.signalId, row.agentId);
    })();
    return true;
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
    return this.sqlite.query<LiveTradeRecord, []>(`${SELECT} WHERE status IN ${OPEN} ORDER BY created_at, rowid`).all();
  }

  /** Open rows of this token by this agent OR from this wallet (whoever holds it now). */
  hasUnresolved(agentId: string, walletAddress: string, tokenAddress: string): boolean {
    return (
      this.sqlite
        .query<{ n: number }, [string, string, string]>(
          `SELECT count(*) AS n FROM live_trades WHERE (agent_id = ? OR wallet_address = ?) AND token_address = ? AND status IN ${OPEN}`,
        )
        .get(agentId, walletAddress, tokenAddress)!.n > 0
    );
  }

  /** Intents (JSON) of this agent's swaps of this token that were sent and did not fail or expire. */
  intentsInPlay(agentId: string, tokenAddress: string): Array<{ intent: string; status: string }> {
    return this.sqlite
      .query<{ intent: string; status: string }, [string, string]>(
        `SELECT intent, status FROM live_trades WHERE agent_id = ? AND token_address = ? AND status IN ${IN_PLAY} AND intent IS NOT NULL`,
      )
      .all(agentId, tokenAddress);
  }

  /**
   * Whether agent `agentId` has a swap carrying signal `signalId` in play (sent, neither failed nor
   * expired): a repeated manual request is then not free to trade again (manual-idempotency.ts).
   */
  signalInPlay(agentId: string, signalId: number): boolean {
    return (
      this.sqlite
        .query<{ n: number }, [string, number]>(
          `SELECT count(*) AS n FROM live_trades WHERE agent_id = ? AND intent IS NOT NULL
             AND status IN ${IN_PLAY} AND json_extract(intent, '$.signalId') = ?`,
        )
        .get(agentId, signalId)!.n > 0
    );
  }

  /** Intents (JSON) and priority fees of this agent's attempts of this token that PROVABLY expired. */
  expiredAttempts(agentId: string, tokenAddress: string): Array<{ intent: string; priorityFeeLamports: number }> {
    return this.sqlite
      .query<{ intent: string; priorityFeeLamports: number }, [string, string]>(
        "SELECT intent, priority_fee_lamports AS priorityFeeLamports FROM live_trades WHERE agent_id = ? AND token_address = ? AND status = 'expired' AND intent IS NOT NULL",
      )
      .all(agentId, tokenAddress);
  }

  /** Open rows of an agent (any token): the agent cannot be deleted while one exists. */
  countUnresolvedForAgent(agentId: string): number {
    return this.sqlite
      .query<{ n: number }, [string]>(`SELECT count(*) AS n FROM live_trades WHERE agent_id = ? AND status IN ${OPEN}`)
      .get(agentId)!.n;
  }

  hasUnresolvedForWallet(walletAddress: string): boolean {
    return (
      this.sqlite
        .query<{ n: number }, [string]>(
          `SELECT count(*) AS n FROM live_trades WHERE wallet_address = ? AND status IN ${OPEN}`,
        )
        .get(walletAddress)!.n > 0
    );
  }
}
