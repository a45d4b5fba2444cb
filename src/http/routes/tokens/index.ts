import { z } from "@hono/zod-openapi";
import type { PriceBar } from "../../../db/repositories/price-bars.ts";
import { ValidationError } from "../../../errors.ts";
import type { AppDeps } from "../../app-env.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses, isoDateTime, jsonContent } from "../../schemas.ts";

// GET /api/v1/tokens/:address/prices: the recorded (or imported) price path of a
// token as OHLC bars in SOL, 1-minute bars folded into 5-minute or 1-hour ones on request.

const INTERVALS = { "1m": 60_000, "5m": 300_000, "1h": 3_600_000 } as const;
const MAX_RANGE_MS = 31 * 86_400_000;

const Params = z.object({
  address: z
    .string()
    .min(1)
    .max(255, { error: "Token address must be at most 255 characters" })
    .openapi({ param: { name: "address", in: "path" }, example: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263" }),
});
const Query = z.object({
  startDate: isoDateTime("startDate").optional(),
  endDate: isoDateTime("endDate").optional(),
  interval: z.enum(["1m", "5m", "1h"], { error: "interval must be 1m, 5m or 1h" }).default("1m"),
});
const BarSchema = z
  .object({ time: z.string(), open: z.string(), high: z.string(), low: z.string(), close: z.string() })
  .openapi("PriceBar");

const prices = operation({
  method: "get",
  path: "/{address}/prices",
  tags: ["tokens"],
  auth: auth.user,
  request: { params: Params, query: Query },
  responses: {
    200: { description: "OHLC bars, SOL per token, oldest first", ...jsonContent(z.array(BarSchema)) },
    ...errorResponses(400, 401),
  },
});

/** Folds 1-minute bars into `ms`-long bars: first open, highest high, lowest low, last close. */
function foldBars(bars: readonly PriceBar[], ms: number): PriceBar[] {
  const out: PriceBar[] = [];
  for (const b of bars) {
    const time = Math.floor(b.time / ms) * ms;
    const cur = out.at(-1);
    if (cur && cur.time === time) {
      if (Number(b.high) > Number(cur.high)) cur.high = b.high;
      if (Number(b.low) < Number(cur.low)) cur.low = b.low;
      cur.close = b.close;
    } else out.push({ ...b, time });
  }
  return out;
}

export function tokenRoutes(s: AppDeps) {
  const router = createRouter(s);
  return router.openapi(prices, (c) => {
    const q = c.req.valid("query");
    const end = q.endDate ? Date.parse(q.endDate) : s.clock.now();
    const start = q.startDate ? Date.parse(q.startDate) : end - 86_400_000;
    if (start > end) throw new ValidationError("startDate must not be after endDate");
    if (end - start > MAX_RANGE_MS) throw new ValidationError("The range may span at most 31 days");
    const bars = foldBars(
      s.strategyLab.bars.range(c.req.valid("param").address, start, end + 1),
      INTERVALS[q.interval],
    );
    return c.json(
      bars.map((b) => ({
        time: new Date(b.time).toISOString(),
        open: b.open,
        high: b.high,
        low: b.low,
        close: b.close,
      })),
      200,
    );
  });
}
