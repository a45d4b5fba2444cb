import { z } from "@hono/zod-openapi";
import { requireOwnedAgent } from "../../../agents/ownership.ts";
import { ValidationError } from "../../../errors.ts";
import { computePnlReport } from "../../../trading/pnl-report.ts";
import type { PnlReportRow } from "../../../trading/pnl-report-shape.ts";
import type { AppDeps } from "../../app-env.ts";
import { csvResponse } from "../../csv.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses, isoDateTime, jsonContent } from "../../schemas.ts";

// GET /api/v1/reports/pnl (+ /export, CSV): realized P/L by UTC day, ISO week or token, for one
// agent or the whole account, one trading mode at a time (src/trading/pnl-report.ts). Reads take a
// JWT or a `history` key, like the other trade records and their CSV exports.

const dec = (description: string) => z.string().openapi({ description, example: "0.1248425" });
const RowSchema = z
  .object({
    key: z.string().openapi({ description: "YYYY-MM-DD (day, UTC), YYYY-Www (ISO week) or the token's mint" }),
    periodStart: z.string().nullable().openapi({ description: "The day, or the week's Monday; null by token" }),
    tokenSymbol: z.string().nullable().openapi({ description: "By token only" }),
    sales: z.number().int().openapi({ description: "SELLs in the group (take-profit sales and closes)" }),
    realizedProfitLossSol: dec(
      "What the group's sales realized: net proceeds less the average cost of the tokens sold",
    ),
    realizedProfitLossUsd: dec("Each sale's realized SOL at that sale's SOL/USD price"),
  })
  .openapi("PnlReportRow");

const ReportSchema = z
  .object({
    groupBy: z.enum(["day", "week", "token"]),
    agentId: z.string().nullable().openapi({ description: "null: every agent of the account" }),
    mode: z.enum(["simulation", "live"]),
    from: z.string().nullable(),
    to: z.string().nullable(),
    rows: z.array(RowSchema).openapi({ description: "Periods oldest first; tokens best first" }),
    total: z.object({ sales: z.number().int(), realizedProfitLossSol: z.string(), realizedProfitLossUsd: z.string() }),
  })
  .openapi("PnlReport");

const Query = z.object({
  groupBy: z
    .enum(["day", "week", "token"], { error: "groupBy must be day, week or token" })
    .default("day")
    .openapi({ description: "day (default) and week are UTC; weeks are ISO 8601 weeks, starting on Monday" }),
  agentId: z.string().optional().openapi({
    description: "One agent; default every agent of the account",
    example: "0b5e2a4c-7a1d-4d8e-9a51-2f6a3c1d9e10",
  }),
  mode: z
    .enum(["simulation", "live"], { error: "mode must be simulation or live" })
    .default("simulation")
    .openapi({ description: "Which trades (default simulation): virtual and real SOL are never summed" }),
  from: isoDateTime("from").optional().openapi({ description: "Sales at or after this time" }),
  to: isoDateTime("to").optional().openapi({ description: "Sales at or before this time" }),
});

const CSV_COLUMNS: (keyof PnlReportRow)[] = [
  "key",
  "periodStart",
  "tokenSymbol",
  "sales",
  "realizedProfitLossSol",
  "realizedProfitLossUsd",
];

const read = {
  method: "get" as const,
  tags: ["agents"],
  auth: auth.scoped("history"),
  request: { query: Query },
};

const pnl = operation({
  ...read,
  path: "/pnl",
  summary: "Realized P/L by day, week or token, for an agent or the account",
  responses: {
    200: { description: "The report", ...jsonContent(ReportSchema) },
    ...errorResponses(400, 401, 403, 404),
  },
});

const pnlExport = operation({
  ...read,
  path: "/pnl/export",
  summary: "The P/L report as CSV",
  responses: {
    200: {
      description: `CSV with columns ${CSV_COLUMNS.join(", ")}`,
      content: { "text/csv": { schema: z.string() } },
    },
    ...errorResponses(400, 401, 403, 404),
  },
});

export function reportRoutes(s: AppDeps) {
  const build = (userId: string, q: z.infer<typeof Query>) => {
    if (q.from && q.to && q.from > q.to) throw new ValidationError("from must not be after to");
    // Another user's agent (or none) is 404, as everywhere.
    const agentId = q.agentId === undefined ? null : requireOwnedAgent(s.database, userId, q.agentId).id;
    return computePnlReport(s.database.sqlite, {
      userId,
      groupBy: q.groupBy,
      agentId,
      mode: q.mode,
      from: q.from ?? null,
      to: q.to ?? null,
    });
  };
  return createRouter(s)
    .openapi(pnl, (c) => c.json(build(c.get("auth").userId, c.req.valid("query")), 200))
    .openapi(pnlExport, (c) => {
      const q = c.req.valid("query");
      const report = build(c.get("auth").userId, q);
      return csvResponse(c, `pnl-by-${q.groupBy}.csv`, CSV_COLUMNS, report.rows) as never;
    });
}
