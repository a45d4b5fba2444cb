import { createRoute, z } from "@hono/zod-openapi";
import type { AppDeps } from "../../app-env.ts";
import { createRouter } from "../../router.ts";
import { bearerSecurity, errorResponses, jsonContent, jwtOrKeySecurity, SuccessSchema } from "../../schemas.ts";
import {
  BalanceIdParam,
  BalanceListItemSchema,
  BalanceListQuery,
  BalanceSchema,
  CreateBalanceBody,
  UpdateBalanceBody,
} from "./schema.ts";

// /api/v1/agent-balances (SPEC "Agent balance endpoints"): GETs take a JWT or a `balances` key;
// writes are JWT only (PRODUCT.md §2).

const tags = ["agent-balances"];
const read = { tags, security: jwtOrKeySecurity };
const write = { tags, security: bearerSecurity };

const list = createRoute({
  ...read,
  method: "get",
  path: "/",
  request: { query: BalanceListQuery },
  responses: {
    200: {
      description: "The agent's balances, SOL first, each with priceSol",
      ...jsonContent(z.array(BalanceListItemSchema)),
    },
    ...errorResponses(400, 401, 403, 404),
  },
});
const getOne = createRoute({
  ...read,
  method: "get",
  path: "/{id}",
  request: { params: BalanceIdParam },
  responses: {
    200: { description: "One balance (without priceSol)", ...jsonContent(BalanceSchema) },
    ...errorResponses(400, 401, 403, 404),
  },
});
const create = createRoute({
  ...write,
  method: "post",
  path: "/",
  request: { body: { ...jsonContent(CreateBalanceBody), required: true } },
  responses: { 201: { description: "Created", ...jsonContent(BalanceSchema) }, ...errorResponses(400, 401, 404, 409) },
});
const update = createRoute({
  ...write,
  method: "put",
  path: "/{id}",
  request: { params: BalanceIdParam, body: { ...jsonContent(UpdateBalanceBody), required: true } },
  responses: { 200: { description: "Updated", ...jsonContent(BalanceSchema) }, ...errorResponses(400, 401, 404) },
});
const remove = createRoute({
  ...write,
  method: "delete",
  path: "/{id}",
  request: { params: BalanceIdParam },
  responses: { 200: { description: "Deleted", ...jsonContent(SuccessSchema) }, ...errorResponses(400, 401, 404) },
});

export function agentBalanceRoutes(s: AppDeps) {
  const router = createRouter();
  router.use("*", s.auth.readWithScopeWriteWithUser("balances"));
  const user = (c: { get(k: "auth"): { userId: string } }) => c.get("auth").userId;

  return router
    .openapi(list, async (c) => c.json(await s.agentBalances.list(user(c), c.req.valid("query")), 200))
    .openapi(getOne, (c) => c.json(s.agentBalances.get(user(c), c.req.valid("param").id), 200))
    .openapi(create, (c) => c.json(s.agentBalances.create(user(c), c.req.valid("json")), 201))
    .openapi(update, (c) => c.json(s.agentBalances.update(user(c), c.req.valid("param").id, c.req.valid("json")), 200))
    .openapi(remove, (c) => {
      s.agentBalances.delete(user(c), c.req.valid("param").id);
      return c.json({ success: true }, 200);
    });
}
