import { closeAllDetails, closeAllPositions } from "../../../trading/close-all.ts";
import type { AppDeps } from "../../app-env.ts";
import { audit } from "../../audit.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses, jsonContent } from "../../schemas.ts";
import {
  CloseAllBody,
  CloseAllResponse,
  PauseBody,
  RiskLimitsBody,
  RiskLimitsSchema,
  TradingStatusSchema,
} from "./schema.ts";

// /api/v1/trading (pause, resume, status) and /api/v1/risk-limits: a person's guard rails over all
// their agents (src/trading/guard-rails.ts). Each user sees and changes only their own.

const tags = ["trading"];

const status = operation({
  tags,
  auth: auth.user,
  method: "get",
  path: "/status",
  responses: { 200: { description: "Trading status", ...jsonContent(TradingStatusSchema) } },
});
const pause = operation({
  tags,
  auth: auth.user,
  method: "post",
  path: "/pause",
  request: { body: { ...jsonContent(PauseBody), required: true } },
  responses: { 200: { description: "Paused", ...jsonContent(TradingStatusSchema) } },
});
const resume = operation({
  tags,
  auth: auth.user,
  method: "post",
  path: "/resume",
  request: { body: { ...jsonContent(PauseBody), required: true } },
  responses: { 200: { description: "Resumed", ...jsonContent(TradingStatusSchema) } },
});

const closeAll = operation({
  tags,
  auth: auth.user,
  method: "post",
  path: "/close-all",
  request: { body: { ...jsonContent(CloseAllBody), required: true } },
  responses: {
    200: { description: "Each open position and what became of it", ...jsonContent(CloseAllResponse) },
    ...errorResponses(400, 401, 404),
  },
});

export function tradingControlRoutes(s: AppDeps) {
  const g = s.trading.guardRails;
  const answer = (userId: string) => ({
    ...g.status(userId),
    liveTradingEnabled: s.config.LIVE_TRADING_ENABLED,
    explorerUrl: s.config.EXPLORER_URL,
    demoMarket: s.config.DEMO_MARKET,
  });
  return createRouter(s)
    .openapi(status, (c) => c.json(answer(c.get("auth").userId), 200))
    .openapi(pause, (c) => {
      const userId = c.get("auth").userId;
      const { mode } = c.req.valid("json");
      g.pause(userId, mode);
      audit(c, s, "trading.paused", mode);
      return c.json(answer(userId), 200);
    })
    .openapi(resume, (c) => {
      const userId = c.get("auth").userId;
      const { mode } = c.req.valid("json");
      g.resume(userId, mode);
      audit(c, s, "trading.resumed", mode);
      return c.json(answer(userId), 200);
    })
    .openapi(closeAll, async (c) => {
      const deps = { ...s.trading, agents: s.agents, logger: s.logger };
      const body = c.req.valid("json");
      const answer = await closeAllPositions(deps, c.get("auth").userId, body);
      audit(c, s, "trading.close_all", body.agentId ?? body.mode, closeAllDetails(body, answer));
      return c.json(answer, 200);
    });
}

const getLimits = operation({
  tags,
  auth: auth.user,
  method: "get",
  path: "/",
  responses: { 200: { description: "Risk limits", ...jsonContent(RiskLimitsSchema) } },
});
const putLimits = operation({
  tags,
  auth: auth.user,
  method: "put",
  path: "/",
  request: { body: { ...jsonContent(RiskLimitsBody), required: true } },
  responses: { 200: { description: "Updated risk limits", ...jsonContent(RiskLimitsSchema) } },
});

export function riskLimitRoutes(s: AppDeps) {
  const g = s.trading.guardRails;
  return createRouter(s)
    .openapi(getLimits, (c) => c.json(g.limits(c.get("auth").userId), 200))
    .openapi(putLimits, (c) => {
      const body = c.req.valid("json");
      const limits = g.setLimits(c.get("auth").userId, body);
      audit(c, s, "risk_limits.updated", null, { ...body });
      return c.json(limits, 200);
    });
}
