import type { Logger } from "../logger.ts";
import type { SignatureStatus, SolanaRpcClient } from "../market/solana-rpc.ts";
import type { Big } from "../money.ts";
import type { HeightRead, SendChain } from "./live/chain-reads.ts";
import { classifyAttempt } from "./live/outcome.ts";
import type { LiveTrade, LiveTradeJournal } from "./live-journal.ts";
import type { LiveSettlement } from "./settlement/live.ts";

// Resolving live swaps whose outcome was unknown (issue: live trading, issue 15; PRODUCT.md §5):
// run at the start of every position monitor tick. For each journal row no executor is working on
// (pending trades, and swaps left "sending" by a process that stopped while confirming):
//   - confirmed or finalized without error → settled as its intent says (the amounts from the
//     transaction's meta, balances read at or after its slot), the pending transaction confirmed;
//   - landed with an error → failed (the pending transaction is marked failed, nothing else);
//   - expired only when PROVEN (live/outcome.ts classifyAttempt): the finalized block height,
//     read first, is past its lastValidBlockHeight and a status answer at a context slot at or
//     after that read does not know it. A lagging node proves nothing;
//   - otherwise it stays pending for the next tick.
// It never sends anything.

export interface ReconcileReport {
  checked: number;
  settled: number;
  failed: number;
  stillPending: number;
}

export interface LiveReconcilerDeps {
  journal: LiveTradeJournal;
  rpc: Pick<SolanaRpcClient, "getTransaction" | "getBalances">;
  /** Finalized height and statuses with their context slots. */
  sender: Pick<SendChain, "readHeight" | "readStatuses">;
  settlement: LiveSettlement;
  logger: Logger;
  /** USD per SOL for the settled records (the engine's solUsd). */
  solUsd(): Promise<Big>;
}

const MAX_SIGNATURES_PER_CALL = 256;

export class LiveReconciler {
  private readonly log: Logger;
  private running: Promise<ReconcileReport> | null = null;

  constructor(private readonly d: LiveReconcilerDeps) {
    this.log = d.logger.child({ component: "live" });
  }

  /** One pass; concurrent callers share it. */
  reconcile(): Promise<ReconcileReport> {
    this.running ??= this.pass().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async pass(): Promise<ReconcileReport> {
    const report: ReconcileReport = { checked: 0, settled: 0, failed: 0, stillPending: 0 };
    const rows = this.d.journal.unresolved().filter((r) => !this.d.journal.inFlight.has(r.signature));
    if (rows.length === 0) return report;
    // The height BEFORE the statuses: a later status answer that still does not know a signature
    // is then proof (classifyAttempt); an unreadable height proves nothing.
    let height: HeightRead | null = null;
    try {
      height = await this.d.sender.readHeight();
    } catch {
      height = null;
    }
    const statuses: Array<{ contextSlot: number; status: SignatureStatus | null }> = [];
    try {
      for (let i = 0; i < rows.length; i += MAX_SIGNATURES_PER_CALL) {
        const chunk = rows.slice(i, i + MAX_SIGNATURES_PER_CALL).map((r) => r.signature);
        const r = await this.d.sender.readStatuses(chunk);
        statuses.push(...r.statuses.map((status) => ({ contextSlot: r.contextSlot, status })));
      }
    } catch (err) {
      // Temporary: the next tick asks again; nothing is decided without the chain's answer.
      this.log.warn("live reconciliation skipped: RPC unavailable", {
        pending: rows.length,
        reason: err instanceof Error ? err.message : String(err),
      });
      report.stillPending = rows.length;
      return report;
    }
    for (const [i, row] of rows.entries()) {
      report.checked++;
      const st = statuses[i] ?? { contextSlot: 0, status: null };
      try {
        const outcome = await this.resolveOne(row, st, height);
        report[outcome]++;
      } catch (err) {
        report.stillPending++;
        this.log.warn("live reconciliation of a trade failed; retrying next tick", {
          signature: row.signature,
          agentId: row.agentId,
          reason: err instanceof Error ? err.message : String(err),
        });
      }
    }
    if (report.settled + report.failed > 0) this.log.info("live trades reconciled", { ...report });
    return report;
  }

  private async resolveOne(
    row: LiveTrade,
    status: { contextSlot: number; status: SignatureStatus | null },
    height: HeightRead | null,
  ): Promise<"settled" | "failed" | "stillPending"> {
    const state = classifyAttempt({ lastValidBlockHeight: row.lastValidBlockHeight, height, status });
    if (state.kind === "failed") {
      this.d.settlement.failPending(row, "failed", `transaction failed on chain: ${short(state.err)}`);
      return "failed";
    }
    if (state.kind === "expired") {
      this.d.settlement.failPending(row, "expired", "transaction expired before it was confirmed (blockhash expired)");
      return "failed";
    }
    if (state.kind === "pending") return "stillPending";
    const landed = await this.d.rpc.getTransaction(row.signature);
    if (!landed) return "stillPending"; // confirmed, but the node has no details yet
    if (landed.err) {
      this.d.settlement.failPending(row, "failed", `transaction failed on chain: ${short(landed.err)}`);
      return "failed";
    }
    const [balances, solUsd] = await Promise.all([
      this.d.rpc.getBalances(row.walletAddress, landed.slot || state.slot),
      this.d.solUsd(),
    ]);
    this.d.settlement.settleReconciled(row, landed, balances, solUsd);
    return "settled";
  }
}

function short(v: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(v);
  } catch {
    s = String(v);
  }
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}
