import { z } from "@hono/zod-openapi";
import { csvResponse } from "../../csv.ts";
import { operation } from "../../operation.ts";
import { errorResponses } from "../../schemas.ts";
import { ledgerRoutes } from "../ledger-routes.ts";
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
// a JWT or a `history` key; writes take a JWT or a full_access key (PRODUCT.md §2).

export const agentHistoricalSwapRoutes = ledgerRoutes({
  tag: "agent-historical-swaps",
  scope: "history",
  service: (s) => s.historicalSwaps,
  idParam: SwapIdParam,
  listQuery: SwapListQuery,
  item: SwapSchema,
  create: CreateSwapBody,
  update: UpdateSwapBody,
  text: {
    list: "Swaps, most recent sale first",
    getOne: "One swap",
    updateDescription:
      "Edits what the record shows. Trading never reads a historical swap back (positions and their P/L are the engine's own), so an edit changes what is shown, not what the agent does.",
  },
  // /export is registered before /{id} so it is never read as an id.
  extraReads: (router, s, read) => {
    const exportCsv = operation({
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
    router.openapi(exportCsv, (c) => {
      const rows = s.historicalSwaps.exportRows(c.get("auth").userId, c.req.valid("query"));
      return csvResponse(c, "historical-swaps.csv", SWAP_CSV_COLUMNS, rows) as never;
    });
  },
});
