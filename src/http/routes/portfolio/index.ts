import { z } from "@hono/zod-openapi";
import { computePortfolio, utcDayStart } from "../../../agents/portfolio.ts";
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

export function portfolioRoutes(s: AppDeps) {
  const router = createRouter(s);
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
