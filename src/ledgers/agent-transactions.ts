import type { Clock } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { type TransactionInsert, transactionLedger } from "../db/repositories/ledgers.ts";
import { listTransactions, type TransactionFilter, type TransactionRecord } from "../db/repositories/transactions.ts";
import { newRowId } from "../db/row-id.ts";
import type { Logger } from "../logger.ts";
import { LedgerCrud } from "./ledger-crud.ts";

// Agent transactions (SPEC "Agent transaction", "Agent transaction endpoints"): the record of
// every BUY and SELL. The trading engine writes them inside its trade transaction; the HTTP CRUD
// is for internal tooling and corrections. Trading never reads them back: DCA sizes, entry and
// cost come from the position's own fields written by settlement, so editing a record changes
// what is shown, not what the agent does (docs/decisions.md "Books that reconcile").

type Row = TransactionRecord;

/** The record as the API shows it (SPEC "Agent transaction"); positionId stays internal. */
export type TransactionView = Omit<Row, "positionId" | "routes"> & { routes: string[] };

export const toTransactionView = (r: Row): TransactionView => ({
  id: r.id,
  agentId: r.agentId,
  walletAddress: r.walletAddress,
  transactionType: r.transactionType,
  transactionValueUsd: r.transactionValueUsd,
  transactionTime: r.transactionTime,
  destinationAddress: r.destinationAddress,
  signalId: r.signalId,
  fees: r.fees,
  rentDepositSol: r.rentDepositSol,
  rentRefundSol: r.rentRefundSol,
  routes: r.routes ?? [],
  inputMint: r.inputMint,
  inputSymbol: r.inputSymbol,
  inputAmount: r.inputAmount,
  inputPrice: r.inputPrice,
  outputMint: r.outputMint,
  outputSymbol: r.outputSymbol,
  outputAmount: r.outputAmount,
  outputPrice: r.outputPrice,
  slippage: r.slippage,
  priceImpact: r.priceImpact,
  isDca: r.isDca,
  isTakeProfit: r.isTakeProfit,
  tradingMode: r.tradingMode,
  transactionHash: r.transactionHash,
  status: r.status,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

/** Fields a caller may set; agentId only on creation (a record never moves between agents). */
export type TransactionFields = Omit<
  TransactionView,
  "id" | "agentId" | "tradingMode" | "status" | "createdAt" | "updatedAt"
>;

export type TransactionCreate = { agentId: string } & Pick<
  TransactionFields,
  | "walletAddress"
  | "transactionType"
  | "transactionValueUsd"
  | "inputMint"
  | "inputAmount"
  | "outputMint"
  | "outputAmount"
> &
  Partial<TransactionFields>;

export type TransactionQuery = Omit<TransactionFilter, "tradingMode">;

export class AgentTransactionService {
  private readonly crud: LedgerCrud<Row, TransactionInsert, TransactionView>;

  constructor(
    private readonly database: DatabaseHandle,
    clock: Clock,
    logger: Logger,
  ) {
    this.crud = new LedgerCrud(
      {
        repo: transactionLedger(database.db),
        notFound: "Transaction not found",
        log: {
          created: "agent transaction recorded",
          updated: "agent transaction updated",
          deleted: "agent transaction deleted",
          idField: "transactionId",
        },
        view: toTransactionView,
        stamp: (now) => ({ updatedAt: now }),
        emptyUpdate: "At least one field must be provided",
      },
      database,
      clock,
      logger,
    );
  }

  /** Newest transactionTime first; every filter of the spec narrows with AND. */
  list(userId: string, q: TransactionQuery): TransactionView[] {
    this.crud.requireAgent(userId, q.agentId);
    return listTransactions(this.database.db, q).map(toTransactionView);
  }

  get(userId: string, id: string): TransactionView {
    return this.crud.get(userId, id);
  }

  create(userId: string, input: TransactionCreate): TransactionView {
    const now = this.crud.now();
    const row = {
      id: newRowId(),
      agentId: input.agentId,
      walletAddress: input.walletAddress,
      transactionType: input.transactionType,
      transactionValueUsd: input.transactionValueUsd,
      transactionTime: input.transactionTime ?? now,
      destinationAddress: input.destinationAddress ?? null,
      signalId: input.signalId ?? null,
      fees: input.fees ?? null,
      rentDepositSol: input.rentDepositSol ?? "0",
      rentRefundSol: input.rentRefundSol ?? "0",
      routes: input.routes ?? [],
      inputMint: input.inputMint,
      inputSymbol: input.inputSymbol ?? null,
      inputAmount: input.inputAmount,
      inputPrice: input.inputPrice ?? null,
      outputMint: input.outputMint,
      outputSymbol: input.outputSymbol ?? null,
      outputAmount: input.outputAmount,
      outputPrice: input.outputPrice ?? null,
      slippage: input.slippage ?? null,
      priceImpact: input.priceImpact ?? null,
      isDca: input.isDca ?? false,
      isTakeProfit: input.isTakeProfit ?? false,
      transactionHash: input.transactionHash ?? null,
      createdAt: now,
      updatedAt: now,
    };
    return this.crud.create(userId, row, { type: row.transactionType });
  }

  update(userId: string, id: string, patch: Partial<TransactionFields>): TransactionView {
    return this.crud.update(userId, id, patch);
  }

  delete(userId: string, id: string): void {
    this.crud.delete(userId, id);
  }
}
