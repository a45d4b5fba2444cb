import { z } from "@hono/zod-openapi";
import { parseRange } from "../../../ip-ranges.ts";
import { pagination, uuidParam } from "../../schemas.ts";
import { isSolanaAddress } from "../../solana-address.ts";

export const SignalHookIdParam = uuidParam("id", "Invalid signal hook ID format");

const name = z
  .string({ error: "Name is required" })
  .trim()
  .min(1, { error: "Name is required" })
  .max(100, { error: "Name must be at most 100 characters" })
  .openapi({ example: "tradingview-rsi" });
const source = z
  .string({ error: "source must be text" })
  .trim()
  .min(1, { error: "source must not be empty" })
  .max(100, { error: "source must be at most 100 characters" })
  .openapi({ description: "The signals' source (what filters.sources names); hook:<name> by default" });
const allowedIps = z
  .array(
    z.string().refine((v) => v.toLowerCase() === "tradingview" || parseRange(v) !== null, {
      error: (iss) => `allowedIps: ${JSON.stringify(iss.input)} is not an address, a CIDR range or "tradingview"`,
    }),
    { error: "allowedIps must be a list of addresses" },
  )
  .max(50, { error: "allowedIps may list at most 50 entries" })
  .openapi({
    description:
      "Addresses and CIDR ranges a delivery may come from; the word tradingview stands for TradingView's " +
      "published addresses. Empty: any address.",
    example: ["tradingview"],
  });
const tokens = z
  .record(
    z.string().trim().min(1, { error: "tokens: a symbol must not be empty" }).max(50, {
      error: "tokens: a symbol must be at most 50 characters",
    }),
    z.string().refine(isSolanaAddress, {
      error: (iss) => `tokens: ${JSON.stringify(iss.input)} is not a base58 Solana mint address`,
    }),
    { error: "tokens must be an object of symbol to mint address" },
  )
  .refine((t) => Object.keys(t).length <= 200, { error: "tokens may map at most 200 symbols" })
  .openapi({
    description:
      "Symbol → mint. A delivery naming only a symbol gets its mint from here (any case), never from a " +
      "market search: look-alike tokens share symbols.",
    example: { BONKUSDT: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263" },
  });

export const CreateSignalHookBody = z
  .strictObject({ name, source: source.optional(), allowedIps: allowedIps.optional(), tokens: tokens.optional() })
  .openapi("CreateSignalHookRequest", {
    example: {
      name: "tradingview-rsi",
      allowedIps: ["tradingview"],
      tokens: { BONKUSDT: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263" },
    },
  });

export const UpdateSignalHookBody = z
  .strictObject({
    name: name.optional(),
    source: source.optional(),
    allowedIps: allowedIps.optional(),
    tokens: tokens.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    error: "At least one field must be provided: name, source, allowedIps or tokens",
  })
  .openapi("UpdateSignalHookRequest", { example: { allowedIps: ["tradingview", "203.0.113.7"] } });

export const SignalHookSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    source: z.string(),
    allowedIps: z.array(z.string()),
    tokens: z.record(z.string(), z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("SignalHook");

export const CreatedSignalHookSchema = SignalHookSchema.extend({
  url: z.string().openapi({
    description: "Where the sender posts: absolute when PUBLIC_BASE_URL is set, a path otherwise. Shown only here.",
  }),
  token: z.string().openapi({ description: "The hook's secret (part of url), shown only here" }),
}).openapi("CreatedSignalHook");

export const HookDeliverySchema = z
  .object({
    receivedAt: z.string(),
    status: z.number().int().openapi({ description: "The HTTP status answered" }),
    error: z.string().nullable().openapi({ description: "The error answered; null for a stored or repeated signal" }),
    duplicate: z.boolean().openapi({ description: "true: the same body or alertId again, answered with its signal" }),
    signal: z
      .object({
        id: z.number().int(),
        tokenAddress: z.string(),
        symbol: z.string().nullable(),
        signalType: z.string(),
        signalStrength: z.number().int(),
      })
      .nullable(),
  })
  .openapi("SignalHookDelivery");

export const DeliveriesQuery = z.object({ limit: pagination(20, 100).limit });

export const HookTokenParam = z.object({
  token: z
    .string()
    .openapi({ param: { name: "token", in: "path" }, example: "whk_2bWm9yq0S8uVxN4dT1pKcL7fHaE3gRjZ6YsBnQwXvUo" }),
});
