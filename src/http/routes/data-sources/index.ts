import type { AppDeps } from "../../app-env.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses } from "../../schemas.ts";
import { DataSourceStatusSchema } from "./schema.ts";

// GET /data-sources/status (SPEC): `configured` per source, booleans only. SPEC "Limits": 30
// requests per minute on /data-sources, counted per user.

const status = operation({
  method: "get",
  path: "/status",
  tags: ["data-sources"],
  auth: auth.user,
  rateLimit: { limiter: "dataSources", key: (c) => `data-sources:${c.get("auth").userId}` },
  responses: {
    200: {
      description: "Which data sources are configured",
      content: { "application/json": { schema: DataSourceStatusSchema } },
    },
    ...errorResponses(401, 429),
  },
});

export function dataSourceRoutes(s: AppDeps) {
  const router = createRouter(s);
  return router.openapi(status, (c) => c.json(s.market.status(), 200));
}
