import type { Database } from "bun:sqlite";
import type { Clock } from "../clock.ts";
import type { CloseReason } from "./rules/types.ts";

// The live swap journal (table live_trades; PRODUCT.md §5: "a trade whose outcome is unknown
// (sent, not confirmed) is never re-sent: it is reconciled from the chain by signature").
//
//   executor signs → writeAhead(status "sending") → sendTransaction → confirm
//     confirmed on time  → the settlement records the trade, status "confirmed"
//     failed / expired   → status "failed" / "expired" (nothing else recorded)
//     refused by the RPC → discard (it never left the machine)
//     unknown            → the settlement records a PENDING trade, status "pending" + intent
//   reconciler (monitor tick): pending rows, and "sending" rows no executor is working on (the
//   process stopped while confirming), are resolved by signature.
//
// While a row of an (agent, token) is unresolved, the executor refuses another swap of that
// token for that agent: nothing is ever sent twice, and the position cannot be sold while its
// buy is in doubt.

export type LiveTradeStatus = "sending" | "pending" | "confirmed" | "failed" | "expired";

/** What a pending live swap was for: how the reconciler settles it once the chain has spoken. */
export type LiveIntent =
  | { kind: "open"; userId: string; signalId: number; symbol: string }
  | { kind: "dca"; positionId: string; order: number }
  | {
      kind: "take_profit";
      positionId: string;
      levelsHit: number;
      moonBagActivated: boolean;
      moonBagAmount: string | null;
      closesPosition: boolean;
    }
  | { kind: "close"; positionId: string; reason: CloseReason; signalId?: number };

export interface LiveTradeRow {
  signature: string;
  agentId: string;
  walletAddress: string;
  tokenAddress: string;
  side: "BUY" | "SELL";
  inputAtomic: string;
  expectedOutputAtomic: string;
  tokenDecimals: number;
  lastValidBlockHeight: number;
  status: LiveTradeStatus;
  intent: LiveIntent | null;
  transactionId: string | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
}

type Raw = Omit<LiveTradeRow, "intent"> & { intent: string | null };

const SELECT = `SELECT signature, agent_id AS agentId, wallet_address AS walletAddress, token_address AS tokenAddress, side,
  input_atomic AS inputAtomic, expected_output_atomic AS expectedOutputAtomic, token_decimals AS tokenDecimals,
  last_valid_block_height AS lastValidBlockHeight, status, intent, transaction_id AS transactionId, error,
  created_at AS createdAt, updated_at AS updatedAt FROM live_trades`;

const parse = (r: Raw | null): LiveTradeRow | null =>
  r ? { ...r, intent: r.intent ? (JSON.parse(r.intent) as LiveIntent) : null } : null;

export class LiveTradeJournal {
  /**
   * Signatures an executor is confirming right now: the reconciler leaves them alone. The
   * executor adds; whoever records the outcome (settlement, or the executor on a failure)
   * releases.
   */
  readonly inFlight = new Set<string>();

  constructor(
    private readonly sqlite: Database,
    private readonly clock: Clock,
  ) {}

  private now(): string {
    return new Date(this.clock.now()).toISOString();
  }

  /** Written BEFORE sendTransaction: from here on the swap is never forgotten. */
  writeAhead(
    r: Pick<
      LiveTradeRow,
      | "signature"
      | "agentId"
      | "walletAddress"
      | "tokenAddress"
      | "side"
      | "inputAtomic"
      | "expectedOutputAtomic"
      | "tokenDecimals"
      | "lastValidBlockHeight"
    >,
  ): void {
    const now = this.now();
    this.sqlite
      .query(
        `INSERT INTO live_trades (signature, agent_id, wallet_address, token_address, side, input_atomic, expected_output_atomic, token_decimals,
           last_valid_block_height, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'sending', ?, ?)`,
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
        now,
        now,
      );
  }

  /** The RPC refused the transaction: it never left the machine, so nothing is kept. */
  discard(signature: string): void {
    this.sqlite.query("DELETE FROM live_trades WHERE signature = ?").run(signature);
  }

  /** Final state. Synchronous: callable inside the settling SQLite transaction. */
  resolve(
    signature: string,
    status: "confirmed" | "failed" | "expired",
    opts: { error?: string; transactionId?: string } = {},
  ): void {
    this.sqlite
      .query(
        "UPDATE live_trades SET status = ?, error = COALESCE(?, error), transaction_id = COALESCE(?, transaction_id), updated_at = ? WHERE signature = ?",
      )
      .run(status, opts.error ?? null, opts.transactionId ?? null, this.now(), signature);
  }

  /** Outcome unknown: handed to the reconciler with what it was for and the pending transaction row. */
  markPending(signature: string, intent: LiveIntent, transactionId: string): void {
    this.sqlite
      .query(
        "UPDATE live_trades SET status = 'pending', intent = ?, transaction_id = ?, updated_at = ? WHERE signature = ?",
      )
      .run(JSON.stringify(intent), transactionId, this.now(), signature);
  }

  get(signature: string): LiveTradeRow | null {
    return parse(this.sqlite.query<Raw, [string]>(`${SELECT} WHERE signature = ?`).get(signature));
  }

  /** Rows whose outcome is not recorded yet, oldest first (in-flight ones included). */
  unresolved(): LiveTradeRow[] {
    return this.sqlite
      .query<Raw, []>(`${SELECT} WHERE status IN ('sending', 'pending') ORDER BY created_at, rowid`)
      .all()
      .map((r) => parse(r) as LiveTradeRow);
  }

  /** True while a swap of this token by this agent is in doubt (the executor refuses another). */
  hasUnresolved(agentId: string, tokenAddress: string): boolean {
    return (
      this.sqlite
        .query<{ n: number }, [string, string]>(
          "SELECT count(*) AS n FROM live_trades WHERE agent_id = ? AND token_address = ? AND status IN ('sending', 'pending')",
        )
        .get(agentId, tokenAddress)!.n > 0
    );
  }

  /** True while any swap of the wallet is in doubt (deposit checks wait for it). */
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
