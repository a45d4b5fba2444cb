import { z } from "@hono/zod-openapi";
import {
  agentIdBody,
  agentIdQuery,
  decimalString,
  ledgerRecordFields,
  objectBody,
  optionalQueryText,
  queryDate,
  queryFlag,
  queryInteger,
  requiredText,
  signedDecimalString,
  timestamp,
} from "../../ledger-fields.ts";
import { pagination, uuidParam } from "../../schemas.ts";

// SPEC "Agent transaction", "Agent transaction endpoints".

const TRANSACTION_TYPE_MESSAGE = "Transaction type must be either 'BUY' or 'SELL'";
const transactionType = z.enum(["BUY", "SELL"], { error: TRANSACTION_TYPE_MESSAGE });

export const TransactionIdParam = uuidParam("id", "Invalid transaction ID format");

export const TransactionSchema = z
  .object({
    ...ledgerRecordFields,
    transactionType,
    transactionValueUsd: z.string(),
    transactionTime: z.string(),
    destinationAddress: z.string().nullable(),
    signalId: z.number().int().nullable(),
    fees: z.string().nullable().openapi({
      description: "SOL: the network and priority fees of the swap; never the token account's rent",
    }),
    rentDepositSol: z.string().openapi({
      description:
        'SOL of token-account rent this BUY paid (it created the account); "0" otherwise. Not part of fees, the cost or P/L. SOL balance = initial − Σ BUY(inputAmount + fees + rentDepositSol) + Σ SELL(outputAmount − fees + rentRefundSol)',
      example: "0.00203928",
    }),
    rentRefundSol: z.string().openapi({
      description:
        'SOL of token-account rent that came back to the wallet after this SELL emptied the account and it was closed (the rent less the closing transaction\'s fee); "0" otherwise. Not part of fees, proceeds or P/L',
      example: "0.00203428",
    }),
    routes: z.array(z.string()),
    inputMint: z.string(),
    inputSymbol: z.string().nullable(),
    inputAmount: z.string(),
    inputPrice: z.string().nullable(),
    outputMint: z.string(),
    outputSymbol: z.string().nullable(),
    outputAmount: z.string(),
    outputPrice: z.string().nullable(),
    slippage: z.string().nullable().openapi({ description: "basis points" }),
    priceImpact: z.string().nullable().openapi({ description: "percentage" }),
    isDca: z.boolean(),
    isTakeProfit: z.boolean(),
    tradingMode: z.string(),
    transactionHash: z.string().nullable(),
    status: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("AgentTransaction");

export const TransactionListQuery = z.object({
  agentId: agentIdQuery,
  walletAddress: optionalQueryText("walletAddress"),
  transactionType: transactionType
    .optional()
    .openapi({ param: { name: "transactionType", in: "query" }, example: "BUY" }),
  startTime: queryDate("startTime"),
  endTime: queryDate("endTime"),
  signalId: queryInteger("signalId"),
  isDca: queryFlag("isDca"),
  isTakeProfit: queryFlag("isTakeProfit"),
  ...pagination(100, 1000),
});

const optionalText = (field: string, max = 255) =>
  z
    .string({ error: `${field} must be a string` })
    .max(max, { error: `${field} must be at most ${max} characters` })
    .nullable()
    .optional();
const flag = (field: string) => z.boolean({ error: `${field} must be true or false` }).optional();

/** Fields besides the required ones of the spec (SPEC: "other transaction fields may exist"). */
const optionalFields = {
  transactionTime: timestamp("transactionTime").optional(),
  destinationAddress: optionalText("destinationAddress"),
  signalId: z
    .number({ error: "signalId must be a whole number" })
    .int({ error: "signalId must be a whole number" })
    .positive({ error: "signalId must be a positive whole number" })
    .nullable()
    .optional(),
  fees: decimalString("fees", "0.000105").nullable().optional(),
  rentDepositSol: decimalString("rentDepositSol", "0.00203928").optional(),
  rentRefundSol: decimalString("rentRefundSol", "0.00203428").optional(),
  routes: z
    .array(
      z
        .string({ error: "routes must be an array of strings" })
        .max(255, { error: "Each route must be at most 255 characters" }),
      {
        error: "routes must be an array of strings",
      },
    )
    .max(50, { error: "routes must hold at most 50 entries" })
    .optional(),
  inputSymbol: optionalText("inputSymbol", 50),
  inputPrice: decimalString("inputPrice").nullable().optional(),
  outputSymbol: optionalText("outputSymbol", 50),
  outputPrice: decimalString("outputPrice").nullable().optional(),
  slippage: decimalString("slippage", "300").nullable().optional(),
  priceImpact: signedDecimalString("priceImpact", "0.12").nullable().optional(),
  isDca: flag("isDca"),
  isTakeProfit: flag("isTakeProfit"),
  transactionHash: optionalText("transactionHash", 128),
};

const requiredFields = {
  walletAddress: requiredText("walletAddress"),
  transactionType,
  transactionValueUsd: decimalString("transactionValueUsd", "152.40"),
  inputMint: requiredText("inputMint"),
  inputAmount: decimalString("inputAmount", "1"),
  outputMint: requiredText("outputMint"),
  outputAmount: decimalString("outputAmount", "35712.5"),
};

export const CreateTransactionBody = z
  .object({ agentId: agentIdBody, ...requiredFields, ...optionalFields }, { error: objectBody })
  .openapi("CreateAgentTransactionRequest", {
    example: {
      agentId: "0b5e2a4c-7a1d-4d8e-9a51-2f6a3c1d9e10",
      walletAddress: "sim_4Nd1mYf5Kq8Vb2Xc7Rz9Lp3Ws6Ht1Ug",
      transactionType: "BUY",
      transactionValueUsd: "152.40",
      inputMint: "So11111111111111111111111111111111111111112",
      inputAmount: "1",
      outputMint: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263",
      outputAmount: "35712.5",
    },
  });

export const UpdateTransactionBody = z
  .object(
    {
      walletAddress: requiredFields.walletAddress.optional(),
      transactionType: transactionType.optional(),
      transactionValueUsd: requiredFields.transactionValueUsd.optional(),
      inputMint: requiredFields.inputMint.optional(),
      inputAmount: requiredFields.inputAmount.optional(),
      outputMint: requiredFields.outputMint.optional(),
      outputAmount: requiredFields.outputAmount.optional(),
      ...optionalFields,
    },
    { error: objectBody },
  )
  .refine((b) => Object.values(b).some((v) => v !== undefined), { error: "At least one field must be provided" })
  .openapi("UpdateAgentTransactionRequest", { example: { transactionValueUsd: "150.00", fees: "0.000105" } });
