import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { ImportedSignalRow } from "../../../db/repositories/signals.ts";
import { ValidationError } from "../../../errors.ts";
import { MAX_IMPORT_ROWS } from "../../../signals/signal-import.ts";
import type { AppDeps, AppEnv } from "../../app-env.ts";
import { MAX_IMPORT_BODY_BYTES } from "../../body-limits.ts";
import { CsvSyntaxError, parseCsv, uncell } from "../../csv-parse.ts";
import { auth, operation } from "../../operation.ts";
import { errorResponses, isStrictIsoDateTime, jsonContent } from "../../schemas.ts";
import { CreateSignalBody } from "./schema.ts";

// POST /api/v1/trading-signals/import: a CSV in the export's columns, as the
// body (text/csv) or as {csv} in JSON. Every row is checked as POST /trading-signals checks a
// signal, plus a strict createdAt not in the future; any bad row refuses the whole file (400,
// details name the row as a spreadsheet numbers it: the header is row 1). The id column is
// ignored (new ids). Imported signals never trade (src/signals/signal-import.ts).

const IMPORT_COLUMNS = [
  "id",
  "createdAt",
  "tokenAddress",
  "symbol",
  "signalType",
  "signalStrength",
  "activationReason",
  "source",
] as const;
const REQUIRED = ["createdAt", "tokenAddress", "signalType", "signalStrength"] as const;
const MAX_DETAILS = 50;

const MEDIA_TYPES = ["text/csv", "application/json"];
const mediaType = (c: Context<AppEnv>) => (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();

const ImportJsonBody = z
  .object({ csv: z.string({ error: "csv is required (the CSV text)" }) })
  .openapi("SignalImportRequest", {
    example: {
      csv: "id,createdAt,tokenAddress,symbol,signalType,signalStrength,activationReason,source\r\n,2026-01-05T10:00:00.000Z,DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263,BONK,buy,4,volume breakout,alpha-channel\r\n",
    },
  });

const ImportResult = z
  .object({ imported: z.number().int(), duplicates: z.number().int(), historyQueued: z.number().int() })
  .openapi("SignalImportResult");

/**
 * Backpressure (docs/decisions/under-load.md): while the signal queue lags more than
 * SIGNAL_QUEUE_MAX_LAG_SECONDS, POST /trading-signals and this import answer 503 with Retry-After,
 * after the credential and rate limit and before the body is read or anything stored.
 */
export const signalsKeepingUp = (s: AppDeps) =>
  createMiddleware<AppEnv>(async (_c, next) => {
    s.signalQueue.refuseWhileBehind(s.config.SIGNAL_QUEUE_MAX_LAG_SECONDS);
    await next();
  });

export const importSignals = operation({
  method: "post",
  path: "/import",
  tags: ["trading-signals"],
  auth: auth.user,
  description: `CSV with the export's header (${IMPORT_COLUMNS.join(", ")}; id optional and ignored), at most ${MAX_IMPORT_ROWS} rows. Stored as already processed: imported signals never trigger trades. Rows equal to one of your signals (createdAt, tokenAddress, signalType, source) are skipped as duplicates.`,
  // Before the body validators: a wrong Content-Type gets this route's own message.
  bodyLimit: MAX_IMPORT_BODY_BYTES,
  guard: (s) =>
    createMiddleware<AppEnv>(async (c, next) => {
      s.signalQueue.refuseWhileBehind(s.config.SIGNAL_QUEUE_MAX_LAG_SECONDS);
      if (!MEDIA_TYPES.includes(mediaType(c)))
        throw new ValidationError("Content-Type must be text/csv or application/json");
      await next();
    }),
  request: {
    // Not `required`: @hono/zod-openapi would then run the JSON validator on a text/csv body too.
    body: {
      content: {
        "text/csv": { schema: z.string().openapi({ example: `${IMPORT_COLUMNS.join(",")}\r\n` }) },
        "application/json": { schema: ImportJsonBody },
      },
    },
  },
  responses: {
    201: { description: "Imported", ...jsonContent(ImportResult) },
    ...errorResponses(400, 401, 403, 413, 503),
  },
});

/** The request's CSV text: the text/csv body, or `csv` of the (validated) JSON body. */
async function readCsvBody(c: Context<AppEnv>): Promise<string> {
  if (mediaType(c) === "application/json") return (c.req.valid("json" as never) as { csv: string }).csv;
  return c.req.text();
}

/** Parses and validates the whole file; throws one ValidationError listing every bad row. */
function parseSignalCsv(text: string, nowMs: number): ImportedSignalRow[] {
  let records: string[][];
  try {
    records = parseCsv(text, MAX_IMPORT_ROWS + 2);
  } catch (err) {
    if (err instanceof CsvSyntaxError) throw new ValidationError(`row ${err.record}: ${err.message}`);
    throw err;
  }
  const header = records[0]?.map((h) => h.trim());
  if (!header || header.length === 0) throw new ValidationError("The CSV is empty: a header row is required");
  const unknown = header.filter((h) => !(IMPORT_COLUMNS as readonly string[]).includes(h));
  const missing = REQUIRED.filter((r) => !header.includes(r));
  if (unknown.length > 0 || missing.length > 0)
    throw new ValidationError(`The header must name the export's columns: ${IMPORT_COLUMNS.join(", ")}`, [
      ...missing.map((m) => `missing column ${m}`),
      ...unknown.map((u) => `unknown column ${u}`),
    ]);
  if (new Set(header).size !== header.length) throw new ValidationError("A column is named twice in the header");
  const rows = records.slice(1);
  if (rows.length === 0) throw new ValidationError("The CSV has no rows");
  if (rows.length > MAX_IMPORT_ROWS) throw new ValidationError(`At most ${MAX_IMPORT_ROWS} rows per import`);

  const col = (name: string) => header.indexOf(name);
  const at = Object.fromEntries(IMPORT_COLUMNS.map((c) => [c, col(c)])) as Record<
    (typeof IMPORT_COLUMNS)[number],
    number
  >;
  const details: string[] = [];
  let badRows = 0;
  const out: ImportedSignalRow[] = [];
  rows.forEach((fields, i) => {
    const rowNo = i + 2;
    const problems: string[] = [];
    if (fields.length !== header.length) problems.push(`has ${fields.length} fields, the header has ${header.length}`);
    const cell = (name: keyof typeof at): string | null => {
      const v = at[name] >= 0 ? fields[at[name]] : undefined;
      return v === undefined || v === "" ? null : uncell(v);
    };
    const createdAt = cell("createdAt");
    let created: string | null = null;
    if (createdAt === null || !isStrictIsoDateTime(createdAt)) problems.push("createdAt must be an ISO 8601 date");
    else if (Date.parse(createdAt) > nowMs) problems.push("createdAt must not be in the future");
    else created = new Date(createdAt).toISOString();
    const strength = cell("signalStrength");
    const parsed = CreateSignalBody.safeParse({
      tokenAddress: cell("tokenAddress") ?? "",
      symbol: cell("symbol"),
      signalType: cell("signalType") ?? "",
      signalStrength: strength !== null && /^\d{1,3}$/.test(strength) ? Number(strength) : Number.NaN,
      activationReason: cell("activationReason"),
      source: cell("source"),
    });
    if (!parsed.success) problems.push(...parsed.error.issues.map((is) => `${is.path.join(".")}: ${is.message}`));
    if (problems.length > 0 || !parsed.success || created === null) {
      badRows++;
      for (const p of problems) if (details.length < MAX_DETAILS) details.push(`row ${rowNo}: ${p}`);
      return;
    }
    const v = parsed.data;
    out.push({
      createdAt: created,
      tokenAddress: v.tokenAddress,
      symbol: v.symbol ?? null,
      signalType: v.signalType,
      signalStrength: v.signalStrength,
      activationReason: v.activationReason ?? null,
      source: v.source ?? null,
    });
  });
  if (badRows > 0) {
    if (details.length === MAX_DETAILS) details.push(`(only the first ${MAX_DETAILS} problems are listed)`);
    throw new ValidationError(`${badRows} of ${rows.length} rows are invalid; nothing was imported`, details);
  }
  return out;
}

export function importHandler(s: AppDeps) {
  return async (c: Context<AppEnv>) => {
    const rows = parseSignalCsv(await readCsvBody(c), s.clock.now());
    return c.json(s.strategyLab.importer.import(c.get("auth").userId, rows), 201);
  };
}
