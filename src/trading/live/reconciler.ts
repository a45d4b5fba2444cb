import type { Logger } from "../../logger.ts";
import type { SignatureStatus, SolanaRpcClient } from "../../market/solana-rpc.ts";
import type { Big } from "../../money.ts";
import type { HeightRead, SendChain } from "./chain-reads.ts";
import type { LiveTrade, LiveTradeJournal } from "./journal.ts";
import { judgeAttempt } from "./outcome.ts";
import type { LiveSettlement } from "./settlement.ts";

// Resolving live swaps whose outcome was unknown (PRODUCT.md §5):
// run at the start of every position monitor tick. For each journal row no executor is working on
// (pending trades, and swaps left "sending" by a process that stopped while confirming):
//   - confirmed or finalized without error → settled as its intent says (the amounts from the
//     transaction's meta, balances read at or after its slot), the pending transaction confirmed;
//   - landed with an error → failed (the pending transaction is marked failed, nothing else);
//   - expired only when PROVEN (live/outcome.ts judgeAttempt): the finalized block height, read
//     first, is past the lastValidBlockHeight of its own blockhash, a status answer at a context
//     slot at or after that read does not know it, the blockhash is no longer valid, and the
//     node's history reaches back to the signing slot. A lagging node proves nothing;
//   - "unknown" when the node cannot prove absence (history pruned): marked so (the API shows it
//     with what to do), kept open and asked again every tick;
//   - otherwise it stays pending for the next tick.
// A row whose settlement throws (its swap landed; recording failed) is retried on later ticks
// with backoff (1, 2, 4 … 32 ticks apart) until recorded; the settlement records a signature once.
// It never sends anything.

export interface ReconcileReport {
  checked: number;
  settled: number;
  failed: number;
  stillPending: number;
  /** Rows the node cannot prove either way (kept open). */
  unknown: number;
}

/** Longest wait between two settlement retries of a row, in reconciler passes (monitor ticks). */
const MAX_BACKOFF_PASSES = 32;

export interface LiveReconcilerDeps {
  journal: LiveTradeJournal;
  rpc: Pick<SolanaRpcClient, "getTransaction" | "getBalances">;
  /** Finalized height and statuses with their context slots. */
  sender: Pick<SendChain, "readHeight" | "readStatuses" | "blockhashValid" | "firstAvailableSlot" | "confirmNode">;
  settlement: LiveSettlement;
  logger: Logger;
  /** USD per SOL for the settled records (the engine's solUsd). */
  solUsd(): Promise<Big>;
}

const MAX_SIGNATURES_PER_CALL = 256;

export class LiveReconciler {
  private readonly log: Logger;
  private running: Promise<ReconcileReport> | null = null;
  private passes = 0;
  /** Rows whose resolution threw: how often, and the pass before which they are not tried again. */
  private readonly backoff = new Map<string, { failures: number; nextPass: number }>();

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
    const report: ReconcileReport = { checked: 0, settled: 0, failed: 0, stillPending: 0, unknown: 0 };
    const pass = ++this.passes;
    const rows = this.d.journal
      .unresolved()
      .filter(
        (r) => !this.d.journal.inFlight.has(r.signature) && (this.backoff.get(r.signature)?.nextPass ?? 0) <= pass,
      );
    if (rows.length === 0) return report;
    // The height BEFORE the statuses: a later status answer that still does not know a signature
    // is then proof (judgeAttempt); an unreadable height proves nothing.
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
        this.backoff.delete(row.signature);
        report[outcome]++;
      } catch (err) {
        report.stillPending++;
        const failures = (this.backoff.get(row.signature)?.failures ?? 0) + 1;
        const wait = Math.min(MAX_BACKOFF_PASSES, 2 ** (failures - 1));
        this.backoff.set(row.signature, { failures, nextPass: pass + wait });
        this.log.warn("live reconciliation of a trade failed; retrying later", {
          signature: row.signature,
          agentId: row.agentId,
          failures,
          retryInTicks: wait,
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
  ): Promise<"settled" | "failed" | "stillPending" | "unknown"> {
    const state = await judgeAttempt(this.d.sender, row, height, status);
    if (state.kind === "failed") {
      this.d.settlement.failPending(row, "failed", `transaction failed on chain: ${short(state.err)}`);
      return "failed";
    }
    if (state.kind === "expired") {
      this.d.settlement.failPending(row, "expired", "transaction expired before it was confirmed (blockhash expired)");
      return "failed";
    }
    if (state.kind === "unknown") {
      if (this.d.journal.markUnknown(row.signature, state.reason))
        this.log.warn(
          "live swap outcome unknown: the RPC node cannot prove it absent; its token is not traded until it can",
          {
            signature: row.signature,
            agentId: row.agentId,
            walletAddress: row.walletAddress,
            reason: state.reason,
          },
        );
      return "unknown";
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
