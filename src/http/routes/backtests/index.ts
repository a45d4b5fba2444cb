import { z } from "@hono/zod-openapi";
import { BacktestRequestSchema } from "../../../backtest/request.ts";
import type { AppDeps } from "../../app-env.ts";
import { csvResponse } from "../../csv.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses, jsonContent, pagination, SuccessSchema, uuidParam } from "../../schemas.ts";

// /api/v1/backtests: create (202, run by the worker), read with per-variant results,
// trades as JSON or CSV, list, delete. JWT only; another user's backtest is 404.

const tags = ["backtests"];
const IdParam = uuidParam("id", "Invalid backtest ID format");

const Summary = z.object({
  trades: z.number().int(),
  wins: z.number().int(),
  losses: z.number().int(),
  winRate: z.number(),
  profitLossSol: z.string(),
  returnPercent: z.number(),
  maxDrawdownPercent: z.number(),
  profitFactor: z.number().nullable(),
  averageHoldMinutes: z.number(),
  exposure: z.number(),
  skipped: z.record(z.string(), z.number()),
  equity: z.array(z.object({ time: z.string(), valueSol: z.string() })),
});
const Base = {
  id: z.string(),
  name: z.string(),
  status: z.enum(["queued", "running", "done", "failed"]),
  progress: z.number(),
  error: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  initialSol: z.number(),
};
const BacktestSchema = z
  .object({ ...Base, variants: z.array(z.object({ name: z.string() }).extend(Summary.partial().shape)) })
  .openapi("Backtest");
const BacktestListItem = z.object({ ...Base, variants: z.number().int() }).openapi("BacktestListItem");
const TradeSchema = z
  .object({
    variant: z.string(),
    signalId: z.number().int(),
    tokenAddress: z.string(),
    openedAt: z.string(),
    closedAt: z.string(),
    entryPriceSol: z.string(),
    exitPriceSol: z.string().nullable(),
    amount: z.string(),
    costSol: z.string(),
    profitLossSol: z.string(),
    changePercent: z.string(),
    closeReason: z.string(),
    takeProfitLevels: z.number().int(),
    dcaOrders: z.number().int(),
  })
  .openapi("BacktestTrade");
const TRADE_COLUMNS = Object.keys(TradeSchema.shape) as Array<keyof z.infer<typeof TradeSchema>>;
const TradesQuery = z.object({
  format: z.enum(["json", "csv"], { error: "format must be json or csv" }).default("json"),
  variant: z.string().max(100, { error: "variant must be at most 100 characters" }).optional(),
});

const create = operation({
  method: "post",
  path: "/",
  tags,
  auth: auth.user,
  request: {
    body: {
      ...jsonContent(
        BacktestRequestSchema.openapi("BacktestRequest", {
          example: {
            name: "stop-loss sweep",
            initialSol: 10,
            signals: { source: "alpha-channel", signalType: "buy", minStrength: 3, startDate: "2026-01-01T00:00:00Z" },
            variants: [
              { name: "tight", config: { stopLoss: { enabled: true, percentage: 10 } } },
              { name: "loose", config: { stopLoss: { enabled: true, percentage: 40 } } },
            ],
          },
        }),
      ),
      required: true,
    },
  },
  responses: {
    202: {
      description: "Queued; poll GET /backtests/{id}",
      ...jsonContent(z.object({ id: z.string(), status: z.literal("queued") })),
    },
    ...errorResponses(400, 401),
  },
});
const list = operation({
  method: "get",
  path: "/",
  tags,
  auth: auth.user,
  request: { query: z.object(pagination(50, 500)) },
  responses: {
    200: { description: "Backtests, newest first", ...jsonContent(z.array(BacktestListItem)) },
    ...errorResponses(400, 401),
  },
});
const getOne = operation({
  method: "get",
  path: "/{id}",
  tags,
  auth: auth.user,
  request: { params: IdParam },
  responses: {
    200: { description: "Status, progress and per-variant results", ...jsonContent(BacktestSchema) },
    ...errorResponses(400, 401, 404),
  },
});
const trades = operation({
  method: "get",
  path: "/{id}/trades",
  tags,
  auth: auth.user,
  request: { params: IdParam, query: TradesQuery },
  responses: {
    200: {
      description: "Simulated positions of every variant (or one): JSON, or CSV with format=csv",
      content: { "application/json": { schema: z.array(TradeSchema) }, "text/csv": { schema: z.string() } },
    },
    ...errorResponses(400, 401, 404),
  },
});
const remove = operation({
  method: "delete",
  path: "/{id}",
  tags,
  auth: auth.user,
  request: { params: IdParam },
  responses: {
    200: { description: "Deleted with its results", ...jsonContent(SuccessSchema) },
    ...errorResponses(400, 401, 404),
  },
});

export function backtestRoutes(s: AppDeps) {
  const router = createRouter(s);
  const lab = s.strategyLab.backtests;
  return router
    .openapi(create, (c) => c.json(lab.create(c.get("auth").userId, c.req.valid("json")), 202))
    .openapi(list, (c) => {
      const q = c.req.valid("query");
      return c.json(lab.list(c.get("auth").userId, q.limit, q.offset), 200);
    })
    .openapi(getOne, (c) => c.json(lab.get(c.get("auth").userId, c.req.valid("param").id) as never, 200))
    .openapi(trades, (c) => {
      const q = c.req.valid("query");
      const rows = lab.trades(c.get("auth").userId, c.req.valid("param").id, q.variant);
      if (q.format === "csv") return csvResponse(c, "backtest-trades.csv", TRADE_COLUMNS, rows) as never;
      return c.json([...rows], 200);
    })
    .openapi(remove, (c) => {
      lab.delete(c.get("auth").userId, c.req.valid("param").id);
      return c.json({ success: true }, 200);
    });
}
