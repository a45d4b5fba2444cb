import type { SqliteHandle } from "../../db/client.ts";
import { SettlementRepository } from "../../db/repositories/settlement.ts";
import { Big, decStr } from "../../money.ts";
import { closedPnlLessFee } from "../rules/pnl.ts";

// The books after a live token account's close (docs/decisions/pnl-is-wallet-gain.md): the
// account emptied by a closing SELL is closed by a transaction of its own, after the sale was
// recorded. What came back is added to that SELL's rentRefundSol (beside any rent the swap itself
// got back), the close's fee to its fees, and the fee comes off the position's P/L in its
// historical swap, so the P/L is what the wallet gained and equals the simulation's, whose sale
// books the same at once. Runs inside the caller's transaction (it mirrors the balance too).

export function recordTokenAccountClose(
  db: SqliteHandle,
  saleTransactionId: string,
  close: { refundSol: Big; feeSol: Big },
  now: string,
): void {
  const repo = new SettlementRepository(db.sqlite);
  const sale = repo.closingSale(saleTransactionId);
  if (!sale) return;
  const pnl =
    sale.historicalSwapId !== null && sale.profitLossSol !== null && sale.costSol !== null
      ? closedPnlLessFee(
          { profitLossSol: sale.profitLossSol, costSol: sale.costSol, solUsdPrice: sale.solUsd },
          close.feeSol,
        )
      : null;
  repo.recordAccountClose(
    saleTransactionId,
    {
      fees: decStr(new Big(sale.fees).plus(close.feeSol)),
      rentRefundSol: decStr(new Big(sale.rentRefundSol).plus(close.refundSol)),
    },
    pnl && sale.historicalSwapId
      ? {
          id: sale.historicalSwapId,
          profitLossSol: decStr(pnl.profitLossSol),
          profitLossUsd: decStr(pnl.profitLossUsd, 6),
          changePercent: decStr(pnl.changePercent, 4),
        }
      : null,
    now,
  );
}
