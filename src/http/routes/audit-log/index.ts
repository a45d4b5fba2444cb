import { z } from "@hono/zod-openapi";
import { AUDIT_ACTIONS } from "../../../audit/audit-shape.ts";
import type { AppDeps } from "../../app-env.ts";
import { csvResponse } from "../../csv.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses, isoDateTime, jsonContent, pagination } from "../../schemas.ts";

// GET /api/v1/audit-log (PRODUCT.md §2): the caller's own entries, newest first, JWT only (an API
// key does not read who logged in from where). No route writes, changes or deletes an entry.

const tags = ["audit-log"];
const EXPORT_MAX = 100_000;
const CSV_COLUMNS = ["id", "at", "action", "actor", "ip", "userAgent", "target", "details"] as const;

const filters = {
  action: z
    .enum(AUDIT_ACTIONS, { error: "action must be one of the audit actions, such as auth.login" })
    .optional()
    .openapi({ param: { name: "action", in: "query" }, example: "auth.login" }),
  since: isoDateTime("since")
    .optional()
    .openapi({ param: { name: "since", in: "query" }, example: "2026-01-01T00:00:00Z" }),
};
const ListQuery = z.object({ ...pagination(50, 500), ...filters });
const ExportQuery = z.object(filters);

const AuditEntrySchema = z
  .object({
    id: z.number().int(),
    at: z.string(),
    action: z.string(),
    actor: z.string().openapi({ description: "user, anonymous, api_key:<id>, telegram, cli or system" }),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    target: z.string().nullable(),
    details: z.record(z.string(), z.unknown()),
  })
  .openapi("AuditEntry");
const AuditPage = z
  .object({
    entries: z.array(AuditEntrySchema),
    pagination: z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int() }),
  })
  .openapi("AuditLogPage");

const list = operation({
  tags,
  auth: auth.jwt,
  method: "get",
  path: "/",
  request: { query: ListQuery },
  responses: {
    200: { description: "Audit entries, newest first", ...jsonContent(AuditPage) },
    ...errorResponses(400, 401),
  },
});

const exportCsv = operation({
  tags,
  auth: auth.jwt,
  method: "get",
  path: "/export",
  request: { query: ExportQuery },
  responses: {
    200: {
      description: `CSV with columns ${CSV_COLUMNS.join(", ")}, newest first, at most ${EXPORT_MAX} rows`,
      content: { "text/csv": { schema: z.string() } },
    },
    ...errorResponses(400, 401),
  },
});

export function auditLogRoutes(s: AppDeps) {
  return createRouter(s)
    .openapi(list, (c) => {
      const q = c.req.valid("query");
      const { entries, total } = s.audit.list(c.get("auth").userId, q);
      return c.json({ entries, pagination: { limit: q.limit, offset: q.offset, total } }, 200);
    })
    .openapi(exportCsv, (c) => {
      const q = c.req.valid("query");
      const { entries } = s.audit.list(c.get("auth").userId, { ...q, limit: EXPORT_MAX, offset: 0 });
      return csvResponse(c, "audit-log.csv", CSV_COLUMNS, entries) as never;
    });
}
