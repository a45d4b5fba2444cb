import { type Clock, isoNow } from "../../clock.ts";
import { inOrJoinTransaction } from "../../db/client.ts";
import type { PositionRecord } from "../../db/repositories/positions.ts";
import { newRowId } from "../../db/row-id.ts";
import { credit, debit, readBalance } from "../../ledgers/balance-ledger.ts";
import type { Logger } from "../../logger.ts";
import { Big, SOL_MINT } from "../../money.ts";
import type { SwapFill } from "../executor.ts";
import type { DcaFillResult } from "../rules/dca.ts";
import { tokenAccountClose, tokenAccountRentSol } from "../rules/fees.ts";
import { buyAmounts, buySides, saleAmounts, sellSides } from "./amounts.ts";
import type { TradeBook } from "./bookkeeping.ts";
import type {
  CloseResult,
  DcaSettled,
  OpenSettled,
  OpenTrade,
  SaleRequest,
  SaleSettled,
  Settlement,
  SettleOutcome,
} from "./types.ts";
import { saleCloses, saleSignalId } from "./types.ts";

// Token account rent (docs/decisions.md "Books that reconcile"): the buy that opens a position on
// a mint the wallet holds none of creates the token account and pays its rent, recorded on that
// BUY as rentDepositSol (not in its fees, cost, entry or P/L); the sale that closes the position
// closes the account: the rent comes back to the wallet's SOL, recorded on that SELL as
// rentRefundSol, and the close's fee is in that SELL's fees and the P/L (P/L = the wallet's gain,
// docs/decisions/pnl-is-wallet-gain.md). So the records sum to the SOL balance: initial −
// Σ BUY(inputAmount + fees) + Σ SELL(outputAmount − fees) − Σ rentDepositSol + Σ rentRefundSol.
//
// Simulation settlement: the fill is the aggregator's quote, and the
// agent's ledger moves by it — debit of the SOL spent (size plus fees), credit of the tokens, and
// back on a sale — in ONE synchronous transaction with the transaction record, the position, the
// trade key and the balance snapshot (joining the caller's transaction when there is one: a group
// commit gives each settlement its own savepoint). The debit is the authority: short of SOL, it
// throws and nothing is written. Another run that got there first (trade key taken, position
// changed) is a skipped outcome; it is checked before the first write, so nothing is written either.

export class SimulationSettlement implements Settlement {
  constructor(
    private readonly book: TradeBook,
    private readonly clock: Clock,
    readonly logger: Logger,
  ) {}

  open(t: OpenTrade, swapFill: SwapFill, solUsd: Big): SettleOutcome<OpenSettled> {
    const { solSwapped, tokens } = buyAmounts(swapFill, t.decimals);
    const entrySol = solSwapped.div(tokens);
    const entryUsd = entrySol.times(solUsd);
    const now = isoNow(this.clock);
    const positionId = newRowId();
    const txId = newRowId();
    const h = this.book.db;
    const tokenKey = { agentId: t.agentId, walletAddress: t.walletAddress, tokenAddress: t.tokenAddress };
    const fill = swapFill;
    const cost = solSwapped.plus(fill.feesSol);
    let rent = new Big(0);
    const taken = inOrJoinTransaction(h, () => {
      // Another settle already recorded this (agent, signal, action): nothing is written.
      if (!this.book.keys.insert(t.agentId, t.signalId, "BUY", txId, now)) return true;
      // The tokens first: what the credit finds held before tells whether this buy creates the
      // token account (none held) and pays its rent. A refused debit below rolls the credit back
      // with everything else.
      const heldBefore = credit(h, tokenKey, tokens, { now, tokenSymbol: t.symbol, decimals: t.decimals }).minus(
        tokens,
      );
      rent = tokenAccountRentSol(heldBefore);
      const solKey = { agentId: t.agentId, walletAddress: t.walletAddress, tokenAddress: SOL_MINT };
      const sol = debit(h, solKey, cost.plus(rent), { now });
      this.book.insertTransaction({
        ...buySides({
          tokenMint: t.tokenAddress,
          tokenSymbol: t.symbol,
          sol: solSwapped,
          tokens,
          tokenPriceUsd: entryUsd,
          solUsd,
          valueUsd: cost.times(solUsd),
        }),
        id: txId,
        agentId: t.agentId,
        walletAddress: t.walletAddress,
        now,
        signalId: t.signalId,
        fill,
        isDca: false,
        isTakeProfit: false,
        mode: t.mode,
        status: fill.status,
        positionId,
        rentDepositSol: rent,
      });
      this.book.openPosition({
        id: positionId,
        agentId: t.agentId,
        walletAddress: t.walletAddress,
        mode: t.mode,
        tokenAddress: t.tokenAddress,
        tokenSymbol: t.symbol,
        tokenDecimals: t.decimals,
        signalId: t.signalId,
        entryPriceSol: entrySol,
        entryPriceUsd: entryUsd,
        tokens,
        solSwapped,
        cost,
        solUsd,
        transactionId: txId,
        transactionHash: fill.txHash,
        now,
      });
      this.book.snapshot(t.agentId, t.walletAddress, solUsd, now, "trade", sol);
      return false;
    });
    if (taken) return { status: "skipped", reason: `signal ${t.signalId} already traded (BUY) by agent ${t.agentId}` };
    return {
      status: "settled",
      trade: {
        kind: "open",
        mode: t.mode,
        userId: t.userId,
        agentId: t.agentId,
        tokenAddress: t.tokenAddress,
        signalId: t.signalId,
        transactionId: txId,
        hash: fill.txHash,
        positionId,
        symbol: t.symbol,
        cost,
        tokens,
        entrySol,
      },
    };
  }

  dca(p: PositionRecord, order: number, fill: SwapFill, solUsd: Big): SettleOutcome<DcaSettled> {
    const { solSwapped, tokens, cost } = buyAmounts(fill, p.tokenDecimals);
    const now = isoNow(this.clock);
    const txId = newRowId();
    const h = this.book.db;
    const next: DcaFillResult | null = inOrJoinTransaction(h, () => {
      const fresh = this.book.positions.byId(p.id);
      if (fresh?.status !== "open" || fresh.dcaOrders !== p.dcaOrders) return null;
      debit(h, { agentId: p.agentId, walletAddress: p.walletAddress, tokenAddress: SOL_MINT }, cost, { now });
      credit(h, { agentId: p.agentId, walletAddress: p.walletAddress, tokenAddress: p.tokenAddress }, tokens, {
        now,
        tokenSymbol: p.tokenSymbol,
        decimals: p.tokenDecimals,
      });
      this.book.insertTransaction({
        ...buySides({
          tokenMint: p.tokenAddress,
          tokenSymbol: p.tokenSymbol,
          sol: solSwapped,
          tokens,
          tokenPriceUsd: solSwapped.div(tokens).times(solUsd),
          solUsd,
          valueUsd: cost.times(solUsd),
        }),
        id: txId,
        agentId: p.agentId,
        walletAddress: p.walletAddress,
        now,
        signalId: p.signalId,
        fill,
        isDca: true,
        isTakeProfit: false,
        mode: p.tradingMode,
        status: fill.status,
        positionId: p.id,
      });
      const averaged = this.book.applyDca(p, { solSwapped, feesSol: fill.feesSol, tokens }, solUsd, now);
      this.book.snapshot(p.agentId, p.walletAddress, solUsd, now);
      return averaged;
    });
    if (!next) return { status: "skipped", reason: "position changed" };
    return {
      status: "settled",
      trade: {
        kind: "dca",
        mode: p.tradingMode,
        userId: p.userId,
        agentId: p.agentId,
        tokenAddress: p.tokenAddress,
        positionId: p.id,
        order,
        transactionId: txId,
        hash: null,
        cost,
        tokens,
        next,
      },
    };
  }

  sell(p: PositionRecord, sale: SaleRequest, fill: SwapFill, solUsd: Big): SettleOutcome<SaleSettled> {
    const { sold, proceeds, salePriceSol } = saleAmounts(p, fill);
    const now = isoNow(this.clock);
    const txId = newRowId();
    const swapId = newRowId();
    const remainingAfter = new Big(p.remainingAmount).minus(sold);
    // An exit signal's close and a manual sale take their signal's trade key: they happen once.
    const exitSignal = saleSignalId(sale);
    const h = this.book.db;
    const booked = inOrJoinTransaction(h, (): { realizedProfitSol: Big; closed: CloseResult | null } | string => {
      const fresh = this.book.positions.byId(p.id);
      if (fresh?.status !== "open" || fresh.remainingAmount !== p.remainingAmount) return "position changed";
      if (exitSignal !== undefined && !this.book.keys.insert(p.agentId, exitSignal, "SELL", txId, now))
        return `signal ${exitSignal} already traded (SELL) by agent ${p.agentId}`;
      const key = { agentId: p.agentId, walletAddress: p.walletAddress, tokenAddress: p.tokenAddress };
      const solKey = { agentId: p.agentId, walletAddress: p.walletAddress, tokenAddress: SOL_MINT };
      let fees = fill.feesSol;
      if (sold.gt(0)) {
        debit(h, key, sold, { now });
        // The sale that closes the position empties the token account, which is then closed: its
        // whole rent comes back to the wallet's SOL, recorded on this SELL as rentRefundSol (not
        // in its proceeds or the position's P/L), and the close's fee joins the SELL's fees, in
        // the P/L, as live records its separate close transaction (docs/decisions/
        // pnl-is-wallet-gain.md). Not for a Token-2022 mint with a transfer fee: live cannot close
        // its account.
        const close = tokenAccountClose(saleCloses(sale) && !fill.keepsTokenAccount && readBalance(h, key).eq(0));
        fees = fill.feesSol.plus(close.feeSol);
        const net = proceeds.minus(fees).plus(close.refundSol);
        if (net.gte(0)) credit(h, solKey, net, { now });
        else debit(h, solKey, net.abs(), { now });
        this.book.insertTransaction({
          ...sellSides({
            tokenMint: p.tokenAddress,
            tokenSymbol: p.tokenSymbol,
            sol: proceeds,
            tokens: sold,
            tokenPriceUsd: salePriceSol.times(solUsd),
            solUsd,
            valueUsd: proceeds.times(solUsd),
          }),
          id: txId,
          agentId: p.agentId,
          walletAddress: p.walletAddress,
          now,
          signalId: exitSignal ?? p.signalId,
          fill: { ...fill, feesSol: fees },
          isDca: false,
          isTakeProfit: sale.kind === "take_profit",
          mode: p.tradingMode,
          status: fill.status,
          positionId: p.id,
          rentRefundSol: close.refundSol,
        });
      }
      const r = this.book.recordSale(
        p,
        sale,
        {
          sold,
          proceeds,
          feesSol: fees,
          salePriceSol,
          remainingAfter,
          saleTransactionId: sold.gt(0) ? txId : null,
          historicalSwapId: swapId,
          transactionHash: fill.txHash,
        },
        solUsd,
        now,
      );
      this.book.snapshot(p.agentId, p.walletAddress, solUsd, now);
      return r;
    });
    if (typeof booked === "string") return { status: "skipped", reason: booked };
    return {
      status: "settled",
      trade: {
        kind: "sale",
        mode: p.tradingMode,
        userId: p.userId,
        agentId: p.agentId,
        tokenAddress: p.tokenAddress,
        positionId: p.id,
        transactionId: txId,
        hash: fill.txHash,
        sale,
        sold,
        proceeds,
        traded: sold.gt(0),
        positionWasOpen: true,
        closing: saleCloses(sale),
        closed: booked.closed,
        levelsHitBefore: p.levelsHit,
        remainingAfter,
        realizedAfter: booked.realizedProfitSol,
      },
    };
  }
}
