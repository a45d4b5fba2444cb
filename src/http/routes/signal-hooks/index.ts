import { z } from "@hono/zod-openapi";
import type { AppDeps } from "../../app-env.ts";
import { audit } from "../../audit.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses, jsonContent, SuccessSchema } from "../../schemas.ts";
import {
  CreatedSignalHookSchema,
  CreateSignalHookBody,
  DeliveriesQuery,
  HookDeliverySchema,
  SignalHookIdParam,
  SignalHookSchema,
  UpdateSignalHookBody,
} from "./schema.ts";

// /api/v1/signal-hooks (PRODUCT.md §4): a user's hooks. A JWT, or an API key with the signals
// scope (a hook is a signal source, as a wallet watch), for every method. The token is in the
// create answer only.

const common = { tags: ["signal hooks"], auth: auth.scoped("signals") };
const idParams = { params: SignalHookIdParam };

const create = operation({
  ...common,
  method: "post",
  path: "/",
  request: { body: { ...jsonContent(CreateSignalHookBody), required: true } },
  responses: {
    201: { description: "Created: url and token are shown only here", ...jsonContent(CreatedSignalHookSchema) },
    ...errorResponses(400, 401, 403, 409),
  },
});
const list = operation({
  ...common,
  method: "get",
  path: "/",
  responses: {
    200: { description: "The user's signal hooks (no tokens)", ...jsonContent(z.array(SignalHookSchema)) },
    ...errorResponses(401, 403),
  },
});
const getOne = operation({
  ...common,
  method: "get",
  path: "/{id}",
  request: idParams,
  responses: {
    200: { description: "One signal hook (no token)", ...jsonContent(SignalHookSchema) },
    ...errorResponses(400, 401, 403, 404),
  },
});
const update = operation({
  ...common,
  method: "patch",
  path: "/{id}",
  request: { ...idParams, body: { ...jsonContent(UpdateSignalHookBody), required: true } },
  responses: {
    200: { description: "Updated (the token and URL stay)", ...jsonContent(SignalHookSchema) },
    ...errorResponses(400, 401, 403, 404, 409),
  },
});
const remove = operation({
  ...common,
  method: "delete",
  path: "/{id}",
  request: idParams,
  responses: {
    200: { description: "Revoked: its URL answers 404 from now on", ...jsonContent(SuccessSchema) },
    ...errorResponses(400, 401, 403, 404),
  },
});
const deliveries = operation({
  ...common,
  method: "get",
  path: "/{id}/deliveries",
  request: { ...idParams, query: DeliveriesQuery },
  responses: {
    200: {
      description: "The hook's last deliveries, newest first: when, what it answered, the signal",
      ...jsonContent(z.array(HookDeliverySchema)),
    },
    ...errorResponses(400, 401, 403, 404),
  },
});

export function signalHookRoutes(s: AppDeps) {
  const hooks = s.signalHooks;
  return createRouter(s)
    .openapi(create, (c) => {
      const created = hooks.create(c.get("auth").userId, c.req.valid("json"));
      s.logger.info("signal hook created", { hookId: created.id, name: created.name });
      audit(c, s, "signal_hook.created", created.id, { name: created.name, source: created.source });
      return c.json(created, 201);
    })
    .openapi(list, (c) => c.json(hooks.list(c.get("auth").userId), 200))
    .openapi(getOne, (c) => c.json(hooks.get(c.get("auth").userId, c.req.valid("param").id), 200))
    .openapi(update, (c) =>
      c.json(hooks.update(c.get("auth").userId, c.req.valid("param").id, c.req.valid("json")), 200),
    )
    .openapi(remove, (c) => {
      hooks.delete(c.get("auth").userId, c.req.valid("param").id);
      s.logger.info("signal hook revoked", { hookId: c.req.valid("param").id });
      audit(c, s, "signal_hook.deleted", c.req.valid("param").id);
      return c.json({ success: true }, 200);
    })
    .openapi(deliveries, (c) =>
      c.json(hooks.deliveriesOf(c.get("auth").userId, c.req.valid("param").id, c.req.valid("query").limit), 200),
    );
}
