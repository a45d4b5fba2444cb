import { z } from "@hono/zod-openapi";
import type { AppDeps } from "../../app-env.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses, jsonContent, SuccessSchema } from "../../schemas.ts";
import { CreateGroupBody, GroupIdParam, GroupSchema, UpdateGroupBody } from "./schema.ts";

// /api/v1/wallet-watch-groups (copy trading): groups of followed wallets that make one signal
// (source group:<name>) when N of them buy the same mint within T. Same credentials as watches.

const common = { tags: ["copy trading"], auth: auth.scoped("signals") };
const idParams = { params: GroupIdParam };

const create = operation({
  ...common,
  method: "post",
  path: "/",
  request: { body: { ...jsonContent(CreateGroupBody), required: true } },
  responses: {
    201: { description: "Created", ...jsonContent(GroupSchema) },
    ...errorResponses(400, 401, 403, 409),
  },
});
const list = operation({
  ...common,
  method: "get",
  path: "/",
  responses: {
    200: { description: "The user's wallet watch groups", ...jsonContent(z.array(GroupSchema)) },
    ...errorResponses(401, 403),
  },
});
const getOne = operation({
  ...common,
  method: "get",
  path: "/{id}",
  request: idParams,
  responses: {
    200: { description: "One group", ...jsonContent(GroupSchema) },
    ...errorResponses(400, 401, 403, 404),
  },
});
const update = operation({
  ...common,
  method: "put",
  path: "/{id}",
  request: { ...idParams, body: { ...jsonContent(UpdateGroupBody), required: true } },
  responses: {
    200: { description: "Updated", ...jsonContent(GroupSchema) },
    ...errorResponses(400, 401, 403, 404, 409),
  },
});
const remove = operation({
  ...common,
  method: "delete",
  path: "/{id}",
  request: idParams,
  responses: {
    200: { description: "Deleted", ...jsonContent(SuccessSchema) },
    ...errorResponses(400, 401, 403, 404),
  },
});

export function walletWatchGroupRoutes(s: AppDeps) {
  const router = createRouter(s);
  const groups = s.copyTrading.groups;
  return router
    .openapi(create, (c) => c.json(groups.create(c.get("auth").userId, c.req.valid("json")), 201))
    .openapi(list, (c) => c.json(groups.list(c.get("auth").userId), 200))
    .openapi(getOne, (c) => c.json(groups.get(c.get("auth").userId, c.req.valid("param").id), 200))
    .openapi(update, (c) =>
      c.json(groups.update(c.get("auth").userId, c.req.valid("param").id, c.req.valid("json")), 200),
    )
    .openapi(remove, (c) => {
      groups.delete(c.get("auth").userId, c.req.valid("param").id);
      return c.json({ success: true }, 200);
    });
}
