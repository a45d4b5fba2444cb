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
