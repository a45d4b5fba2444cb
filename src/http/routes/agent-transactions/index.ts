import { createRoute, z } from "@hono/zod-openapi";
import type { AppDeps } from "../../app-env.ts";
import { createRouter } from "../../router.ts";
import { bearerSecurity, errorResponses, jsonContent, jwtOrKeySecurity, SuccessSchema } from "../../schemas.ts";
import {
  CreateTransactionBody,
  TransactionIdParam,
  TransactionListQuery,
  TransactionSchema,
  UpdateTransactionBody,
} from "./schema.ts";

// /api/v1/agent-transactions (SPEC "Agent transaction endpoints"): GETs take a JWT or a
// `transactions` key; writes are JWT only (PRODUCT.md §2).

const tags = ["agent-transactions"];
const read = { tags, security: jwtOrKeySecurity };
const write = { tags, security: bearerSecurity };

const list = createRoute({
  ...read,
  method: "get",
  path: "/",
  request: { query: TransactionListQuery },
  responses: {
    200: { description: "Transactions, newest transactionTime first", ...jsonContent(z.array(TransactionSchema)) },
    ...errorResponses(400, 401, 403, 404),
  },
});
const getOne = createRoute({
  ...read,
  method: "get",
  path: "/{id}",
  request: { params: TransactionIdParam },
  responses: {
    200: { description: "One transaction", ...jsonContent(TransactionSchema) },
    ...errorResponses(400, 401, 403, 404),
  },
});
const create = createRoute({
  ...write,
  method: "post",
  path: "/",
  request: { body: { ...jsonContent(CreateTransactionBody), required: true } },
  responses: {
    201: { description: "Created record", ...jsonContent(TransactionSchema) },
    ...errorResponses(400, 401, 404),
  },
});
const update = createRoute({
  ...write,
  method: "put",
  path: "/{id}",
  request: { params: TransactionIdParam, body: { ...jsonContent(UpdateTransactionBody), required: true } },
  responses: {
    200: { description: "Updated record", ...jsonContent(TransactionSchema) },
    ...errorResponses(400, 401, 404),
  },
});
const remove = createRoute({
  ...write,
  method: "delete",
  path: "/{id}",
  request: { params: TransactionIdParam },
  responses: { 200: { description: "Deleted", ...jsonContent(SuccessSchema) }, ...errorResponses(400, 401, 404) },
});

export function agentTransactionRoutes(s: AppDeps) {
  const router = createRouter();
  router.use("*", s.auth.readWithScopeWriteWithUser("transactions"));
  const user = (c: { get(k: "auth"): { userId: string } }) => c.get("auth").userId;

  return router
    .openapi(list, (c) => c.json(s.agentTransactions.list(user(c), c.req.valid("query")), 200))
    .openapi(getOne, (c) => c.json(s.agentTransactions.get(user(c), c.req.valid("param").id), 200))
    .openapi(create, (c) => c.json(s.agentTransactions.create(user(c), c.req.valid("json")), 201))
    .openapi(update, (c) =>
      c.json(s.agentTransactions.update(user(c), c.req.valid("param").id, c.req.valid("json")), 200),
    )
    .openapi(remove, (c) => {
      s.agentTransactions.delete(user(c), c.req.valid("param").id);
      return c.json({ success: true }, 200);
    });
}
