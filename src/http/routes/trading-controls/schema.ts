import { z } from "@hono/zod-openapi";
import { DEFAULT_RISK_LIMITS } from "../../../trading/guard-rails.ts";

// Schemas of /trading/* and /risk-limits (issue 34 items 1 and 2;
// docs/decisions/operator-experience-iv.md).

const ModeChoice = z
  .enum(["simulation", "live", "all"], { error: "mode must be simulation, live or all" })
  .openapi({ description: "The trading mode to pause or resume; all = both" });

export const PauseBody = z
  .strictObject(
    { mode: ModeChoice },
    {
      error: (iss) =>
        iss.code === "invalid_type" ? "Body must be an object with mode: simulation, live or all" : undefined,
    },
  )
  .openapi("TradingPauseRequest", { example: { mode: "all" } });

export const CloseAllBody = z
  .strictObject(
    {
      mode: ModeChoice.openapi({ description: "Which positions: those of simulation, of live, or all" }),
      agentId: z
        .string({ error: "Invalid agent ID format" })
        .uuid({ error: "Invalid agent ID format" })
        .optional()
        .openapi({ description: "Only this agent's positions (another user's agent: 404)" }),
      pause: z
        .boolean({ error: "pause must be true or false" })
        .optional()
        .openapi({
          description:
            "Stop entries first, then close: the mode's pause switch (as POST /trading/pause), or with agentId the " +
            "agent's automation in the mode. Default false",
        }),
    },
    {
      error: (iss) =>
        iss.code === "invalid_type" ? "Body must be an object with mode: simulation, live or all" : undefined,
    },
  )
  .openapi("CloseAllRequest", { example: { mode: "all", pause: true } });

const CloseAllItemSchema = z
  .object({
    positionId: z.string(),
    agentId: z.string(),
    tokenAddress: z.string(),
    tokenSymbol: z.string(),
    tradingMode: z.enum(["simulation", "live"]),
    status: z.enum(["closed", "pending", "already_closed", "failed"]).openapi({
      description:
        "closed: sold (a sale transaction and historical swap exist); pending: a live sale was sent and awaits " +
        "the chain (reconciled like any live trade); already_closed: another exit sold it first; failed: not " +
        "sold (error says why; the position stays open)",
    }),
    error: z.string().nullable(),
    transactionId: z.string().nullable(),
    profitLossSol: z.number().nullable(),
  })
  .openapi("CloseAllItem");

export const CloseAllResponse = z
  .object({
    mode: ModeChoice,
    agentId: z.string().nullable(),
    paused: z.boolean().openapi({ description: "Entries were stopped before closing (pause: true)" }),
    results: z.array(CloseAllItemSchema).openapi({ description: "One entry per position that was open" }),
  })
  .openapi("CloseAllResponse", {
    description:
      "Every open position of the mode (or of the agent), each closed through the manual close (closeReason " +
      "manual: its exit floor and fee rules). Answered once every sale is done or sent; 200 even when some failed.",
  });

const Tripped = z.object({ reason: z.string(), at: z.string() }).nullable().openapi("TrippedBreaker", {
  description: "The daily-loss breaker while tripped: no new entries in this mode until POST /trading/resume",
});

const ModeStatusSchema = z.object({
  paused: z.boolean().openapi({ description: "Entries in this mode are refused with rule paused" }),
  pausedAt: z.string().nullable(),
  tripped: Tripped,
});

export const TradingStatusSchema = z
  .object({
    simulation: ModeStatusSchema,
    live: ModeStatusSchema,
    liveTradingEnabled: z
      .boolean()
      .openapi({ description: "LIVE_TRADING_ENABLED: the service-wide hard switch above every pause" }),
    explorerUrl: z.string().openapi({
      description:
        "EXPLORER_URL: the block explorer the dashboard links to (<url>/tx/<signature>, /account/<address>, " +
        "/token/<mint>); empty: no links",
      example: "https://solscan.io",
    }),
    demoMarket: z.boolean().openapi({
      description:
        "DEMO_MARKET: the service trades on the built-in synthetic market (made-up tokens, no chain, nothing real)",
    }),
  })
  .openapi("TradingStatus", {
    description:
      "Per mode: whether entries are paused and whether the daily-loss breaker tripped. Exits, stop-losses and " +
      "take-profits run either way.",
  });

const limitFields = {
  maxOpenPositions: z
    .number({ error: "maxOpenPositions must be null or a whole number from 1 to 100000" })
    .int({ error: "maxOpenPositions must be null or a whole number from 1 to 100000" })
    .min(1, { error: "maxOpenPositions must be null or a whole number from 1 to 100000" })
    .max(100_000, { error: "maxOpenPositions must be null or a whole number from 1 to 100000" })
    .nullable()
    .openapi({ description: "Open positions of all your agents in the mode; null = off" }),
  maxExposureSol: z
    .number({ error: "maxExposureSol must be null or a number above 0 and at most 1000000" })
    .gt(0, { error: "maxExposureSol must be null or a number above 0 and at most 1000000" })
    .max(1_000_000, { error: "maxExposureSol must be null or a number above 0 and at most 1000000" })
    .nullable()
    .openapi({ description: "SOL held in open positions (their cost) plus the new entry; null = off" }),
  dailyLossLimitSol: z
    .number({ error: "dailyLossLimitSol must be null or a number above 0 and at most 1000000" })
    .gt(0, { error: "dailyLossLimitSol must be null or a number above 0 and at most 1000000" })
    .max(1_000_000, { error: "dailyLossLimitSol must be null or a number above 0 and at most 1000000" })
    .nullable()
    .openapi({
      description:
        "A loss over it in 24 h (closed positions' P/L plus realized and unrealized P/L of positions opened in " +
        "the window) trips the breaker; null = off",
    }),
};

const ModeRiskSchema = z.object({
  ...limitFields,
  tripped: Tripped,
  usage: z
    .object({ openPositions: z.number().int(), exposureSol: z.number(), dailyLossSol: z.number() })
    .openapi({ description: "Where the account stands now; dailyLossSol negative = a gain" }),
});

export const RiskLimitsSchema = z.object({ simulation: ModeRiskSchema, live: ModeRiskSchema }).openapi("RiskLimits", {
  description: `Account-wide limits per mode; an entry that would break one is refused with rule risk_limit. Defaults, the same in both modes (simulation stops where live would): ${JSON.stringify(DEFAULT_RISK_LIMITS.live)}.`,
});

const LimitsPatch = z.strictObject(
  {
    maxOpenPositions: limitFields.maxOpenPositions.optional(),
    maxExposureSol: limitFields.maxExposureSol.optional(),
    dailyLossLimitSol: limitFields.dailyLossLimitSol.optional(),
  },
  { error: (iss) => (iss.code === "invalid_type" ? "Each mode's limits must be an object" : undefined) },
);

export const RiskLimitsBody = z
  .strictObject(
    { simulation: LimitsPatch.optional(), live: LimitsPatch.optional() },
    {
      error: (iss) =>
        iss.code === "invalid_type" ? "Body must be an object with simulation and/or live limits" : undefined,
    },
  )
  .refine((b) => b.simulation !== undefined || b.live !== undefined, {
    error: "At least one mode is required: simulation or live",
  })
  .openapi("UpdateRiskLimitsRequest", {
    description: "The modes and fields given are set (null = off); the others stay as they are.",
    example: { live: { maxOpenPositions: 5, maxExposureSol: 2, dailyLossLimitSol: 0.5 } },
  });
