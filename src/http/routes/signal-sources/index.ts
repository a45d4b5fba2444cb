import { z } from "@hono/zod-openapi";
import type { AppDeps } from "../../app-env.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses, isoDateTime, jsonContent } from "../../schemas.ts";

// GET /api/v1/signal-sources/report: per source and signal type, how the
// caller's signals moved afterwards (src/backtest/signal-source-report.ts). Only the caller's
// signals count. A JWT or a key with the signals scope, like the signal list.

const percent = (name: string, def: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,6}(\.\d{1,4})?$/, { error: `${name} must be a number` })
    .transform(Number)
    .refine((v) => v > 0 && v <= max, { error: `${name} must be above 0 and at most ${max}` })
    .optional()
    .transform((v) => v ?? def)
    // Documented as the number it is read as, with the bounds the refine above enforces.
    .openapi({
      param: { name, in: "query" },
      type: "number",
      exclusiveMinimum: 0,
      maximum: max,
      description: `Above 0, at most ${max}, with up to 4 decimals`,
      default: def,
      example: def,
    });

const Query = z.object({
  startDate: isoDateTime("startDate").optional(),
  endDate: isoDateTime("endDate").optional(),
  gainPercent: percent("gainPercent", 50, 100_000),
  lossPercent: percent("lossPercent", 25, 99.99),
  windowHours: percent("windowHours", 24, 24 * 365),
});

const Row = z
  .object({
    source: z.string().nullable(),
    signalType: z.string(),
    count: z.number().int(),
    withData: z.number().int(),
    pending: z.number().int(),
    resolved: z.number().int(),
    reachedGain: z.number().int(),
    reachedLoss: z.number().int(),
    reachedGainShare: z.number().nullable(),
    medianMaxGainPercent: z.number().nullable(),
    medianMaxDrawdownPercent: z.number().nullable(),
    medianMinutesToPeak: z.number().nullable(),
  })
  .openapi("SignalSourceReportEntry");

const Report = z
  .object({
    startDate: z.string().nullable(),
    endDate: z.string().nullable(),
    gainPercent: z.number(),
    lossPercent: z.number(),
    windowHours: z.number(),
    sources: z.array(Row),
  })
  .openapi("SignalSourceReport");

const report = operation({
  method: "get",
  path: "/report",
  tags: ["backtests"],
  auth: auth.scoped("signals"),
  description:
    "Per source and signal type: signals, the share that reached +gainPercent before -lossPercent within windowHours of the signal, median maximum gain and drawdown, median minutes to the peak. From recorded or imported 1-minute bars (closes), your signals only.",
  request: { query: Query },
  responses: {
    200: { description: "The report", ...jsonContent(Report) },
    ...errorResponses(400, 401, 403),
  },
});

export function signalSourceRoutes(s: AppDeps) {
  const router = createRouter(s);
  return router.openapi(report, (c) => {
    const q = c.req.valid("query");
    const sources = s.strategyLab.report.build(c.get("auth").userId, q);
    return c.json(
      {
        startDate: q.startDate ?? null,
        endDate: q.endDate ?? null,
        gainPercent: q.gainPercent,
        lossPercent: q.lossPercent,
        windowHours: q.windowHours,
        sources,
      },
      200,
    );
  });
}
