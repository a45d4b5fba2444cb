import { z } from "@hono/zod-openapi";
import { requestKey } from "../../../trading/manual-idempotency.ts";
import type { AppDeps } from "../../app-env.ts";
import { audit } from "../../audit.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses, IdempotencyHeader, jsonContent, uuidParam } from "../../schemas.ts";

// POST /api/v1/agent-positions/:agentId/:positionId/sell { percent } (issue 44 item 5, the sell
// buttons): sells that share of what the position holds through the exit path a take-profit sale
// takes (src/trading/manual-sale.ts, TradingEngine.sellPart); 100 is the manual close. A JWT or a
// full_access key, as the close. docs/decisions/operator-experience-v.md "The sell buttons".

const PERCENT_MESSAGE = "percent must be a number greater than 0 and at most 100";

const SellParams = z.object({
  agentId: uuidParam("agentId", "Invalid agent ID format").shape.agentId,
  positionId: uuidParam("positionId", "Invalid position ID format").shape.positionId,
});

const SellBody = z
  .object({
    percent: z
      .number({ error: PERCENT_MESSAGE })
      .gt(0, { error: PERCENT_MESSAGE })
      .max(100, { error: PERCENT_MESSAGE })
      .openapi({ description: "Share of the tokens the position holds now; 100 closes it (reason manual)" }),
  })
  .openapi("SellPositionRequest", { example: { percent: 25 } });

const SellResponse = z
  .object({
    success: z.literal(true),
    percent: z.number(),
    closed: z.boolean().openapi({ description: "True for 100 %: the position was closed (the close's answer)" }),
    transactionId: z.string(),
    transactionHash: z.string(),
    signalId: z.number().int().optional().openapi({ description: "The sale's manual SELL signal (a part)" }),
    tokensSold: z.string().optional(),
    proceedsSol: z.string().optional(),
    remainingAmount: z.string(),
    realizedProfitSol: z.string().optional().openapi({ description: "The position's realized profit after the sale" }),
    historicalSwapId: z.string().optional(),
    profitLossSol: z.number().optional(),
    profitLossUsd: z.number().optional(),
    changePercent: z.number().optional(),
  })
  .openapi("SellPositionResponse");

const sell = operation({
  method: "post",
  path: "/{agentId}/{positionId}/sell",
  tags: ["agent-positions"],
  auth: auth.user,
  request: { params: SellParams, headers: IdempotencyHeader, body: { ...jsonContent(SellBody), required: true } },
  responses: {
    200: {
      description:
        "Sold: the share of the position's tokens, or all of them (closed); the first answer again for a repeated Idempotency-Key",
      ...jsonContent(SellResponse),
    },
    ...errorResponses(400, 401, 404, 409, 502),
  },
});

export function positionSaleRoutes(s: AppDeps) {
  return createRouter(s).openapi(sell, async (c) => {
    const { agentId, positionId } = c.req.valid("param");
    const { percent } = c.req.valid("json");
    const auth = c.get("auth");
    const key = requestKey(auth, c.req.valid("header")["idempotency-key"]);
    const { sale: sold, replayed } = await s.trading.manualSales.sell(auth.userId, agentId, positionId, percent, key);
    // 100 % is the manual close and is audited as one; a repeated key's answer did nothing new.
    if (replayed) return c.json(sold, 200);
    if (sold.closed) audit(c, s, "position.closed_manually", positionId, { agentId, reason: "manual", percent });
    else audit(c, s, "position.sold_manually", positionId, { agentId, percent, transactionId: sold.transactionId });
    return c.json(sold, 200);
  });
}
