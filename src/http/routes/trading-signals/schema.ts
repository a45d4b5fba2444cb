import { z } from "@hono/zod-openapi";
import { isoDateTime, pagination } from "../../schemas.ts";
import { isSolanaAddress, SOLANA_ADDRESS_MESSAGE } from "../../solana-address.ts";

const strength = z
  .number({ error: "Signal strength must be between 1 and 5" })
  .int({ error: "Signal strength must be between 1 and 5" })
  .min(1, { error: "Signal strength must be between 1 and 5" })
  .max(5, { error: "Signal strength must be between 1 and 5" });

const fields = {
  tokenAddress: z
    .string({ error: "Token address is required" })
    .trim()
    .min(1, { error: "Token address is required", abort: true })
    .max(255, { error: "Token address must be at most 255 characters", abort: true })
    .refine(isSolanaAddress, { error: SOLANA_ADDRESS_MESSAGE }),
  symbol: z
    .string({ error: "Symbol must be a string" })
    .max(50, { error: "Symbol must be at most 50 characters" })
    .nullish(),
  signalType: z
    .string({ error: "Signal type is required" })
    .trim()
    .min(1, { error: "Signal type is required" })
    .max(50, { error: "Signal type must be at most 50 characters" }),
  signalStrength: strength,
  activationReason: z.string({ error: "Activation reason must be a string" }).max(10_000).nullish(),
  source: z
    .string({ error: "Source must be a string" })
    .max(100, { error: "Source must be at most 100 characters" })
    .nullish(),
};

export const CreateSignalBody = z.object(fields).openapi("CreateSignalRequest", {
  example: {
    tokenAddress: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263",
    symbol: "BONK",
    signalType: "buy",
    signalStrength: 4,
    activationReason: "volume breakout",
    source: "my-bot",
  },
});

export const UpdateSignalBody = z
  .object({
    tokenAddress: fields.tokenAddress.optional(),
    symbol: fields.symbol,
    signalType: fields.signalType.optional(),
    signalStrength: strength.optional(),
    activationReason: fields.activationReason,
    source: fields.source,
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { error: "At least one field is required" })
  .openapi("UpdateSignalRequest", { example: { symbol: "BONK", activationReason: "corrected reason" } });

export const SignalSchema = z
  .object({
    id: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
    tokenAddress: z.string(),
    symbol: z.string().nullable(),
    signalType: z.string(),
    activationReason: z.string().nullable(),
    signalStrength: z.number().int(),
    source: z.string().nullable(),
  })
  .openapi("TradingSignal");

export const SignalIdParam = z.object({
  id: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, { error: "Invalid signal ID format" })
    .transform(Number)
    .openapi({ param: { name: "id", in: "path" }, example: "42" }),
});

const filterFields = {
  tokenAddress: z.string().max(255).optional(),
  signalType: z.string().max(50).optional(),
  startDate: isoDateTime("startDate").optional(),
  endDate: isoDateTime("endDate").optional(),
};
export const SignalListQuery = z.object({ ...filterFields, ...pagination(100, 1000) });
export const SignalExportQuery = z.object(filterFields);
export const IdempotencyHeader = z.object({
  "idempotency-key": z.string().min(1).max(255, { error: "Idempotency-Key must be at most 255 characters" }).optional(),
});
