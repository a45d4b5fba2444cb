import { z } from "@hono/zod-openapi";
import { CLOSE_REASONS } from "../../../ledgers/historical-swaps.ts";
import {
  agentIdBody,
  agentIdQuery,
  decimalString,
  ledgerRecordFields,
  objectBody,
  optionalQueryText,
  queryDate,
  queryInteger,
  queryNumber,
  requiredText,
  signedDecimalString,
  timestamp,
} from "../../ledger-fields.ts";
import { pagination, uuidParam, wholeNumberInQuery } from "../../schemas.ts";

// SPEC "Historical swap", "Historical swap endpoints".

const CLOSE_REASON_MESSAGE = `Close reason must be one of: ${CLOSE_REASONS.join(", ")}`;
const closeReason = z.enum(CLOSE_REASONS, { error: CLOSE_REASON_MESSAGE });

export const SwapIdParam = uuidParam("id", "Invalid historical swap ID format");

export const SwapSchema = z
  .object({
    ...ledgerRecordFields,
    tokenAddress: z.string(),
    tokenSymbol: z.string(),
    amount: z.string(),
    purchasePrice: z.string(),
    salePrice: z.string(),
    changePercent: z.string(),
    profitLossUsd: z.string(),
    profitLossSol: z.string(),
    purchaseTime: z.string(),
    saleTime: z.string(),
    purchaseTransactionId: z.string().nullable(),
    saleTransactionId: z.string().nullable(),
    signalId: z.string().nullable(),
    closeReason: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("HistoricalSwap");

const filters = {
  agentId: agentIdQuery,
  walletAddress: optionalQueryText("walletAddress"),
  tokenAddress: optionalQueryText("tokenAddress"),
  tokenSymbol: optionalQueryText("tokenSymbol"),
  startPurchaseTime: queryDate("startPurchaseTime"),
  endPurchaseTime: queryDate("endPurchaseTime"),
  startSaleTime: queryDate("startSaleTime"),
  endSaleTime: queryDate("endSaleTime"),
  signalId: queryInteger("signalId"),
  minProfitLossUsd: queryNumber("minProfitLossUsd"),
  maxProfitLossUsd: queryNumber("maxProfitLossUsd"),
  closeReason: closeReason.optional().openapi({ param: { name: "closeReason", in: "query" }, example: "stop_loss" }),
};

export const SwapListQuery = z.object({ ...filters, ...pagination(100, 1000) });

/** Same filters; without `limit` the export holds every matching row (docs/decisions.md). */
export const SwapExportQuery = z.object({
  ...filters,
  limit: wholeNumberInQuery("limit", 1, 1000)
    .optional()
    .openapi({ param: { name: "limit", in: "query" }, example: 100 }),
  offset: pagination(100, 1000).offset,
});

export const SWAP_CSV_COLUMNS = [
  "id",
  "tokenAddress",
  "tokenSymbol",
  "amount",
  "purchasePrice",
  "salePrice",
  "changePercent",
  "profitLossUsd",
  "profitLossSol",
  "purchaseTime",
  "saleTime",
  "closeReason",
] as const;

const optionalId = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .max(255, { error: `${field} must be at most 255 characters` })
    .nullable()
    .optional();
const SIGNAL_ID_MESSAGE = "signalId must be a signal id (whole number)";
const signalId = z
  .union(
    [
      z.string({ error: SIGNAL_ID_MESSAGE }).regex(/^\d+$/, { error: SIGNAL_ID_MESSAGE }),
      z.number({ error: SIGNAL_ID_MESSAGE }).int({ error: SIGNAL_ID_MESSAGE }).positive({ error: SIGNAL_ID_MESSAGE }),
    ],
    { error: SIGNAL_ID_MESSAGE },
  )
  .transform((v) => String(v))
  .nullable()
  .optional();

const required = {
  walletAddress: requiredText("walletAddress"),
  tokenAddress: requiredText("tokenAddress"),
  tokenSymbol: requiredText("tokenSymbol", 50),
  amount: decimalString("amount", "35712.5"),
  purchasePrice: decimalString("purchasePrice", "0.000028"),
  salePrice: decimalString("salePrice", "0.000035"),
  profitLossUsd: signedDecimalString("profitLossUsd", "37.9"),
  purchaseTime: timestamp("purchaseTime"),
  saleTime: timestamp("saleTime"),
  closeReason,
};
const optional = {
  changePercent: signedDecimalString("changePercent", "25").optional(),
  profitLossSol: signedDecimalString("profitLossSol", "0.25").optional(),
  purchaseTransactionId: optionalId("purchaseTransactionId"),
  saleTransactionId: optionalId("saleTransactionId"),
  signalId,
};

export const CreateSwapBody = z
  .object({ agentId: agentIdBody, ...required, ...optional }, { error: objectBody })
  .openapi("CreateHistoricalSwapRequest", {
    example: {
      agentId: "0b5e2a4c-7a1d-4d8e-9a51-2f6a3c1d9e10",
      walletAddress: "sim_4Nd1mYf5Kq8Vb2Xc7Rz9Lp3Ws6Ht1Ug",
      tokenAddress: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263",
      tokenSymbol: "BONK",
      amount: "35712.5",
      purchasePrice: "0.000028",
      salePrice: "0.000035",
      profitLossUsd: "37.9",
      purchaseTime: "2026-01-15T12:00:00.000Z",
      saleTime: "2026-01-16T08:30:00.000Z",
      closeReason: "manual",
    },
  });

export const UpdateSwapBody = z
  .object(
    {
      walletAddress: required.walletAddress.optional(),
      tokenAddress: required.tokenAddress.optional(),
      tokenSymbol: required.tokenSymbol.optional(),
      amount: required.amount.optional(),
      purchasePrice: required.purchasePrice.optional(),
      salePrice: required.salePrice.optional(),
      profitLossUsd: required.profitLossUsd.optional(),
      purchaseTime: required.purchaseTime.optional(),
      saleTime: required.saleTime.optional(),
      closeReason: closeReason.optional(),
      ...optional,
    },
    { error: objectBody },
  )
  .refine((b) => Object.values(b).some((v) => v !== undefined), { error: "At least one field must be provided" })
  .openapi("UpdateHistoricalSwapRequest", { example: { closeReason: "stop_loss" } });
