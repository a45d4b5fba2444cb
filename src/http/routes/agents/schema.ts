import { z } from "@hono/zod-openapi";
import { NO_UPDATE_FIELDS_MESSAGE } from "../../../agents/agent-service.ts";
import { DEFAULT_TRADING_CONFIG, TradingConfigPatchSchema } from "../../../agents/trading-config.ts";
import { isoDateTime, pagination, uuidParam } from "../../schemas.ts";

// SPEC "Agent", "Agent endpoints", "Agent trading configuration"; PRODUCT.md §3.

const TRADING_MODE_MESSAGE = "Trading mode must be either 'simulation' or 'live'";
const tradingMode = z.enum(["simulation", "live"], { error: TRADING_MODE_MESSAGE });
const bodyObject = (iss: { code: string }) =>
  iss.code === "invalid_type" ? "Request body must be a JSON object" : undefined;

export const AgentIdParam = uuidParam("id", "Invalid agent ID format");

export const AgentSchema = z
  .object({
    id: z.string().uuid(),
    userId: z.string().uuid(),
    name: z.string(),
    tradingMode,
    automatedTradingSimulation: z.boolean(),
    automatedTradingLive: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Agent");

export const CreateAgentBody = z
  .object(
    {
      name: z
        .string({ error: "Name is required" })
        .trim()
        .min(1, { error: "Name is required" })
        .max(255, { error: "Name must be at most 255 characters" }),
      tradingMode: tradingMode.optional(),
    },
    { error: bodyObject },
  )
  .openapi("CreateAgentRequest", { example: { name: "Momentum bot", tradingMode: "simulation" } });

const flag = (name: string) => z.boolean({ error: `${name} must be true or false` }).optional();

export const UpdateAgentBody = z
  .object(
    {
      name: z
        .string({ error: "Name must be a string" })
        .trim()
        .min(1, { error: "Name must not be empty" })
        .max(255, { error: "Name must be at most 255 characters" })
        .optional(),
      tradingMode: tradingMode.optional(),
      automatedTradingSimulation: flag("automatedTradingSimulation"),
      automatedTradingLive: flag("automatedTradingLive"),
    },
    { error: bodyObject },
  )
  // SPEC: all optional, at least one required, an empty body is rejected.
  .refine((b) => Object.values(b).some((v) => v !== undefined), { error: NO_UPDATE_FIELDS_MESSAGE })
  .openapi("UpdateAgentRequest", { example: { tradingMode: "live", automatedTradingLive: true } });

export const AgentListQuery = z.object(pagination(50, 1000));

export const DeleteAgentResponse = z
  .object({ success: z.boolean(), message: z.string() })
  .openapi("DeleteAgentResponse");

const nullableNumber = z.number().nullable();
const TradingConfigView = z
  .object({
    positionSizing: z.object({
      type: z.enum(["percentage", "fixed"]),
      percentage: z.number(),
      fixedAmountSol: nullableNumber,
    }),
    stopLoss: z.object({ enabled: z.boolean(), percentage: z.number() }),
    takeProfit: z.object({
      enabled: z.boolean(),
      percentage: z.number(),
      sellPercentage: z.number(),
      maxLevels: z.number().int(),
    }),
    dca: z.object({
      enabled: z.boolean(),
      maxOrders: z.number().int(),
      priceDropTriggerPercentage: z.number(),
      amountPercentage: z.number(),
    }),
    filters: z.object({
      minMarketCap: nullableNumber,
      maxMarketCap: nullableNumber,
      minLiquidity: nullableNumber,
      maxPositionAgeDays: nullableNumber,
      allowedTokens: z.array(z.string()),
      blockedTokens: z.array(z.string()),
      minSignalStrength: z.number().int(),
      // Token screening (README "Going live"; docs/decisions/token-2022-screening.md).
      rejectFreezeAuthority: z.boolean(),
      rejectMintAuthority: z.boolean(),
      rejectPermanentDelegate: z.boolean(),
      rejectPausable: z.boolean(),
      rejectTransferHook: z.boolean(),
      rejectDefaultFrozen: z.boolean(),
      rejectUnknownExtensions: z.boolean(),
      maxTransferFeeBps: z.number().int(),
      requireSellable: z.boolean(),
      signalTypes: z.array(z.string()).openapi({
        description:
          "Entry signal types the agent buys on, letter case ignored. Empty (the default): only buy, long and " +
          "entry; any other type is stored and shown but opens nothing (rule signal_type). Exit types (sell, " +
          "exit, close) always close.",
      }),
      sources: z.array(z.string()).openapi({
        description:
          "Sources the agent trades: API key names, wallet:<address> (a followed wallet), group:<name> (a watch " +
          "group), hook:<name> (a signal hook). Empty (the default): every source. A signal of another source " +
          "is refused with rule source. An exit signal closes only a position opened from its own source. Each " +
          "named key, wallet and group must exist when set (400 otherwise).",
        example: ["momentum-bot", "wallet:7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"],
      }),
    }),
    slippage: z.object({ defaultBps: z.number().int(), maxBps: z.number().int() }),
    timing: z.object({ minTimeBetweenTradesSeconds: z.number().int() }),
    risk: z.object({
      maxOpenPositions: z
        .number()
        .int()
        .nullable()
        .openapi({
          description:
            "The agent's own cap on its open positions in its current mode; null = off. An entry beyond it is " +
            "refused with rule risk_limit. Account-wide limits: GET /risk-limits.",
        }),
    }),
    minimumAgentBalance: z.number(),
  })
  .openapi("TradingConfig", { example: DEFAULT_TRADING_CONFIG as never });

export const ConfigResponse = z
  .object({
    config: TradingConfigView,
    appliedToOpenPositions: z.number().int().optional().openapi({
      description: "Open positions given the new exit rules; only when applyToOpenPositions was sent true",
    }),
  })
  .openapi("AgentConfigResponse");

export const ConfigUpdateBody = z
  // clone(): the schema may be built before the OpenAPI extension ran (the domain imports plain zod);
  // a copy made here has .openapi() either way, and validates exactly as the original.
  .object({
    config: TradingConfigPatchSchema.clone().openapi("TradingConfigPatch").nullable(),
    applyToOpenPositions: z.boolean({ error: "must be true or false" }).optional().openapi({
      description:
        "Beyond SPEC (issue 44 item 2). An open position keeps the exit rules (stopLoss, takeProfit, dca, filters.maxPositionAgeDays) it was opened with; true gives the agent's open positions the new ones too, recorded on each (Position.exitConfig). Default false.",
    }),
  })
  .openapi("AgentConfigUpdateRequest", {
    example: { config: { stopLoss: { percentage: 15 }, takeProfit: { enabled: true } } },
  });

export const PositionSchema = z
  .object({
    id: z.string(),
    agentId: z.string(),
    walletAddress: z.string(),
    tokenAddress: z.string(),
    tokenSymbol: z.string(),
    purchase: z.object({
      priceNative: z.number(),
      priceUsd: z.number(),
      amount: z.number(),
      transaction: z.object({ id: z.string(), hash: z.string(), time: z.string() }),
    }),
    current: z.object({ priceNative: z.number(), priceUsd: z.number(), valueNative: z.number(), valueUsd: z.number() }),
    profitLoss: z.object({ native: z.number(), usd: z.number(), percent: z.number(), priceChangePercent: z.number() }),
    stopLoss: z.object({ percentage: z.number(), peakPrice: z.number() }),
    takeProfit: z.object({
      remainingAmount: z.number(),
      levelsHit: z.number().int(),
      realizedProfitSol: z.number(),
      moonBagActivated: z.boolean(),
      moonBagAmount: z.number().nullable(),
    }),
    levels: z
      .object({
        stopLossPrice: z
          .number()
          .nullable()
          .openapi({ description: "peak × (1 − stopLoss.percentage/100); null when off" }),
        takeProfit: z
          .array(z.object({ level: z.number().int(), price: z.number(), hit: z.boolean() }))
          .openapi({ description: "Every take-profit level at the current average entry; empty when off" }),
        dca: z
          .array(z.object({ order: z.number().int(), price: z.number() }))
          .openapi({ description: "DCA orders not yet filled, from the current average entry; empty when off" }),
        dcaOrdersFilled: z.number().int(),
      })
      .openapi({ description: "Price levels (SOL per token) at which the position's rules act now" }),
    exitConfig: z
      .object({
        source: z.enum(["opened", "applied", "agent"]),
        since: z.string().nullable(),
        stopLoss: TradingConfigView.shape.stopLoss,
        takeProfit: TradingConfigView.shape.takeProfit,
        dca: TradingConfigView.shape.dca,
        maxPositionAgeDays: z.number().nullable(),
      })
      .openapi({
        description:
          "Beyond SPEC: the exit rules the position follows. source `opened`: those it was opened with (since = opened at); `applied`: a config edit sent with applyToOpenPositions (since = applied at); `agent`: opened before positions kept their own, so the agent's current ones (since null).",
      }),
    waitingReason: z.string().nullable().openapi({
      description:
        "Why the position monitor does not act on this position now: no usable price (SOL/USD stale and no price in SOL from a sell quote, or no price at all). null while it is priced.",
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Position");

export const DateRangeQuery = z.object({
  startDate: isoDateTime("startDate")
    .optional()
    .openapi({ param: { name: "startDate", in: "query" }, example: "2026-01-01T00:00:00.000Z" }),
  endDate: isoDateTime("endDate")
    .optional()
    .openapi({ param: { name: "endDate", in: "query" }, example: "2026-02-01T00:00:00.000Z" }),
});

export const BalanceHistoryQuery = DateRangeQuery.extend({ limit: pagination(100, 1000).limit });

const TradeSummary = z.object({
  id: z.string(),
  tokenAddress: z.string(),
  tokenSymbol: z.string(),
  profitLossSol: z.string(),
  profitLossUsd: z.string(),
  changePercent: z.string(),
  closeReason: z.string(),
  saleTime: z.string(),
});

export const PerformanceSchema = z
  .object({
    agentId: z.string(),
    startDate: z.string().nullable(),
    endDate: z.string().nullable(),
    totalTrades: z.number().int(),
    wins: z.number().int(),
    losses: z.number().int(),
    winRate: z.number(),
    realizedProfitLossSol: z.string(),
    realizedProfitLossUsd: z.string(),
    bestTrade: TradeSummary.nullable(),
    worstTrade: TradeSummary.nullable(),
    openPositions: z.number().int(),
    unrealizedProfitLossSol: z.string(),
    unrealizedProfitLossUsd: z.string(),
  })
  .openapi("AgentPerformance");

export const BalanceSnapshotSchema = z
  .object({
    timestamp: z.string(),
    walletAddress: z.string(),
    solBalance: z.string(),
    totalValueSol: z.string(),
    totalValueUsd: z.string().nullable(),
    reason: z.string(),
  })
  .openapi("BalanceSnapshot");
