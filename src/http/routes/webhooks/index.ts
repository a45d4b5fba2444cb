import { z } from "@hono/zod-openapi";
import type { AppDeps } from "../../app-env.ts";
import { audit } from "../../audit.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses, jsonContent, SuccessSchema } from "../../schemas.ts";
import {
  CreatedWebhookSchema,
  CreateWebhookBody,
  DeliveriesQuery,
  DeliverySchema,
  SecretSchema,
  TestResultSchema,
  UpdateWebhookBody,
  WebhookIdParam,
  WebhookSchema,
} from "./schema.ts";

// /api/v1/webhooks (PRODUCT.md §7): the user's endpoints, JWT only. The signing secret
// appears in the creation (and rotation) response and nowhere else.

const common = { tags: ["webhooks"], auth: auth.user };
const idParams = { params: WebhookIdParam };

const create = operation({
  ...common,
  method: "post",
  path: "/",
  request: { body: { ...jsonContent(CreateWebhookBody), required: true } },
  responses: {
    201: { description: "Created; the secret appears only here", ...jsonContent(CreatedWebhookSchema) },
    ...errorResponses(400, 401),
  },
});
const list = operation({
  ...common,
  method: "get",
  path: "/",
  responses: {
    200: { description: "The user's webhooks", ...jsonContent(z.array(WebhookSchema)) },
    ...errorResponses(401),
  },
});
const getOne = operation({
  ...common,
  method: "get",
  path: "/{id}",
  request: idParams,
  responses: { 200: { description: "One webhook", ...jsonContent(WebhookSchema) }, ...errorResponses(400, 401, 404) },
});
const update = operation({
  ...common,
  method: "patch",
  path: "/{id}",
  request: { ...idParams, body: { ...jsonContent(UpdateWebhookBody), required: true } },
  responses: { 200: { description: "Updated", ...jsonContent(WebhookSchema) }, ...errorResponses(400, 401, 404) },
});
const remove = operation({
  ...common,
  method: "delete",
  path: "/{id}",
  request: idParams,
  responses: { 200: { description: "Deleted", ...jsonContent(SuccessSchema) }, ...errorResponses(400, 401, 404) },
});
const test = operation({
  ...common,
  method: "post",
  path: "/{id}/test",
  request: idParams,
  responses: {
    200: { description: "Outcome of one signed webhook.test message", ...jsonContent(TestResultSchema) },
    ...errorResponses(400, 401, 404),
  },
});
const rotate = operation({
  ...common,
  method: "post",
  path: "/{id}/rotate-secret",
  request: idParams,
  responses: {
    200: { description: "New secret; shown only here", ...jsonContent(SecretSchema) },
    ...errorResponses(400, 401, 404),
  },
});
const deliveries = operation({
  ...common,
  method: "get",
  path: "/{id}/deliveries",
  request: { ...idParams, query: DeliveriesQuery },
  responses: {
    200: { description: "Delivery attempts, newest first", ...jsonContent(z.array(DeliverySchema)) },
    ...errorResponses(400, 401, 404),
  },
});

export function webhookRoutes(s: AppDeps) {
  const router = createRouter(s);
  const hooks = s.notifications.webhooks;
  return router
    .openapi(create, async (c) => {
      const created = await hooks.create(c.get("auth").userId, c.req.valid("json"));
      s.logger.info("webhook created", { webhookId: created.id, events: created.events });
      audit(c, s, "webhook.created", created.id, { url: created.url, events: created.events });
      return c.json(created, 201);
    })
    .openapi(list, (c) => c.json(hooks.list(c.get("auth").userId), 200))
    .openapi(getOne, (c) => c.json(hooks.get(c.get("auth").userId, c.req.valid("param").id), 200))
    .openapi(update, async (c) =>
      c.json(await hooks.update(c.get("auth").userId, c.req.valid("param").id, c.req.valid("json")), 200),
    )
    .openapi(remove, (c) => {
      hooks.delete(c.get("auth").userId, c.req.valid("param").id);
      audit(c, s, "webhook.deleted", c.req.valid("param").id);
      return c.json({ success: true }, 200);
    })
    .openapi(test, async (c) => c.json(await hooks.test(c.get("auth").userId, c.req.valid("param").id), 200))
    .openapi(rotate, (c) => c.json(hooks.rotateSecret(c.get("auth").userId, c.req.valid("param").id), 200))
    .openapi(deliveries, (c) =>
      c.json(hooks.deliveries(c.get("auth").userId, c.req.valid("param").id, c.req.valid("query")), 200),
    );
}
