import { ledgerRoutes } from "../ledger-routes.ts";
import {
  CreateTransactionBody,
  TransactionIdParam,
  TransactionListQuery,
  TransactionSchema,
  UpdateTransactionBody,
} from "./schema.ts";

// /api/v1/agent-transactions (SPEC "Agent transaction endpoints"): GETs take a JWT or a
// `transactions` key; writes take a JWT or a full_access key (PRODUCT.md §2).

export const agentTransactionRoutes = ledgerRoutes({
  tag: "agent-transactions",
  scope: "transactions",
  service: (s) => s.agentTransactions,
  idParam: TransactionIdParam,
  listQuery: TransactionListQuery,
  item: TransactionSchema,
  create: CreateTransactionBody,
  update: UpdateTransactionBody,
  text: {
    list: "Transactions, newest transactionTime first",
    getOne: "One transaction",
    updateDescription:
      "Edits what the record shows. Trading never reads a transaction record back: DCA order sizes, entry price and cost come from the position's own fields, written when the trade settled, so an edit changes what is shown, not what the agent does.",
  },
});
