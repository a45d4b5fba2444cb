import { z } from "@hono/zod-openapi";
import { isoDateTime, pagination } from "../../schemas.ts";
import { isSolanaAddress, SOLANA_ADDRESS_MESSAGE } from "../../solana-address.ts";

const strength = z
  .number({
    error: (iss) =>
      iss.input === undefined ? "Signal strength is required" : "Signal strength must be between 1 and 5",
  })
  .int({ error: "Signal strength must be between 1 and 5" })
  .min(1, { error: "Signal strength must be between 1 and 5" })
  .max(5, { error: "Signal strength must be between 1 and 5" });

/** A token mint in a request body: required, base58, 32 bytes (also the manual buy's). */
export const tokenAddressField = z
  .string({ error: "Token address is required" })
  .trim()
  .min(1, { error: "Token address is required", abort: true })
  .max(255, { error: "Token address must be at most 255 characters", abort: true })
  .refine(isSolanaAddress, { error: SOLANA_ADDRESS_MESSAGE });

const fields = {
  tokenAddress: tokenAddressField,
  symbol: z
    .string({ error: "Symbol must be a string" })
    .max(50, { error: "Symbol must be at most 50 characters" })
    .nullish(),
  signalType: z
    .string({ error: "Signal type is required" })
    .trim()
    .min(1, { error: "Signal type is required" })
    .max(50, { error: "Signal type must be at most 50 characters" })
    .openapi({
      description:
        "sell, exit or close (any case) close the agents' positions in the token; buy, long or entry (any " +
        "case) open one. Any other type is stored and shown but opens nothing unless an agent lists it in " +
        "filters.signalTypes (rule signal_type).",
    }),
  signalStrength: strength,
  activationReason: z
    .string({ error: "Activation reason must be a string" })
    .max(10_000, { error: "Activation reason must be at most 10000 characters" })
    .nullish(),
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

const AgentDecisionSchema = z
  .object({
    agentId: z.string(),
    agentName: z.string(),
    outcome: z.enum(["traded", "ineligible", "failed", "pending", "stale"]).openapi({
      description:
        "traded: a position was opened (or, for an exit signal, closed); ineligible: a rule refused the signal " +
        "(see rule and reason); failed: eligible, but the trade did not happen (reason); pending: a live swap " +
        "was sent and awaits confirmation; stale: a buy decided more than SIGNAL_MAX_AGE_SECONDS after it was " +
        "received, which opened nothing (the reason gives its age)",
    }),
    rule: z.string().nullable().openapi({ description: "The eligibility rule that refused the signal" }),
    reason: z.string().nullable(),
    positionId: z.string().nullable(),
    transactionId: z.string().nullable(),
    at: z.string(),
  })
  .openapi("SignalAgentDecision");

const SignalProcessingSchema = z
  .object({
    status: z.enum(["pending", "processing", "done", "expired"]).openapi({
      description:
        "pending: queued; processing: the agents are being evaluated; done: every agent was evaluated; " +
        "expired: too old when an earlier version restarted, never traded (today such a signal is resumed " +
        "and each agent's outcome says stale)",
    }),
    evaluations: z.array(AgentDecisionSchema).openapi({
      description: "One entry per agent of the signal's owner that evaluated it, in the order evaluated",
    }),
  })
  .openapi("SignalProcessing", {
    example: {
      status: "done",
      evaluations: [
        {
          agentId: "0b9f3c1e-8f0a-4c55-9f7e-2a1d3c4b5e6f",
          agentName: "momentum",
          outcome: "traded",
          rule: null,
          reason: null,
          positionId: "5d2c7a9e-1b3f-4e8d-a6c0-9f8e7d6c5b4a",
          transactionId: "8e7d6c5b-4a3f-4e2d-b1c0-0f9e8d7c6b5a",
          at: "2026-01-15T10:30:01.250Z",
        },
        {
          agentId: "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
          agentName: "blue chips only",
          outcome: "ineligible",
          rule: "allowed_tokens",
          reason: "Token DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263 is not in allowedTokens",
          positionId: null,
          transactionId: null,
          at: "2026-01-15T10:30:01.180Z",
        },
      ],
    },
  });

export const SignalWithProcessingSchema = SignalSchema.extend({ processing: SignalProcessingSchema }).openapi(
  "TradingSignalWithProcessing",
);

export const SignalIdParam = z.object({
  id: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, { error: "Invalid signal ID format" })
    .transform(Number)
    .openapi({ param: { name: "id", in: "path" }, example: "42" }),
});

const filterFields = {
  tokenAddress: z.string().max(255, { error: "tokenAddress must be at most 255 characters" }).optional(),
  symbol: z
    .string()
    .trim()
    .max(50, { error: "symbol must be at most 50 characters" })
    .optional()
    .openapi({ description: "The signal's symbol, any case" }),
  signalType: z.string().max(50, { error: "signalType must be at most 50 characters" }).optional(),
  startDate: isoDateTime("startDate").optional(),
  endDate: isoDateTime("endDate").optional(),
};
export const SignalListQuery = z.object({
  ...filterFields,
  ...pagination(100, 1000),
  include: z
    .enum(["processing"], { error: 'include must be "processing"' })
    .optional()
    .openapi({ description: "processing: add each signal's processing (status and each agent's decision)" }),
});
export const SignalExportQuery = z.object(filterFields);
