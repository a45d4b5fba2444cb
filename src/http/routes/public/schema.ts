import { z } from "@hono/zod-openapi";
import { numberInQuery, pagination, uuidParam, wholeNumberInQuery } from "../../schemas.ts";
import { isSolanaAddress } from "../../solana-address.ts";
import { TransactionSchema } from "../agent-transactions/schema.ts";
import { AgentSchema } from "../agents/schema.ts";
import { SolPriceSchema } from "../price-feeds/schema.ts";
import { SignalSchema } from "../trading-signals/schema.ts";

// The public API's requests and payloads (SPEC "Public API": "Response payloads: not shown"; the
// design is in docs/decisions.md "Public API and live events").

export { AgentSchema as PublicAgentSchema, SolPriceSchema, TransactionSchema as LiveTradeSchema };

export const AgentIdParam = uuidParam("agentId", "Invalid agent ID format");

export const AgentSignalParams = z.object({
  ...AgentIdParam.shape,
  signalId: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, { error: "Invalid signal ID format" })
    .transform(Number)
    .openapi({ param: { name: "signalId", in: "path" }, example: "42" }),
});

/** A Solana address: base58 decoding to 32 bytes (src/http/solana-address.ts). */
export const TokenAddressParam = z.object({
  tokenAddress: z
    .string()
    .refine(isSolanaAddress, { error: "Invalid token address format" })
    .openapi({ param: { name: "tokenAddress", in: "path" }, example: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263" }),
});

export const AgentListQuery = z.object(pagination(50, 1000));
/** SPEC "Limits": signals and transactions default 100, max 1000. */
export const LongListQuery = z.object(pagination(100, 1000));

export const WhaleQuerySchema = z.object({
  limit: wholeNumberInQuery("limit", 1, 100)
    .default(50)
    .openapi({ param: { name: "limit", in: "query" }, example: 50 }),
  minVolumeUsd: numberInQuery(
    z.number({ error: "minVolumeUsd must be a number" }).min(0, { error: "minVolumeUsd must be at least 0" }),
  )
    .default(10_000)
    .openapi({
      param: { name: "minVolumeUsd", in: "query" },
      example: 10000,
      description: "Smallest trade counted, in USD",
    }),
});

const healthStatus = z.enum(["healthy", "degraded", "unhealthy"]);
export const PlatformHealthSchema = z
  .object({
    status: healthStatus,
    timestamp: z.string(),
    version: z.string(),
    uptime: z.number().int().openapi({ description: "Whole seconds since the service started" }),
    services: z
      .record(z.string(), healthStatus)
      .openapi({ description: "Status of each dependency (database, cache, queue, priceFeed...)" }),
  })
  .openapi("PublicPlatformHealth", {
    example: {
      status: "healthy",
      timestamp: "2026-01-01T00:00:00.000Z",
      version: "0.1.0",
      uptime: 3600,
      services: { database: "healthy", cache: "healthy", queue: "healthy" },
    },
  });

export const UsageSchema = z
  .object({
    apiKey: z.object({
      id: z.string().uuid(),
      name: z.string(),
      prefix: z.string(),
      scopes: z.array(z.string()),
      requestCount: z
        .number()
        .int()
        .openapi({ description: "Requests this key authenticated (either API, this one included)" }),
      lastUsedAt: z.string().nullable().openapi({ description: "Updated at most once a minute" }),
      createdAt: z.string(),
    }),
    user: z.object({
      apiKeys: z.number().int(),
      requestCount: z.number().int().openapi({ description: "Sum over all the user's keys" }),
      agents: z.number().int(),
    }),
  })
  .openapi("PublicUsage");

const WalletHoldingSchema = z
  .object({
    tokenAddress: z.string(),
    tokenSymbol: z.string(),
    balance: z.string().openapi({ description: "Whole tokens (SOL for the wrapped-SOL mint), exact decimal" }),
    priceUsd: z.string().nullable().openapi({ description: "USD per token; null when the market does not know it" }),
    valueUsd: z.string().nullable().openapi({ description: "balance × priceUsd; null when the price is unknown" }),
    lastUpdated: z.string(),
  })
  .openapi("PublicWalletHolding");

export const AgentWalletSchema = z
  .object({
    agentId: z.string().uuid(),
    walletType: z.enum(["simulation", "live"]).openapi({ description: "The agent's trading mode" }),
    walletAddress: z.string().nullable().openapi({ description: "null when no wallet of that mode is assigned" }),
    solPriceUsd: z.string().nullable(),
    holdings: z
      .array(WalletHoldingSchema)
      .openapi({ description: "SOL first, then tokens held (zero token balances left out)" }),
    totalValueUsd: z
      .string()
      .nullable()
      .openapi({ description: "Sum of the priced holdings; null when nothing held could be priced" }),
    unpricedTokens: z.array(z.string()).openapi({ description: "Mints held whose price is unknown: not in the total" }),
  })
  .openapi("PublicAgentWallet");

export const AgentSignalSchema = SignalSchema.extend({
  evaluation: z.object({
    eligible: z.boolean(),
    outcome: z.string().nullable().openapi({ description: "traded | failed | closed" }),
    reason: z.string().nullable().openapi({ description: "Why a close failed, when recorded; null otherwise" }),
    evaluatedAt: z.string(),
  }),
}).openapi("PublicAgentSignal");

const WhaleTradeSchema = z
  .object({
    txHash: z.string(),
    blockTime: z.string(),
    tokenAddress: z.string(),
    side: z.string(),
    volumeUsd: z.number().nullable(),
    owner: z.string().nullable(),
    source: z.string().nullable().openapi({ description: "DEX or program of the trade" }),
    tokenAmount: z.number().nullable(),
    priceUsd: z.number().nullable(),
  })
  .openapi("WhaleTrade");

export const TokenWhaleTradesSchema = z
  .object({ tokenAddress: z.string(), trades: z.array(WhaleTradeSchema) })
  .openapi("PublicTokenWhaleTrades");

export const LatestWhaleTradesSchema = z
  .object({
    tokens: z.array(z.string()).openapi({
      description: "Tokens watched: the user's open positions first, then their signals of the last 24 h (at most 5)",
    }),
    trades: z.array(WhaleTradeSchema).openapi({ description: "Newest first, across those tokens" }),
  })
  .openapi("PublicLatestWhaleTrades");
