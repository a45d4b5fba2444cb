import { z } from "@hono/zod-openapi";
import { manualBuyDetails } from "../../../trading/manual-buy.ts";
import { requestKey } from "../../../trading/manual-idempotency.ts";
import type { AppDeps } from "../../app-env.ts";
import { audit } from "../../audit.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses, IdempotencyHeader, jsonContent } from "../../schemas.ts";
import { tokenAddressField } from "../trading-signals/schema.ts";
import { AgentIdParam } from "./schema.ts";

// POST /api/v1/agents/:id/buy (issue 44 item 5): the operator's own buy (JWT or full_access key), through the
// engine's openPosition and so through every check an automated entry passes
// (src/trading/manual-buy.ts; docs/decisions/operator-experience-v.md "Manual trading").

/** Bounds of a manual buy: at least one lamport's worth that rounds to something, at most 10,000 SOL. */
const MANUAL_BUY_MIN_SOL = 0.000001;
const MANUAL_BUY_MAX_SOL = 10_000;
const AMOUNT_MESSAGE = `amountSol must be a number from ${MANUAL_BUY_MIN_SOL} to ${MANUAL_BUY_MAX_SOL}`;

const ManualBuyBody = z
  .object({
    tokenAddress: tokenAddressField,
    amountSol: z
      .number({ error: AMOUNT_MESSAGE })
      .min(MANUAL_BUY_MIN_SOL, { error: AMOUNT_MESSAGE })
      .max(MANUAL_BUY_MAX_SOL, { error: AMOUNT_MESSAGE }),
  })
  .openapi("ManualBuyRequest", {
    example: { tokenAddress: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263", amountSol: 0.1 },
  });

const ManualBuyResponse = z
  .object({
    status: z.enum(["opened", "pending"]),
    signalId: z.number().int(),
    positionId: z.string().nullable(),
    tradingMode: z.enum(["simulation", "live"]),
  })
  .openapi("ManualBuyResponse");

const buy = operation({
  tags: ["agents"],
  // A JWT or a full_access key, as the close (POST /agent-positions/:id/close).
  auth: auth.user,
  method: "post",
  path: "/{id}/buy",
  request: {
    params: AgentIdParam,
    headers: IdempotencyHeader,
    body: { ...jsonContent(ManualBuyBody), required: true },
  },
  responses: {
    201: {
      description: "Bought: the position is open (or the first answer again for a repeated Idempotency-Key)",
      ...jsonContent(ManualBuyResponse),
    },
    202: { description: "A live swap was sent and awaits the chain", ...jsonContent(ManualBuyResponse) },
    ...errorResponses(400, 401, 404, 409, 502),
  },
});

export function manualBuyRoutes(s: AppDeps) {
  return createRouter(s).openapi(buy, async (c) => {
    const { tokenAddress, amountSol } = c.req.valid("json");
    const auth = c.get("auth");
    const key = requestKey(auth, c.req.valid("header")["idempotency-key"]);
    const agentId = c.req.valid("param").id;
    const order = { tokenAddress, amountSol: String(amountSol) };
    const { bought: r, replayed } = await s.trading.manual.buy(auth.userId, agentId, order, key);
    // A repeated key's answer did nothing new.
    if (!replayed) audit(c, s, "position.bought_manually", r.positionId, manualBuyDetails(agentId, order, r));
    return r.status === "opened" ? c.json(r, 201) : c.json(r, 202);
  });
}
