import { createRoute } from "@hono/zod-openapi";
import type { AppDeps, AppEnv } from "../../app-env.ts";
import { rateLimit } from "../../rate-limit.ts";
import { createRouter } from "../../router.ts";
import { errorResponses, userSecurity } from "../../schemas.ts";
import { DataSourceStatusSchema } from "./schema.ts";

// GET /data-sources/status (SPEC): `configured` per source, booleans only. SPEC "Limits": 30
// requests per minute on /data-sources, counted per user.

const status = createRoute({
  method: "get",
  path: "/status",
  tags: ["data-sources"],
  security: userSecurity,
  responses: {
    200: {
      description: "Which data sources are configured",
      content: { "application/json": { schema: DataSourceStatusSchema } },
    },
    ...errorResponses(401, 429),
  },
});

export function dataSourceRoutes(s: AppDeps) {
  const router = createRouter();
  router.use("*", s.auth.requireUser());
  router.use(
    "*",
    rateLimit<AppEnv>(s.limiters.dataSources, (c) => `data-sources:${c.get("auth").userId}`),
  );
  return router.openapi(status, (c) => c.json(s.market.status(), 200));
}
