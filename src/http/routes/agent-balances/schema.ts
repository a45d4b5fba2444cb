import { z } from "@hono/zod-openapi";
import {
  agentIdBody,
  agentIdQuery,
  decimalString,
  ledgerRecordFields,
  objectBody,
  optionalQueryText,
  requiredText,
} from "../../ledger-fields.ts";
import { pagination, uuidParam } from "../../schemas.ts";

// SPEC "Agent balance", "Agent balance endpoints".

export const BalanceIdParam = uuidParam("id", "Invalid balance ID format");

const base = {
  ...ledgerRecordFields,
  tokenAddress: z.string(),
  tokenSymbol: z.string(),
  balance: z.string().openapi({ example: "10.5" }),
  lastUpdated: z.string(),
};

export const BalanceSchema = z.object(base).openapi("AgentBalance");
export const BalanceListItemSchema = z
  .object({
    ...base,
    priceSol: z.number().nullable().openapi({ description: "Current price in SOL; 1 for SOL; null when unknown" }),
  })
  .openapi("AgentBalanceWithPrice");

export const BalanceListQuery = z.object({
  agentId: agentIdQuery,
  walletAddress: optionalQueryText("walletAddress"),
  ...pagination(50, 1000),
});

export const CreateBalanceBody = z
  .object(
    {
      agentId: agentIdBody,
      walletAddress: requiredText("walletAddress"),
      tokenAddress: requiredText("tokenAddress"),
      tokenSymbol: requiredText("tokenSymbol", 50),
      balance: decimalString("balance", "100.25"),
    },
    { error: objectBody },
  )
  .openapi("CreateAgentBalanceRequest", {
    example: {
      agentId: "0b5e2a4c-7a1d-4d8e-9a51-2f6a3c1d9e10",
      walletAddress: "sim_4Nd1mYf5Kq8Vb2Xc7Rz9Lp3Ws6Ht1Ug",
      tokenAddress: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263",
      tokenSymbol: "BONK",
      balance: "100.25",
    },
  });

export const UpdateBalanceBody = z
  .object(
    {
      balance: decimalString("balance", "99.5").optional(),
      tokenSymbol: requiredText("tokenSymbol", 50).optional(),
    },
    { error: objectBody },
  )
  .refine((b) => b.balance !== undefined || b.tokenSymbol !== undefined, {
    error: "At least one field must be provided: balance or tokenSymbol",
  })
  .openapi("UpdateAgentBalanceRequest", { example: { balance: "99.5" } });
