import type { Logger } from "../logger.ts";
import type { SignatureStatus, SolanaRpcClient } from "../market/solana-rpc.ts";
import type { Big } from "../money.ts";
import type { LiveTrade, LiveTradeJournal } from "./live-journal.ts";
import type { LiveSettlement } from "./settlement/live.ts";

// Resolving live swaps whose outcome was unknown (issue: live trading; PRODUCT.md §5): run at the
// start of every position monitor tick. For each journal row no executor is working on (pending
// trades, and swaps left "sending" by a process that stopped while confirming):
//   - confirmed or finalized without error → settled as its intent says (the chain's amounts,
//     balances mirrored), the pending transaction becomes confirmed;
//   - landed with an error → failed (the pending transaction is marked failed, nothing else);
//   - unknown to the chain while the block height is past its lastValidBlockHeight → expired: it
//     can never land; failed likewise;
//   - otherwise it stays pending for the next tick.
// It never sends anything. The block height is read BEFORE the statuses: a status read afterwards
// that is still empty is then final (nothing can land after that height).

export interface ReconcileReport {
  checked: number;
  settled: number;
  failed: number;
  stillPending: number;
}

export interface LiveReconcilerDeps {
  journal: LiveTradeJournal;
  rpc: Pick<SolanaRpcClient, "getBlockHeight" | "getSignatureStatuses" | "getTransaction" | "getBalances">;
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
    let height: number;
    const statuses: Array<SignatureStatus | null> = [];
    try {
      height = await this.d.rpc.getBlockHeight("confirmed");
      for (let i = 0; i < rows.length; i += MAX_SIGNATURES_PER_CALL) {
        const chunk = rows.slice(i, i + MAX_SIGNATURES_PER_CALL).map((r) => r.signature);
        statuses.push(...(await this.d.rpc.getSignatureStatuses(chunk, { searchTransactionHistory: true })));
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
      const st = statuses[i] ?? null;
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
    st: SignatureStatus | null,
    height: number,
  ): Promise<"settled" | "failed" | "stillPending"> {
    if (st?.err) {
      this.d.settlement.failPending(row, "failed", `transaction failed on chain: ${short(st.err)}`);
      return "failed";
    }
    if (st && (st.confirmationStatus === "confirmed" || st.confirmationStatus === "finalized")) {
      const landed = await this.d.rpc.getTransaction(row.signature);
      if (!landed) return "stillPending"; // confirmed, but the node has no details yet
      if (landed.err) {
        this.d.settlement.failPending(row, "failed", `transaction failed on chain: ${short(landed.err)}`);
        return "failed";
      }
      const [balances, solUsd] = await Promise.all([this.d.rpc.getBalances(row.walletAddress), this.d.solUsd()]);
      this.d.settlement.settleReconciled(row, landed, balances, solUsd);
      return "settled";
    }
    if (!st && height > row.lastValidBlockHeight) {
      this.d.settlement.failPending(row, "expired", "transaction expired before it was confirmed (blockhash expired)");
      return "failed";
    }
    return "stillPending";
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
