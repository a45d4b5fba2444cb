import { z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { requireOwnedAgent } from "../../../agents/ownership.ts";
import { isoNow } from "../../../clock.ts";
import { getAgentSignal, listAgentSignals } from "../../../public-api/agent-signals.ts";
import { valueAgentWallet } from "../../../public-api/agent-wallet.ts";
import { listLiveTrades } from "../../../public-api/live-trades.ts";
import { apiUsage } from "../../../public-api/usage.ts";
import { RECENT_SIGNALS_MS, WhaleFeed, watchedTokens } from "../../../public-api/whale-feed.ts";
import { VERSION } from "../../../version.ts";
import type { AppDeps, AppEnv } from "../../app-env.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses, jsonContent } from "../../schemas.ts";
import { solPriceAnswer } from "../price-feeds/index.ts";
import {
  AgentIdParam,
  AgentListQuery,
  AgentSignalParams,
  AgentSignalSchema,
  AgentWalletSchema,
  LatestWhaleTradesSchema,
  LiveTradeSchema,
  LongListQuery,
  PlatformHealthSchema,
  PublicAgentSchema,
  SolPriceSchema,
  TokenAddressParam,
  TokenWhaleTradesSchema,
  UsageSchema,
  WhaleQuerySchema,
} from "./schema.ts";

// The read-only public API, mounted at /v1 (SPEC "Public API"; PRODUCT.md §1): every endpoint
// takes an API key of any scope as `Authorization: Bearer <key>` (X-API-Key works too), the
// health check included, as the spec says all of them do. Another user's agent is 404.

const common = { tags: ["public"], auth: auth.apiKey(null) };

const health = operation({
  ...common,
  method: "get",
  path: "/platform/health",
  summary: "Health check",
  responses: {
    200: { description: "Healthy or degraded", ...jsonContent(PlatformHealthSchema) },
    503: { description: "Unhealthy: the database is unavailable", ...jsonContent(PlatformHealthSchema) },
    ...errorResponses(401),
  },
});
const usage = operation({
  ...common,
  method: "get",
  path: "/platform/usage",
  summary: "Requests counted for the calling key, and the user's totals",
  responses: { 200: { description: "Usage", ...jsonContent(UsageSchema) }, ...errorResponses(401) },
});
const agentsRoute = (path: string, summary: string) =>
  operation({
    ...common,
    method: "get",
    path,
    summary,
    request: { query: AgentListQuery },
    responses: {
      200: { description: "The user's agents, newest first", ...jsonContent(z.array(PublicAgentSchema)) },
      ...errorResponses(400, 401),
    },
  });
// SPEC writes the path with a trailing slash; both spellings answer.
const agents = agentsRoute("/agents", "All agents of the key's user");
const agentsSlash = agentsRoute("/agents/", "All agents of the key's user (same as /v1/agents)");
const agent = operation({
  ...common,
  method: "get",
  path: "/agents/{agentId}",
  summary: "One agent",
  request: { params: AgentIdParam },
  responses: { 200: { description: "The agent", ...jsonContent(PublicAgentSchema) }, ...errorResponses(400, 401, 404) },
});
const wallet = operation({
  ...common,
  method: "get",
  path: "/agents/{agentId}/wallet",
  summary: "Wallet balances and total USD value",
  request: { params: AgentIdParam },
  responses: {
    200: {
      description: "The wallet of the agent's trading mode, valued at market prices",
      ...jsonContent(AgentWalletSchema),
    },
    ...errorResponses(400, 401, 404),
  },
});
const liveTrades = operation({
  ...common,
  method: "get",
  path: "/agents/{agentId}/live-trades",
  summary: "Live trades",
  request: { params: AgentIdParam, query: LongListQuery },
  responses: {
    200: { description: "The agent's live-mode transactions, newest first", ...jsonContent(z.array(LiveTradeSchema)) },
    ...errorResponses(400, 401, 404),
  },
});
const solPrice = operation({
  ...common,
  method: "get",
  path: "/prices/sol",
  summary: "Latest SOL price",
  responses: { 200: { description: "SOL/USD", ...jsonContent(SolPriceSchema) }, ...errorResponses(401, 502, 503) },
});
const agentSignals = operation({
  ...common,
  method: "get",
  path: "/agents/{agentId}/signals",
  summary: "Latest signals the agent acted on or was eligible for",
  request: { params: AgentIdParam, query: LongListQuery },
  responses: {
    200: { description: "Newest first, each with the agent's evaluation", ...jsonContent(z.array(AgentSignalSchema)) },
    ...errorResponses(400, 401, 404),
  },
});
const agentSignal = operation({
  ...common,
  method: "get",
  path: "/agents/{agentId}/signals/{signalId}",
  summary: "One signal of the agent",
  request: { params: AgentSignalParams },
  responses: {
    200: { description: "The signal with the agent's evaluation", ...jsonContent(AgentSignalSchema) },
    ...errorResponses(400, 401, 404),
  },
});
// PRODUCT.md §5: without WHALE_DATA_API_KEY both whale routes answer 503, before any validation.
const whalesConfigured = (s: AppDeps) =>
  createMiddleware<AppEnv>(async (_c, next) => {
    s.market.whales.assertConfigured();
    await next();
  });
const whalesLatest = operation({
  ...common,
  method: "get",
  path: "/whale-trades/latest",
  guard: whalesConfigured,
  summary: "Latest whale trades of the tokens the user holds or was signalled",
  request: { query: WhaleQuerySchema },
  responses: {
    200: { description: "Whale buys, newest first", ...jsonContent(LatestWhaleTradesSchema) },
    ...errorResponses(400, 401, 502, 503),
  },
});
const whalesToken = operation({
  ...common,
  method: "get",
  path: "/whale-trades/{tokenAddress}",
  guard: whalesConfigured,
  summary: "Latest whale trades of one token",
  request: { params: TokenAddressParam, query: WhaleQuerySchema },
  responses: {
    200: { description: "Whale buys, newest first", ...jsonContent(TokenWhaleTradesSchema) },
    ...errorResponses(400, 401, 502, 503),
  },
});

export function publicRoutes(s: AppDeps) {
  const whales = new WhaleFeed(s.market.whales, s.clock);
  const router = createRouter(s);
  const user = (c: { get(k: "auth"): { userId: string } }) => c.get("auth").userId;
  const ownedAgent = (c: { get(k: "auth"): { userId: string } }, agentId: string) =>
    requireOwnedAgent(s.database, user(c), agentId);

  return router
    .openapi(health, async (c) => {
      const report = await s.health.report();
      const services = Object.fromEntries(Object.entries(report.services).map(([name, r]) => [name, r.status]));
      const body = {
        status: report.status,
        timestamp: isoNow(s.clock),
        version: VERSION,
        uptime: Math.max(0, Math.floor((s.clock.now() - s.startedAt) / 1000)),
        services,
      };
      return c.json(body, report.status === "unhealthy" ? 503 : 200);
    })
    .openapi(usage, (c) => c.json(apiUsage(s.database, user(c), c.get("auth").apiKeyId!), 200))
    .openapi(agents, (c) => c.json(s.agents.list(user(c), c.req.valid("query")), 200))
    .openapi(agentsSlash, (c) => c.json(s.agents.list(user(c), c.req.valid("query")), 200))
    .openapi(agent, (c) => c.json(s.agents.get(user(c), c.req.valid("param").agentId), 200))
    .openapi(wallet, async (c) => {
      const a = ownedAgent(c, c.req.valid("param").agentId);
      return c.json(await valueAgentWallet(s.database, s.market, s.logger, a), 200);
    })
    .openapi(liveTrades, (c) => {
      const a = ownedAgent(c, c.req.valid("param").agentId);
      return c.json(listLiveTrades(s.database, a.id, c.req.valid("query")), 200);
    })
    .openapi(solPrice, async (c) => c.json(await solPriceAnswer(s.market.solPrice), 200))
    .openapi(agentSignals, (c) => {
      const a = ownedAgent(c, c.req.valid("param").agentId);
      return c.json(listAgentSignals(s.database, a.id, c.req.valid("query")), 200);
    })
    .openapi(agentSignal, (c) => {
      const { agentId, signalId } = c.req.valid("param");
      const a = ownedAgent(c, agentId);
      return c.json(getAgentSignal(s.database, a.id, signalId), 200);
    })
    .openapi(whalesLatest, async (c) => {
      const tokens = watchedTokens(s.database, user(c), new Date(s.clock.now() - RECENT_SIGNALS_MS).toISOString());
      return c.json(await whales.latest(tokens, c.req.valid("query")), 200);
    })
    .openapi(whalesToken, async (c) => {
      const { tokenAddress } = c.req.valid("param");
      return c.json({ tokenAddress, trades: await whales.forToken(tokenAddress, c.req.valid("query")) }, 200);
    });
}
