import { z } from "@hono/zod-openapi";
import type { AppDeps } from "../../app-env.ts";
import { audit } from "../../audit.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses, jsonContent, SuccessSchema } from "../../schemas.ts";
import { ApiKeyIdParam, ApiKeyListItem, ApiKeyView, CreateApiKeyBody, CreatedApiKey } from "./schema.ts";

const common = { tags: ["api-keys"], auth: auth.jwt };

const create = operation({
  ...common,
  method: "post",
  path: "/",
  request: { body: { ...jsonContent(CreateApiKeyBody), required: true } },
  responses: {
    201: { description: "Created; the raw key appears only here", ...jsonContent(CreatedApiKey) },
    ...errorResponses(400, 401, 409),
  },
});
const list = operation({
  ...common,
  method: "get",
  path: "/",
  responses: {
    200: { description: "The user's keys", ...jsonContent(z.array(ApiKeyListItem)) },
    ...errorResponses(401),
  },
});
const getOne = operation({
  ...common,
  method: "get",
  path: "/{id}",
  request: { params: ApiKeyIdParam },
  responses: { 200: { description: "One key", ...jsonContent(ApiKeyView) }, ...errorResponses(400, 401, 404) },
});
const remove = operation({
  ...common,
  method: "delete",
  path: "/{id}",
  request: { params: ApiKeyIdParam },
  responses: { 200: { description: "Deleted", ...jsonContent(SuccessSchema) }, ...errorResponses(400, 401, 404) },
});

export function apiKeyRoutes(s: AppDeps) {
  const router = createRouter(s);
  return router
    .openapi(create, (c) => {
      const { name, scopes } = c.req.valid("json");
      const key = s.apiKeys.create(c.get("auth").userId, name, scopes);
      s.logger.info("api key created", { apiKeyId: key.id, prefix: key.prefix, scopes: key.scopes });
      audit(c, s, "api_key.created", key.id, { name: key.name, prefix: key.prefix, scopes: key.scopes });
      const { lastUsedAt: _unused, ...body } = key;
      return c.json(body, 201);
    })
    .openapi(list, (c) => c.json(s.apiKeys.list(c.get("auth").userId), 200))
    .openapi(getOne, (c) => {
      const { lastUsedAt: _unused, ...view } = s.apiKeys.get(c.get("auth").userId, c.req.valid("param").id);
      return c.json(view, 200);
    })
    .openapi(remove, (c) => {
      const id = c.req.valid("param").id;
      s.apiKeys.delete(c.get("auth").userId, id);
      audit(c, s, "api_key.deleted", id);
      return c.json({ success: true }, 200);
    });
}
