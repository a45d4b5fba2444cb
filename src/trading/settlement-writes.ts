import type { Database } from "bun:sqlite";
import { readBalance } from "../ledgers/balance-ledger.ts";
import { recordBalanceSnapshot } from "../ledgers/balance-snapshots.ts";
import { Big, decNum, decStr, fromAtomic, SOL_DECIMALS, SOL_MINT } from "../money.ts";
import type { SwapFill } from "./executor.ts";
import type { PositionRecord } from "./position-store.ts";
import { applyDcaFill, type DcaFillResult } from "./rules/dca.ts";
import { closePnl, takeProfitSalePnl } from "./rules/pnl.ts";
import type { CloseReason, TradingMode } from "./rules/types.ts";

// The rows a settled trade writes (PRODUCT.md §4), shared by the simulation path
// (trading-engine.ts) and the live path (live-settlement.ts): the agent_transactions row, the
// position opened, averaged by a DCA buy, reduced by a take-profit sale or closed with its
// historical swap, the trade idempotency key and the balance snapshot. Every function runs inside
// the caller's synchronous transaction and only writes; what differs between the paths stays
// with them: where the amounts come from (quote or chain), how balances move (ledger debit and
// credit, or mirrored from the chain), pending trades and the live journal.

/** The answer of a close (POST .../close, SPEC "Close position"). */
export interface CloseResult {
  success: true;
  transactionId: string;
  historicalSwapId: string;
  profitLossSol: number;
  profitLossUsd: number;
  changePercent: number;
  transactionHash: string;
}

export const lamportsToSol = (l: bigint): Big => fromAtomic(l, SOL_DECIMALS);

/** A buy's amounts: SOL swapped, tokens received, and the cost (SOL swapped plus fees). */
export function buyAmounts(
  fill: Pick<SwapFill, "inputAtomic" | "outputAtomic" | "feesSol">,
  tokenDecimals: number,
): { solSwapped: Big; tokens: Big; cost: Big } {
  const solSwapped = lamportsToSol(fill.inputAtomic);
  return { solSwapped, tokens: fromAtomic(fill.outputAtomic, tokenDecimals), cost: solSwapped.plus(fill.feesSol) };
}

/** A sale's amounts: tokens sold, SOL received, and the price per token (the last known price when nothing was sold). */
export function saleAmounts(
  p: PositionRecord,
  fill: Pick<SwapFill, "inputAtomic" | "outputAtomic">,
): { sold: Big; proceeds: Big; salePriceSol: Big } {
  const sold = fromAtomic(fill.inputAtomic, p.tokenDecimals);
  const proceeds = lamportsToSol(fill.outputAtomic);
  return { sold, proceeds, salePriceSol: sold.gt(0) ? proceeds.div(sold) : new Big(p.lastPriceSol ?? p.entryPriceSol) };
}

// --- agent_transactions -------------------------------------------------------------------------

/** Both sides of a swap as agent_transactions records them (SOL on one side, the token on the other). */
export interface SwapSides {
  type: "BUY" | "SELL";
  valueUsd: Big;
  tokenMint: string;
  inputMint: string;
  inputSymbol: string;
  inputAmount: Big;
  inputPriceUsd: Big;
  outputMint: string;
  outputSymbol: string;
  outputAmount: Big;
  outputPriceUsd: Big;
}

export interface SwapSideInput {
  tokenMint: string;
  tokenSymbol: string;
  /** SOL paid (buy) or received (sell). */
  sol: Big;
  tokens: Big;
  tokenPriceUsd: Big;
  solUsd: Big;
  valueUsd: Big;
}

/** SOL in, token out. */
export function buySides(a: SwapSideInput): SwapSides {
  return {
    type: "BUY",
    valueUsd: a.valueUsd,
    tokenMint: a.tokenMint,
    inputMint: SOL_MINT,
    inputSymbol: "SOL",
    inputAmount: a.sol,
    inputPriceUsd: a.solUsd,
    outputMint: a.tokenMint,
    outputSymbol: a.tokenSymbol,
    outputAmount: a.tokens,
    outputPriceUsd: a.tokenPriceUsd,
  };
}

/** Token in, SOL out. */
export function sellSides(a: SwapSideInput): SwapSides {
  return {
    type: "SELL",
    valueUsd: a.valueUsd,
    tokenMint: a.tokenMint,
    inputMint: a.tokenMint,
    inputSymbol: a.tokenSymbol,
    inputAmount: a.tokens,
    inputPriceUsd: a.tokenPriceUsd,
    outputMint: SOL_MINT,
    outputSymbol: "SOL",
    outputAmount: a.sol,
    outputPriceUsd: a.solUsd,
  };
}

export interface TransactionRow extends SwapSides {
  id: string;
  agentId: string;
  walletAddress: string;
  now: string;
  signalId: number | null;
  fill: Pick<SwapFill, "feesSol" | "routes" | "slippageBps" | "priceImpactPct" | "txHash">;
  isDca: boolean;
  isTakeProfit: boolean;
  mode: TradingMode;
  status: "confirmed" | "pending";
  /** null: a live swap recorded without a position (pending open, orphan). */
  positionId: string | null;
}

/** The fill's price impact as agent_transactions stores it (percent). */
export const priceImpactPercent = (fill: Pick<SwapFill, "priceImpactPct">): string =>
  decStr(new Big(fill.priceImpactPct || "0").times(100), 6);

export function insertTransaction(sqlite: Database, t: TransactionRow): void {
  sqlite
    .query(
      `INSERT INTO agent_transactions (id, agent_id, wallet_address, transaction_type, transaction_value_usd, transaction_time,
         destination_address, signal_id, fees, routes, input_mint, input_symbol, input_amount, input_price, output_mint,
         output_symbol, output_amount, output_price, slippage, price_impact, is_dca, is_take_profit, trading_mode,
         transaction_hash, status, position_id, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      t.id,
      t.agentId,
      t.walletAddress,
      t.type,
      decStr(t.valueUsd, 2),
      t.now,
      t.tokenMint,
      t.signalId,
      decStr(t.fill.feesSol),
      JSON.stringify(t.fill.routes),
      t.inputMint,
      t.inputSymbol,
      decStr(t.inputAmount),
      decStr(t.inputPriceUsd, 12),
      t.outputMint,
      t.outputSymbol,
      decStr(t.outputAmount),
      decStr(t.outputPriceUsd, 12),
      String(t.fill.slippageBps),
      priceImpactPercent(t.fill),
      t.isDca ? 1 : 0,
      t.isTakeProfit ? 1 : 0,
      t.mode,
      t.fill.txHash,
      t.status,
      t.positionId,
      t.now,
      t.now,
    );
}

// --- trade idempotency --------------------------------------------------------------------------

/** Writes the (agent, signal, action) trade key; false when another trade already holds it. */
export function insertTradeKey(
  sqlite: Database,
  agentId: string,
  signalId: number,
  action: string,
  transactionId: string,
  now: string,
): boolean {
  const res = sqlite
    .query(
      "INSERT OR IGNORE INTO trade_idempotency (agent_id, signal_id, action, transaction_id, created_at) VALUES (?, ?, ?, ?, ?)",
    )
    .run(agentId, signalId, action, transactionId, now);
  return res.changes > 0;
}

// --- positions ----------------------------------------------------------------------------------

export interface OpenPositionRow {
  id: string;
  agentId: string;
  walletAddress: string;
  mode: TradingMode;
  tokenAddress: string;
  tokenSymbol: string;
  tokenDecimals: number;
  signalId: number;
  entryPriceSol: Big;
  entryPriceUsd: Big;
  tokens: Big;
  /** SOL swapped plus fees. */
  cost: Big;
  solUsd: Big;
  transactionId: string;
  transactionHash: string;
  now: string;
}

/** The position a signal buy opens: everything bought remains, priced at the entry. */
export function insertOpenPosition(sqlite: Database, o: OpenPositionRow): void {
  sqlite
    .query(
      `INSERT INTO positions (id, agent_id, wallet_address, trading_mode, token_address, token_symbol, token_decimals, signal_id,
         status, entry_price_sol, entry_price_usd, purchase_amount, cost_sol, cost_usd, remaining_amount, peak_price_sol,
         last_price_sol, last_price_usd, purchase_transaction_id, purchase_transaction_hash, opened_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      o.id,
      o.agentId,
      o.walletAddress,
      o.mode,
      o.tokenAddress,
      o.tokenSymbol,
      o.tokenDecimals,
      o.signalId,
      decStr(o.entryPriceSol),
      decStr(o.entryPriceUsd, 12),
      decStr(o.tokens),
      decStr(o.cost),
      decStr(o.cost.times(o.solUsd), 6),
      decStr(o.tokens),
      decStr(o.entryPriceSol),
      decStr(o.entryPriceSol),
      decStr(o.entryPriceUsd, 12),
      o.transactionId,
      o.transactionHash,
      o.now,
      o.now,
      o.now,
    );
}

/** A DCA buy averages the position's entry and adds to its amount and cost (rules/dca.ts). Returns the position after it. */
export function applyDcaToPosition(
  sqlite: Database,
  p: PositionRecord,
  buy: { solSwapped: Big; feesSol: Big; tokens: Big },
  solUsd: Big,
  now: string,
): DcaFillResult {
  const next = applyDcaFill(
    {
      entryPriceSol: p.entryPriceSol,
      purchaseAmount: p.purchaseAmount,
      remainingAmount: p.remainingAmount,
      costSol: p.costSol,
      dcaOrders: p.dcaOrders,
    },
    { solSwapped: buy.solSwapped, feesSol: buy.feesSol, tokensReceived: buy.tokens },
  );
  const cost = buy.solSwapped.plus(buy.feesSol);
  sqlite
    .query(
      `UPDATE positions SET entry_price_sol = ?, entry_price_usd = ?, purchase_amount = ?, remaining_amount = ?, cost_sol = ?,
         cost_usd = ?, dca_orders = ?, updated_at = ? WHERE id = ?`,
    )
    .run(
      decStr(next.entryPriceSol),
      decStr(next.entryPriceSol.times(solUsd), 12),
      decStr(next.purchaseAmount),
      decStr(next.remainingAmount),
      decStr(next.costSol),
      decStr(new Big(p.costUsd).plus(cost.times(solUsd)), 6),
      next.dcaOrders,
      now,
      p.id,
    );
  return next;
}

/** What a sale of an open position does to it: a take-profit level, or the close. */
export type SaleOnPosition =
  | { kind: "close"; reason: CloseReason }
  | {
      kind: "take_profit";
      levelsHit: number;
      moonBagActivated: boolean;
      moonBagAmount: Big | null;
      closesPosition: boolean;
    };

export interface SaleFigures {
  sold: Big;
  proceeds: Big;
  feesSol: Big;
  salePriceSol: Big;
  /** Tokens the position holds after the sale. */
  remainingAfter: Big;
  /** The SELL's agent_transactions id; null when nothing was sold (a close after take-profit sold everything). */
  saleTransactionId: string | null;
  historicalSwapId: string;
  transactionHash: string;
}

/**
 * Books a sale on its open position: a take-profit sale locks in its profit and records the level
 * and moon bag; a close (or the take-profit sale that empties the position) closes it, writes the
 * historical swap and answers the close's P/L. Returns the realized profit after the sale and the
 * CloseResult when the position closed.
 */
export function recordSaleOnPosition(
  sqlite: Database,
  p: PositionRecord,
  sale: SaleOnPosition,
  s: SaleFigures,
  solUsd: Big,
  now: string,
): { realizedProfitSol: Big; closed: CloseResult | null } {
  let realizedAfter = new Big(p.realizedProfitSol);
  if (sale.kind === "take_profit") {
    const tp = takeProfitSalePnl({
      costSol: p.costSol,
      purchaseAmount: p.purchaseAmount,
      tokensSold: s.sold,
      proceedsSol: s.proceeds,
      feesSol: s.feesSol,
    });
    realizedAfter = realizedAfter.plus(tp.realizedProfitSol);
    sqlite
      .query(
        `UPDATE positions SET remaining_amount = ?, levels_hit = ?, realized_profit_sol = ?, realized_profit_usd = ?,
           moon_bag_activated = ?, moon_bag_amount = ?, updated_at = ? WHERE id = ?`,
      )
      .run(
        decStr(s.remainingAfter),
        sale.levelsHit,
        decStr(realizedAfter),
        decStr(new Big(p.realizedProfitUsd).plus(tp.realizedProfitSol.times(solUsd)), 6),
        sale.moonBagActivated ? 1 : 0,
        sale.moonBagAmount ? decStr(sale.moonBagAmount) : null,
        now,
        p.id,
      );
  }
  if (sale.kind === "take_profit" && !sale.closesPosition) return { realizedProfitSol: realizedAfter, closed: null };
  return {
    realizedProfitSol: realizedAfter,
    closed: closePositionRows(
      sqlite,
      p,
      sale.kind === "close" ? sale.reason : "take_profit",
      sale.kind === "close",
      realizedAfter,
      s,
      solUsd,
      now,
    ),
  };
}

function closePositionRows(
  sqlite: Database,
  p: PositionRecord,
  reason: CloseReason,
  finalSale: boolean,
  realizedAfter: Big,
  s: SaleFigures,
  solUsd: Big,
  now: string,
): CloseResult {
  // For a take-profit sale that empties the position, its profit is already in realizedAfter
  // and the close adds nothing more from this sale.
  const pnl = closePnl({
    costSol: p.costSol,
    purchaseAmount: p.purchaseAmount,
    remainingAmount: finalSale ? p.remainingAmount : "0",
    entryPriceSol: p.entryPriceSol,
    realizedProfitSol: realizedAfter,
    proceedsSol: finalSale ? s.proceeds : 0,
    feesSol: finalSale ? s.feesSol : 0,
    solUsdPrice: solUsd,
  });
  sqlite
    .query(
      "UPDATE positions SET status = 'closed', remaining_amount = ?, closed_at = ?, close_reason = ?, last_price_sol = ?, updated_at = ? WHERE id = ?",
    )
    .run(decStr(s.remainingAfter), now, reason, decStr(s.salePriceSol), now, p.id);
  sqlite
    .query(
      `INSERT INTO historical_swaps (id, agent_id, wallet_address, token_address, token_symbol, amount, purchase_price, sale_price,
         change_percent, profit_loss_usd, profit_loss_sol, purchase_time, sale_time, purchase_transaction_id, sale_transaction_id,
         signal_id, close_reason, position_id, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      s.historicalSwapId,
      p.agentId,
      p.walletAddress,
      p.tokenAddress,
      p.tokenSymbol,
      decStr(p.purchaseAmount),
      decStr(p.entryPriceSol),
      decStr(s.salePriceSol),
      decStr(pnl.changePercent, 4),
      decStr(pnl.profitLossUsd, 6),
      decStr(pnl.profitLossSol),
      p.openedAt,
      now,
      p.purchaseTransactionId,
      s.saleTransactionId,
      p.signalId === null ? null : String(p.signalId),
      reason,
      p.id,
      now,
      now,
    );
  return {
    success: true,
    transactionId: s.saleTransactionId ?? "",
    historicalSwapId: s.historicalSwapId,
    profitLossSol: decNum(pnl.profitLossSol),
    profitLossUsd: decNum(pnl.profitLossUsd),
    changePercent: decNum(pnl.changePercent),
    transactionHash: s.transactionHash,
  };
}

// --- balance snapshot ---------------------------------------------------------------------------

/** Snapshot of an agent wallet's SOL balance and total value (after a trade, or hourly). */
export function recordWalletSnapshot(
  sqlite: Database,
  agentId: string,
  walletAddress: string,
  solUsd: Big | null,
  now: string,
  reason: "trade" | "hourly" = "trade",
): void {
  const sol = readBalance({ sqlite }, { agentId, walletAddress, tokenAddress: SOL_MINT });
  // Open positions valued at their last known price (entry price until the monitor priced them).
  const rows = sqlite
    .query<{ remaining: string; price: string }, [string, string]>(
      "SELECT remaining_amount AS remaining, COALESCE(last_price_sol, entry_price_sol) AS price FROM positions WHERE agent_id = ? AND wallet_address = ? AND status = 'open'",
    )
    .all(agentId, walletAddress);
  let total = sol;
  for (const r of rows) total = total.plus(new Big(r.remaining).times(r.price));
  recordBalanceSnapshot(
    { sqlite },
    {
      agentId,
      walletAddress,
      solBalance: decStr(sol),
      totalValueSol: decStr(total, 9),
      totalValueUsd: solUsd ? decStr(total.times(solUsd), 2) : null,
      reason,
      now,
    },
  );
}
