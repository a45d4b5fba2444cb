import { z } from "@hono/zod-openapi";
import type { AppDeps } from "../../app-env.ts";
import { csvResponse } from "../../csv.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses, IdempotencyHeader, jsonContent, SuccessSchema } from "../../schemas.ts";
import { importHandler, importSignals, signalsKeepingUp } from "./import.ts";
import {
  CreateSignalBody,
  SignalExportQuery,
  SignalIdParam,
  SignalListQuery,
  SignalSchema,
  SignalWithProcessingSchema,
  UpdateSignalBody,
} from "./schema.ts";

export const SIGNALS_PATH = "/api/v1/trading-signals";

/** Per-key limiter key of POST /trading-signals. */
const signalLimitKey = (apiKeyId: string) => `signals:${apiKeyId}`;

const tags = ["trading-signals"];

const create = operation({
  method: "post",
  path: "/",
  tags,
  // The key's use is counted by the intake's group commit (a 201), or by the check otherwise.
  auth: auth.apiKey("signals", { useCountedBy: 201 }),
  rateLimit: { limiter: "signals", key: (c) => signalLimitKey(c.get("auth").apiKeyId as string) },
  guard: signalsKeepingUp,
  request: { headers: IdempotencyHeader, body: { ...jsonContent(CreateSignalBody), required: true } },
  responses: {
    201: { description: "Created (or replayed for a repeated Idempotency-Key)", ...jsonContent(SignalSchema) },
    ...errorResponses(400, 401, 403, 409, 429, 503),
  },
});
const list = operation({
  method: "get",
  path: "/",
  tags,
  auth: auth.scoped("signals"),
  request: { query: SignalListQuery },
  responses: {
    200: {
      description: "Signals, newest first; with include=processing each carries its processing",
      ...jsonContent(z.array(z.union([SignalWithProcessingSchema, SignalSchema]))),
    },
    ...errorResponses(400, 401, 403),
  },
});
const exportCsv = operation({
  method: "get",
  path: "/export",
  tags,
  auth: auth.scoped("signals"),
  request: { query: SignalExportQuery },
  responses: {
    200: {
      description: "CSV: id, createdAt, tokenAddress, symbol, signalType, signalStrength, activationReason, source",
      content: { "text/csv": { schema: z.string() } },
    },
    ...errorResponses(400, 401, 403),
  },
});
const deleteAll = operation({
  method: "delete",
  path: "/all",
  tags,
  auth: auth.user,
  responses: {
    200: {
      description: "Deleted every signal of the user",
      ...jsonContent(z.object({ success: z.boolean(), deleted: z.number().int() })),
    },
    ...errorResponses(401),
  },
});
const getOne = operation({
  method: "get",
  path: "/{id}",
  tags,
  auth: auth.scoped("signals"),
  request: { params: SignalIdParam },
  responses: {
    200: {
      description: "One signal, with what each of the owner's agents made of it (processing)",
      ...jsonContent(SignalWithProcessingSchema),
    },
    ...errorResponses(400, 401, 403, 404),
  },
});
const update = operation({
  method: "put",
  path: "/{id}",
  tags,
  auth: auth.user,
  request: { params: SignalIdParam, body: { ...jsonContent(UpdateSignalBody), required: true } },
  responses: {
    200: { description: "Updated signal (not processed again)", ...jsonContent(SignalSchema) },
    ...errorResponses(400, 401, 404),
  },
});
const remove = operation({
  method: "delete",
  path: "/{id}",
  tags,
  auth: auth.user,
  request: { params: SignalIdParam },
  responses: { 200: { description: "Deleted", ...jsonContent(SuccessSchema) }, ...errorResponses(400, 401, 404) },
});

const SIGNAL_CSV_COLUMNS = [
  "id",
  "createdAt",
  "tokenAddress",
  "symbol",
  "signalType",
  "signalStrength",
  "activationReason",
  "source",
] as const;

export function tradingSignalRoutes(s: AppDeps) {
  const router = createRouter(s);

  // Registration order matters: /export, /all and /import before /{id}, so they are never read as ids.
  return router
    .openapi(create, async (c) => {
      const auth = c.get("auth");
      const idem = c.req.valid("header")["idempotency-key"];
      // Resolves after the group commit that stored it (src/signals/signal-intake.ts).
      const { signal } = await s.signalIntake.submit(auth.userId, auth.apiKeyId as string, c.req.valid("json"), idem);
      return c.json(signal, 201);
    })
    .openapi(list, (c) => {
      const { include, ...filter } = c.req.valid("query");
      const userId = c.get("auth").userId;
      if (include === "processing") return c.json(s.signals.listWithProcessing(userId, filter), 200);
      return c.json(s.signals.list(userId, filter), 200);
    })
    .openapi(exportCsv, (c) => {
      const rows = s.signals.iterate(c.get("auth").userId, c.req.valid("query"));
      return csvResponse(c, "trading-signals.csv", SIGNAL_CSV_COLUMNS, rows) as never;
    })
    .openapi(importSignals, importHandler(s) as never)
    .openapi(deleteAll, (c) => c.json({ success: true, deleted: s.signals.deleteAll(c.get("auth").userId) }, 200))
    .openapi(getOne, (c) => c.json(s.signals.getWithProcessing(c.get("auth").userId, c.req.valid("param").id), 200))
    .openapi(update, (c) =>
      c.json(s.signals.update(c.get("auth").userId, c.req.valid("param").id, c.req.valid("json")), 200),
    )
    .openapi(remove, (c) => {
      s.signals.delete(c.get("auth").userId, c.req.valid("param").id);
      return c.json({ success: true }, 200);
    });
}
