import { z } from "@hono/zod-openapi";
import { requireOwnedAgent } from "../../../agents/ownership.ts";
import { computePerformance } from "../../../agents/performance.ts";
import { formatConfigIssues, INVALID_CONFIG_MESSAGE } from "../../../agents/trading-config.ts";
import { ValidationError } from "../../../errors.ts";
import { listBalanceHistory } from "../../../ledgers/balance-snapshots.ts";
import type { AppDeps } from "../../app-env.ts";
import { audit } from "../../audit.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses, jsonContent } from "../../schemas.ts";
import {
  AgentIdParam,
  AgentListQuery,
  AgentSchema,
  BalanceHistoryQuery,
  BalanceSnapshotSchema,
  ConfigResponse,
  ConfigUpdateBody,
  CreateAgentBody,
  DateRangeQuery,
  DeleteAgentResponse,
  PerformanceSchema,
  PositionSchema,
  UpdateAgentBody,
} from "./schema.ts";

// /api/v1/agents (SPEC "Agent endpoints"; PRODUCT.md §3). GETs accept a JWT or an API key with
// the `agents` scope (SPEC scope table, PRODUCT.md §2); every other method is JWT only.

const tags = ["agents"];
const read = { tags, auth: auth.scoped("agents") };
const write = { tags, auth: auth.user };

const create = operation({
  ...write,
  method: "post",
  path: "/",
  request: { body: { ...jsonContent(CreateAgentBody), required: true } },
  responses: {
    201: {
      description: "Created, with a simulation wallet holding SIMULATION_INITIAL_SOL",
      ...jsonContent(AgentSchema),
    },
    ...errorResponses(400, 401),
  },
});
// The list answers only from the caller's rows: kept while the database is unchanged.
const list = operation({
  ...read,
  cached: true,
  method: "get",
  path: "/",
  request: { query: AgentListQuery },
  responses: {
    200: { description: "The user's agents, newest first", ...jsonContent(z.array(AgentSchema)) },
    ...errorResponses(400, 401, 403),
  },
});
const getOne = operation({
  ...read,
  method: "get",
  path: "/{id}",
  request: { params: AgentIdParam },
  responses: { 200: { description: "One agent", ...jsonContent(AgentSchema) }, ...errorResponses(400, 401, 403, 404) },
});
const update = operation({
  ...write,
  method: "put",
  path: "/{id}",
  request: { params: AgentIdParam, body: { ...jsonContent(UpdateAgentBody), required: true } },
  responses: { 200: { description: "Updated agent", ...jsonContent(AgentSchema) }, ...errorResponses(400, 401, 404) },
});
const remove = operation({
  ...write,
  method: "delete",
  path: "/{id}",
  request: { params: AgentIdParam },
  responses: {
    200: {
      description: "Deleted with its positions, balance history and configuration",
      ...jsonContent(DeleteAgentResponse),
    },
    // 409 while a live swap of the agent is pending or unknown.
    ...errorResponses(400, 401, 404, 409),
  },
});
const getConfig = operation({
  ...read,
  method: "get",
  path: "/{id}/config",
  request: { params: AgentIdParam },
  responses: {
    200: { description: "The complete configuration, defaults merged in", ...jsonContent(ConfigResponse) },
    ...errorResponses(400, 401, 403, 404),
  },
});
const putConfig = operation({
  ...write,
  method: "put",
  path: "/{id}/config",
  request: { params: AgentIdParam, body: { ...jsonContent(ConfigUpdateBody), required: true } },
  responses: {
    200: {
      description: "The complete merged configuration ({config: null} resets to defaults)",
      ...jsonContent(ConfigResponse),
    },
    ...errorResponses(400, 401, 404),
  },
});
const positions = operation({
  ...read,
  method: "get",
  path: "/{id}/positions",
  request: { params: AgentIdParam },
  responses: {
    200: { description: "Open positions of the agent", ...jsonContent(z.array(PositionSchema)) },
    ...errorResponses(400, 401, 403, 404),
  },
});
const performance = operation({
  ...read,
  method: "get",
  path: "/{id}/performance",
  request: { params: AgentIdParam, query: DateRangeQuery },
  responses: {
    200: { description: "Trade statistics and P/L (PRODUCT.md §3)", ...jsonContent(PerformanceSchema) },
    ...errorResponses(400, 401, 403, 404),
  },
});
const balanceHistory = operation({
  ...read,
  method: "get",
  path: "/{id}/balance-history",
  request: { params: AgentIdParam, query: BalanceHistoryQuery },
  responses: {
    200: {
      description: "Balance snapshots, oldest first (the most recent `limit` in the range)",
      ...jsonContent(z.array(BalanceSnapshotSchema)),
    },
    ...errorResponses(400, 401, 403, 404),
  },
});

export function agentRoutes(s: AppDeps) {
  const router = createRouter(s);
  const user = (c: { get(k: "auth"): { userId: string } }) => c.get("auth").userId;

  return router
    .openapi(create, (c) => {
      const agent = s.agents.create(user(c), c.req.valid("json"));
      audit(c, s, "agent.created", agent.id, { name: agent.name });
      return c.json(agent, 201);
    })
    .openapi(list, (c) => c.json(s.agents.list(user(c), c.req.valid("query")), 200))
    .openapi(getOne, (c) => c.json(s.agents.get(user(c), c.req.valid("param").id), 200))
    .openapi(update, (c) => {
      const body = c.req.valid("json");
      const agent = s.agents.update(user(c), c.req.valid("param").id, body);
      audit(c, s, "agent.updated", agent.id, { fields: Object.keys(body) });
      return c.json(agent, 200);
    })
    .openapi(remove, (c) => {
      s.agents.delete(user(c), c.req.valid("param").id);
      audit(c, s, "agent.deleted", c.req.valid("param").id);
      return c.json({ success: true, message: "Agent deleted successfully" }, 200);
    })
    .openapi(getConfig, (c) => c.json({ config: s.agents.getConfig(user(c), c.req.valid("param").id) }, 200))
    .openapi(
      putConfig,
      (c) => {
        const { id } = c.req.valid("param");
        const body = c.req.valid("json");
        const applyToOpenPositions = body.applyToOpenPositions ?? false;
        const answer = s.agents.updateConfig(user(c), id, body.config, applyToOpenPositions);
        audit(c, s, "agent.config_updated", id, { fields: Object.keys(body.config ?? {}), applyToOpenPositions });
        return c.json(answer, 200);
      },
      // SPEC: a configuration failure is 400 "Invalid trading configuration" with details as strings.
      (result) => {
        if (result.success) return undefined;
        const issues = result.error.issues;
        if (issues.every((i) => i.path[0] === "id"))
          throw new ValidationError(issues[0]?.message ?? "Invalid agent ID format");
        throw new ValidationError(INVALID_CONFIG_MESSAGE, formatConfigIssues(issues, "config"));
      },
    )
    .openapi(positions, async (c) => {
      const agent = requireOwnedAgent(s.database, user(c), c.req.valid("param").id);
      return c.json(await s.openPositions.listOpen({ agentIds: [agent.id] }), 200);
    })
    .openapi(performance, async (c) => {
      const agent = requireOwnedAgent(s.database, user(c), c.req.valid("param").id);
      return c.json(await computePerformance(s.database, s.openPositions, agent.id, c.req.valid("query")), 200);
    })
    .openapi(balanceHistory, (c) => {
      const agent = requireOwnedAgent(s.database, user(c), c.req.valid("param").id);
      return c.json(listBalanceHistory(s.database, agent.id, c.req.valid("query")), 200);
    });
}
