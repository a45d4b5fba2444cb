import { createRoute, z } from "@hono/zod-openapi";
import type { AppDeps } from "../../app-env.ts";
import { csvResponse } from "../../csv.ts";
import { createRouter } from "../../router.ts";
import { bearerSecurity, errorResponses, jsonContent, jwtOrKeySecurity, SuccessSchema } from "../../schemas.ts";
import {
  CreateSwapBody,
  SWAP_CSV_COLUMNS,
  SwapExportQuery,
  SwapIdParam,
  SwapListQuery,
  SwapSchema,
  UpdateSwapBody,
} from "./schema.ts";

// /api/v1/agent-historical-swaps (SPEC "Historical swap endpoints"): GETs (export included) take
// a JWT or a `history` key; writes are JWT only (PRODUCT.md §2).

const tags = ["agent-historical-swaps"];
const read = { tags, security: jwtOrKeySecurity };
const write = { tags, security: bearerSecurity };

const list = createRoute({
  ...read,
  method: "get",
  path: "/",
  request: { query: SwapListQuery },
  responses: {
    200: { description: "Swaps, most recent sale first", ...jsonContent(z.array(SwapSchema)) },
    ...errorResponses(400, 401, 403, 404),
  },
});
const exportCsv = createRoute({
  ...read,
  method: "get",
  path: "/export",
  request: { query: SwapExportQuery },
  responses: {
    200: {
      description: `CSV with columns ${SWAP_CSV_COLUMNS.join(", ")}`,
      content: { "text/csv": { schema: z.string() } },
    },
    ...errorResponses(400, 401, 403, 404),
  },
});
const getOne = createRoute({
  ...read,
  method: "get",
  path: "/{id}",
  request: { params: SwapIdParam },
  responses: { 200: { description: "One swap", ...jsonContent(SwapSchema) }, ...errorResponses(400, 401, 403, 404) },
});
const create = createRoute({
  ...write,
  method: "post",
  path: "/",
  request: { body: { ...jsonContent(CreateSwapBody), required: true } },
  responses: { 201: { description: "Created record", ...jsonContent(SwapSchema) }, ...errorResponses(400, 401, 404) },
});
const update = createRoute({
  ...write,
  method: "put",
  path: "/{id}",
  request: { params: SwapIdParam, body: { ...jsonContent(UpdateSwapBody), required: true } },
  responses: { 200: { description: "Updated record", ...jsonContent(SwapSchema) }, ...errorResponses(400, 401, 404) },
});
const remove = createRoute({
  ...write,
  method: "delete",
  path: "/{id}",
  request: { params: SwapIdParam },
  responses: { 200: { description: "Deleted", ...jsonContent(SuccessSchema) }, ...errorResponses(400, 401, 404) },
});

export function agentHistoricalSwapRoutes(s: AppDeps) {
  const router = createRouter();
  router.use("*", s.auth.readWithScopeWriteWithUser("history"));
  const user = (c: { get(k: "auth"): { userId: string } }) => c.get("auth").userId;

  // /export is registered before /{id} so it is never read as an id.
  return router
    .openapi(list, (c) => c.json(s.historicalSwaps.list(user(c), c.req.valid("query")), 200))
    .openapi(exportCsv, (c) => {
      const rows = s.historicalSwaps.exportRows(user(c), c.req.valid("query"));
      return csvResponse(c, "historical-swaps.csv", SWAP_CSV_COLUMNS, rows) as never;
    })
    .openapi(getOne, (c) => c.json(s.historicalSwaps.get(user(c), c.req.valid("param").id), 200))
    .openapi(create, (c) => c.json(s.historicalSwaps.create(user(c), c.req.valid("json")), 201))
    .openapi(update, (c) =>
      c.json(s.historicalSwaps.update(user(c), c.req.valid("param").id, c.req.valid("json")), 200),
    )
    .openapi(remove, (c) => {
      s.historicalSwaps.delete(user(c), c.req.valid("param").id);
      return c.json({ success: true }, 200);
    });
}
