import { ledgerRoutes } from "../ledger-routes.ts";
import {
  BalanceIdParam,
  BalanceListItemSchema,
  BalanceListQuery,
  BalanceSchema,
  CreateBalanceBody,
  UpdateBalanceBody,
} from "./schema.ts";

// /api/v1/agent-balances (SPEC "Agent balance endpoints"): GETs take a JWT or a `balances` key;
// writes take a JWT or a full_access key (PRODUCT.md §2).

export const agentBalanceRoutes = ledgerRoutes({
  tag: "agent-balances",
  scope: "balances",
  service: (s) => s.agentBalances,
  idParam: BalanceIdParam,
  listQuery: BalanceListQuery,
  item: BalanceSchema,
  listItem: BalanceListItemSchema,
  create: CreateBalanceBody,
  update: UpdateBalanceBody,
  text: {
    list: "The agent's balances, SOL first, each with priceSol",
    getOne: "One balance (without priceSol)",
  },
  createErrors: [409],
});
