import { z } from "@hono/zod-openapi";
import { requireOwnedAgent } from "../../../agents/ownership.ts";
import type { AppDeps } from "../../app-env.ts";
import { audit } from "../../audit.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses, jsonContent, uuidParam } from "../../schemas.ts";
import { PositionSchema } from "../agents/schema.ts";

// /api/v1/agent-positions (SPEC "Position endpoints"): open positions with market data, and the
// close. GETs take a JWT or a key with the `positions` scope; the close a JWT or a full_access key.

const tags = ["agent-positions"];

const AgentParam = uuidParam("agentId", "Invalid agent ID format");
const ListQuery = z.object({
  walletAddress: z
    .string()
    .max(255, { error: "walletAddress must be at most 255 characters" })
    .optional()
    .openapi({ param: { name: "walletAddress", in: "query" } }),
});
const CloseParams = z.object({
  agentId: AgentParam.shape.agentId,
  positionId: uuidParam("positionId", "Invalid position ID format").shape.positionId,
});
const CloseBody = z
  .object({
    reason: z.enum(["manual", "stop_loss"], { error: "Reason must be either 'manual' or 'stop_loss'" }).optional(),
  })
  .openapi("ClosePositionRequest", { example: { reason: "manual" } });
const CloseResponse = z
  .object({
    success: z.boolean(),
    transactionId: z.string(),
    historicalSwapId: z.string(),
    profitLossSol: z.number(),
    profitLossUsd: z.number(),
    changePercent: z.number(),
    transactionHash: z.string(),
  })
  .openapi("ClosePositionResponse");

const listAll = operation({
  method: "get",
  path: "/",
  tags,
  auth: auth.scoped("positions"),
  request: { query: ListQuery },
  responses: {
    200: { description: "Open positions of all the user's agents", ...jsonContent(z.array(PositionSchema)) },
    ...errorResponses(400, 401, 403),
  },
});
const listAgent = operation({
  method: "get",
  path: "/{agentId}",
  tags,
  auth: auth.scoped("positions"),
  request: { params: AgentParam, query: ListQuery },
  responses: {
    200: { description: "Open positions of the agent with market data", ...jsonContent(z.array(PositionSchema)) },
    ...errorResponses(400, 401, 403, 404),
  },
});
const close = operation({
  method: "post",
  path: "/{agentId}/{positionId}/close",
  tags,
  auth: auth.user,
  request: { params: CloseParams, body: { ...jsonContent(CloseBody), required: false } },
  responses: {
    200: { description: "Closed: the remaining tokens were sold", ...jsonContent(CloseResponse) },
    ...errorResponses(400, 401, 404, 409, 502),
  },
});
const closeShort = operation({
  method: "post",
  path: "/{id}/close",
  tags,
  auth: auth.user,
  request: {
    params: uuidParam("id", "Invalid position ID format"),
    body: { ...jsonContent(CloseBody), required: false },
  },
  responses: {
    200: { description: "Closed: the remaining tokens were sold", ...jsonContent(CloseResponse) },
    ...errorResponses(400, 401, 404, 409, 502),
  },
});

export function agentPositionRoutes(s: AppDeps) {
  const router = createRouter(s);
  return router
    .openapi(listAll, async (c) => {
      const userId = c.get("auth").userId;
      return c.json(
        await s.openPositions.listOpen({
          agentIds: s.agents.agentIdsOf(userId),
          walletAddress: c.req.valid("query").walletAddress,
        }),
        200,
      );
    })
    .openapi(listAgent, async (c) => {
      const agent = requireOwnedAgent(s.database, c.get("auth").userId, c.req.valid("param").agentId);
      return c.json(
        await s.openPositions.listOpen({ agentIds: [agent.id], walletAddress: c.req.valid("query").walletAddress }),
        200,
      );
    })
    .openapi(close, async (c) => {
      const { agentId, positionId } = c.req.valid("param");
      const userId = c.get("auth").userId;
      // No separate agent check: SPEC lists only 404 "Position not found" for the close, so an
      // unknown or foreign agent answers like a missing position (the engine matches both ids).
      // Manual closes bypass stop-loss and DCA (SPEC facts): they go straight to the sale.
      const reason = c.req.valid("json")?.reason ?? "manual";
      const closed = await s.trading.engine.closePosition(positionId, reason, { userId, agentId });
      audit(c, s, "position.closed_manually", positionId, { agentId, reason });
      return c.json(closed, 200);
    })
    .openapi(closeShort, async (c) => {
      const reason = c.req.valid("json")?.reason ?? "manual";
      const positionId = c.req.valid("param").id;
      const closed = await s.trading.engine.closePosition(positionId, reason, { userId: c.get("auth").userId });
      audit(c, s, "position.closed_manually", positionId, { reason });
      return c.json(closed, 200);
    });
}
