import { z } from "@hono/zod-openapi";
import { pagination, uuidParam } from "../../schemas.ts";
import { isSolanaAddress } from "../../solana-address.ts";

export const WalletWatchIdParam = uuidParam("id", "Invalid wallet watch ID format");

const address = z
  .string({ error: "address is required" })
  .refine(isSolanaAddress, { error: "address must be a base58 Solana public key (32 bytes)" })
  .openapi({ example: "DemoCopyAnt11111111111111111111111111111111" });
const label = z
  .string({ error: "label must be text" })
  .max(100, { error: "label must be at most 100 characters" })
  .openapi({ example: "Sniper I follow" });
const minSolAmount = z
  .number({ error: "minSolAmount must be a number" })
  .min(0.000000001, { error: "minSolAmount must be greater than 0" })
  .max(1_000_000, { error: "minSolAmount must be at most 1000000" })
  .openapi({ description: "Smallest SOL amount of a trade that is copied", example: 0.1 });
const signalStrength = z
  .number({ error: "Signal strength must be between 1 and 5" })
  .int({ error: "Signal strength must be between 1 and 5" })
  .min(1, { error: "Signal strength must be between 1 and 5" })
  .max(5, { error: "Signal strength must be between 1 and 5" });
const copySells = z.boolean({ error: "copySells must be true or false" });
const enabled = z.boolean({ error: "enabled must be true or false" });
const solLimit = (name: string, description: string, example: number) =>
  z
    .number({ error: `${name} must be a number` })
    .min(0.000000001, { error: `${name} must be greater than 0` })
    .max(1_000_000, { error: `${name} must be at most 1000000` })
    .openapi({ description, example });
const maxSolPerTrade = solLimit(
  "maxSolPerTrade",
  "Largest SOL size of one copied buy: the smaller of the agent's sizing and this (default 0.1)",
  0.1,
);
const dailySolBudget = solLimit(
  "dailySolBudget",
  "SOL one agent's copied buys from this wallet may swap per UTC day (default 0.5)",
  0.5,
);
const maxOpenPositions = z
  .number({ error: "maxOpenPositions must be a whole number from 1 to 100" })
  .int({ error: "maxOpenPositions must be a whole number from 1 to 100" })
  .min(1, { error: "maxOpenPositions must be a whole number from 1 to 100" })
  .max(100, { error: "maxOpenPositions must be a whole number from 1 to 100" })
  .openapi({
    description: "Positions copied from this wallet one agent may hold open at once (default 1)",
    example: 1,
  });

export const CreateWalletWatchBody = z
  .strictObject({
    address,
    label: label.default(""),
    minSolAmount: minSolAmount.default(0.1),
    signalStrength: signalStrength.default(3),
    copySells: copySells.default(false),
    enabled: enabled.default(true),
    maxSolPerTrade: maxSolPerTrade.default(0.1),
    maxOpenPositions: maxOpenPositions.default(1),
    dailySolBudget: dailySolBudget.default(0.5),
  })
  .openapi("CreateWalletWatchRequest", {
    example: { address: "DemoCopyAnt11111111111111111111111111111111", label: "Demo ant", minSolAmount: 0.1 },
  });

export const UpdateWalletWatchBody = z
  .strictObject({
    address: address.optional(),
    label: label.optional(),
    minSolAmount: minSolAmount.optional(),
    signalStrength: signalStrength.optional(),
    copySells: copySells.optional(),
    enabled: enabled.optional(),
    maxSolPerTrade: maxSolPerTrade.optional(),
    maxOpenPositions: maxOpenPositions.optional(),
    dailySolBudget: dailySolBudget.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    error:
      "At least one field must be provided: address, label, minSolAmount, signalStrength, copySells, enabled, maxSolPerTrade, maxOpenPositions or dailySolBudget",
  })
  .openapi("UpdateWalletWatchRequest", { example: { enabled: false } });

export const WalletWatchSchema = z
  .object({
    id: z.string(),
    address: z.string(),
    label: z.string(),
    minSolAmount: z.number(),
    signalStrength: z.number().int(),
    copySells: z.boolean(),
    enabled: z.boolean(),
    maxSolPerTrade: z.number(),
    maxOpenPositions: z.number().int(),
    dailySolBudget: z.number(),
    lastSeenSignature: z.string().nullable().openapi({ description: "Newest transaction read and decided" }),
    lastError: z.string().nullable().openapi({ description: "Why the last poll failed; null after a good one" }),
    lagSeconds: z.number().nullable().openapi({ description: "Block time → signal of the last copied trade" }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("WalletWatch");

const Evaluation = z.object({
  agentId: z.string(),
  agentName: z.string(),
  outcome: z.enum(["traded", "ineligible", "failed", "pending", "stale"]),
  rule: z.string().nullable(),
  reason: z.string().nullable(),
  positionId: z.string().nullable(),
  transactionId: z.string().nullable(),
  at: z.string(),
});

export const DetectedTradeSchema = z
  .object({
    signature: z.string(),
    side: z.enum(["buy", "sell"]),
    tokenAddress: z.string(),
    solAmount: z.string().openapi({ description: "SOL spent (buy) or received (sell), decimal string" }),
    tokenAmountAtomic: z.string(),
    blockTime: z.string(),
    detectedAt: z.string(),
    signalId: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "null: a sell of a watch that does not copy sells, or an ignored transaction" }),
    ignoredReason: z.enum(["not_signed", "not_a_swap"]).nullable().openapi({
      description:
        "Set when the transaction moved the wallet's balances like a trade but was never copied: not_signed (the wallet did not sign it), not_a_swap (its SOL did not go through a known DEX program)",
    }),
    processing: z
      .object({ status: z.enum(["pending", "processing", "done", "expired"]), evaluations: z.array(Evaluation) })
      .nullable(),
  })
  .openapi("WalletWatchDetectedTrade");

export const TradesQuery = z.object({ limit: pagination(50, 500).limit });
