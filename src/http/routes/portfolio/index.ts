import { z } from "@hono/zod-openapi";
import { computePortfolio, utcDayStart } from "../../../agents/portfolio.ts";
import { SNAPSHOT_INTERVAL_MS, SNAPSHOT_RETENTION_MS } from "../../../agents/portfolio-history.ts";
import { portfolioSnapshotsBetween } from "../../../db/repositories/portfolio-snapshots.ts";
import { ValidationError } from "../../../errors.ts";
import type { AppDeps } from "../../app-env.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses, isoDateTime, jsonContent } from "../../schemas.ts";

// GET /api/v1/portfolio: the dashboard overview's totals across all the caller's agents
// (src/agents/portfolio.ts). JWT (or a full_access key); only the caller's own agents count.

const dec = (description: string) => z.string().openapi({ description, example: "1.25" });
const ModeTotalsSchema = z
  .object({
    wallets: z.number().int().openapi({
      description:
        "Wallets of this mode assigned to the agents; live: from the first assigned wallet on, even before it holds anything",
    }),
    solBalance: dec(
      "SOL in the wallets assigned to the agents now (live: the chain's balance as last mirrored, at each live trade and each check-deposits)",
    ),
    openPositions: z.number().int(),
    positionsValueSol: dec("Value of the open positions' remaining tokens at the current price"),
    totalValueSol: dec("solBalance + positionsValueSol"),
    totalValueUsd: z.string().nullable().openapi({ description: "At the current SOL/USD price; null without one" }),
    realizedProfitLossSol: dec("Sum over closed positions"),
    realizedProfitLossUsd: dec("Sum over closed positions"),
    unrealizedProfitLossSol: dec("Sum over open positions, as the position endpoints compute it"),
    unrealizedProfitLossUsd: dec("Sum over open positions"),
    closedTrades: z.number().int(),
    today: z.object({
      realizedProfitLossSol: dec("Positions closed since todayStart"),
      realizedProfitLossUsd: dec("Positions closed since todayStart"),
      closedTrades: z.number().int(),
    }),
  })
  .openapi("PortfolioModeTotals");

const PortfolioSchema = z
  .object({
    agents: z.number().int(),
    solUsdPrice: z.string().nullable(),
    todayStart: z.string(),
    simulation: ModeTotalsSchema.openapi({ description: "Simulation wallets (virtual SOL)" }),
    live: ModeTotalsSchema.openapi({ description: "Live wallets (real SOL)" }),
  })
  .openapi("Portfolio");

const Query = z.object({
  todayStart: isoDateTime("todayStart")
    .optional()
    .openapi({ description: 'Where "today" begins (the viewer\'s local midnight); default 00:00 UTC' }),
});

const portfolio = operation({
  method: "get",
  path: "/",
  tags: ["agents"],
  summary: "Totals across all the caller's agents, per trading mode",
  auth: auth.user,
  request: { query: Query },
  responses: {
    200: { description: "Portfolio totals", ...jsonContent(PortfolioSchema) },
    ...errorResponses(400, 401, 403),
  },
});

const PointSchema = z
  .object({
    at: z.string().openapi({ description: "Start of the 5-minute slot the point was taken in (ISO 8601)" }),
    totalValueSol: dec("SOL in the mode's wallets + open positions marked at the price of that moment"),
    profitLossSol: dec("Realized + unrealized P/L of the mode at that moment"),
  })
  .openapi("PortfolioHistoryPoint");

const PortfolioHistorySchema = z
  .object({
    mode: z.enum(["simulation", "live"]),
    from: z.string(),
    to: z.string(),
    intervalSeconds: z.number().int().openapi({ description: "One point per this many seconds (300)" }),
    retentionDays: z.number().int().openapi({ description: "Points older than this are deleted (30)" }),
    points: z.array(PointSchema).openapi({ description: "Oldest first; none where the service was not running" }),
  })
  .openapi("PortfolioHistory");

const HistoryQuery = z.object({
  mode: z
    .enum(["simulation", "live"], { error: "mode must be simulation or live" })
    .default("simulation")
    .openapi({ description: "Which account's history (default simulation)" }),
  from: isoDateTime("from").optional().openapi({ description: "Default: 24 hours before `to`" }),
  to: isoDateTime("to").optional().openapi({ description: "Default: now" }),
});

const history = operation({
  method: "get",
  path: "/history",
  tags: ["agents"],
  summary: "Account value and P/L over time for one trading mode, a point per 5 minutes (marked to market)",
  auth: auth.user,
  request: { query: HistoryQuery },
  responses: {
    200: { description: "The caller's points, oldest first", ...jsonContent(PortfolioHistorySchema) },
    ...errorResponses(400, 401, 403),
  },
});

const DAY_MS = 86_400_000;

export function portfolioRoutes(s: AppDeps) {
  const router = createRouter(s);
  router.openapi(history, (c) => {
    const q = c.req.valid("query");
    const to = q.to ?? new Date(s.clock.now()).toISOString();
    const from = q.from ?? new Date(Date.parse(to) - DAY_MS).toISOString();
    if (from > to) throw new ValidationError("from must not be after to");
    const userId = c.get("auth").userId;
    return c.json(
      {
        mode: q.mode,
        from,
        to,
        intervalSeconds: SNAPSHOT_INTERVAL_MS / 1000,
        retentionDays: SNAPSHOT_RETENTION_MS / DAY_MS,
        points: portfolioSnapshotsBetween(s.database, userId, q.mode, from, to),
      },
      200,
    );
  });
  return router.openapi(portfolio, async (c) => {
    const userId = c.get("auth").userId;
    return c.json(
      await computePortfolio({
        db: s.database,
        positions: s.openPositions,
        agentIds: s.agents.agentIdsOf(userId),
        userId,
        solUsdPrice: s.market.solPrice.current()?.price ?? null,
        todayStart: c.req.valid("query").todayStart ?? utcDayStart(s.clock.now()),
      }),
      200,
    );
  });
}
