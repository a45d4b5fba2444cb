import { z } from "@hono/zod-openapi";

// Schemas shared by many routes: the error body, UUID path params with the spec's texts,
// pagination. Resource schemas live beside their routes.

/** The `content` block of an OpenAPI request body or response carrying JSON of `schema`. */
export const jsonContent = <T>(schema: T) => ({ content: { "application/json": { schema } } });

const ErrorBodySchema = z
  .object({
    success: z.literal(false),
    error: z.string(),
    code: z.string().optional(),
    details: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
  })
  .openapi("Error");

/** Response entries for the error statuses a route can give, for the OpenAPI document. */
export function errorResponses(...statuses: number[]) {
  const text: Record<number, string> = {
    400: "Invalid input",
    401: "Missing or invalid credential",
    403: "Insufficient permission",
    404: "Not found",
    409: "Conflict",
    413: "Request body too large",
    423: "Account locked",
    429: "Rate limited",
    502: "External service failure",
    503: "Unavailable",
  };
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      { description: text[s] ?? "Error", content: { "application/json": { schema: ErrorBodySchema } } },
    ]),
  );
}

export const uuidParam = <K extends string>(name: K, message: string) =>
  z.object({
    [name]: z
      .string()
      .uuid({ error: message })
      .openapi({ param: { name, in: "path" }, example: "0b5e2a4c-7a1d-4d8e-9a51-2f6a3c1d9e10" }),
  } as { [P in K]: z.ZodString });

const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

/**
 * A number read from a query string: plain decimal text ("12", "-3.5") only. `z.coerce.number`
 * reads "" and " " as 0 and "0x10" as 16, so `?offset=` passed as if absent; here any other text
 * is NaN, which `schema` refuses with its own message naming the parameter (issue 35). An absent
 * parameter stays undefined, for the `.optional()` or `.default()` around it.
 */
export const numberInQuery = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === "string" ? (DECIMAL_TEXT.test(v) ? Number(v) : Number.NaN) : v), schema);

/** A whole number in a query string (numberInQuery), `limit`-style: at least `min`, at most `max`. */
export const wholeNumberInQuery = (name: string, min: number, max?: number) => {
  const whole = `${name} must be a whole number`;
  const base = z
    .number({ error: whole })
    .int({ error: whole })
    .min(min, { error: `${name} must be at least ${min}` });
  return numberInQuery(max === undefined ? base : base.max(max, { error: `${name} must be at most ${max}` }));
};

/** `limit`/`offset` with a route's own default and maximum (SPEC "Pagination convention"). */
export function pagination(defaultLimit: number, maxLimit: number) {
  return {
    limit: wholeNumberInQuery("limit", 1, maxLimit)
      .default(defaultLimit)
      .openapi({ param: { name: "limit", in: "query" }, example: defaultLimit }),
    offset: wholeNumberInQuery("offset", 0)
      .default(0)
      .openapi({ param: { name: "offset", in: "query" }, example: 0 }),
  };
}

// ISO 8601 as the API accepts it (docs/decisions.md "Data layer"): a calendar date
// (2026-01-31, read as midnight UTC) or a date-time with a T, minutes, optional seconds and
// fraction, and a zone (Z or ±HH:MM) so no value depends on the server's time zone.
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2})))?$/;

/**
 * True when `v` matches ISO_DATE_TIME and names a real instant: `new Date()` alone would take
 * "-1", " 5" or header-injection text, and roll 2026-02-30 over to March 2.
 */
export function isStrictIsoDateTime(v: string): boolean {
  const m = ISO_DATE_TIME.exec(v);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return false;
  const upTo = (text: string | undefined, max: number) => text === undefined || Number(text) <= max;
  return upTo(m[4], 23) && upTo(m[5], 59) && upTo(m[6], 59) && upTo(m[7], 23) && upTo(m[8], 59);
}

/** Every date in a query or body: strict ISO 8601, normalized to toISOString so it sorts as text. */
export const isoDateTime = (field: string) =>
  z
    .string({ error: `${field} must be an ISO 8601 date` })
    .refine(isStrictIsoDateTime, { error: `${field} must be an ISO 8601 date` })
    .openapi({ format: "date-time" })
    .transform((v) => new Date(v).toISOString());

export const SuccessSchema = z.object({ success: z.boolean() });
export const SuccessMessageSchema = z.object({ success: z.boolean(), message: z.string() });

type Security = Array<Record<string, string[]>>;
export const bearerSecurity: Security = [{ bearerAuth: [] }];
export const apiKeySecurity: Security = [{ apiKeyHeader: [] }, { apiKeyBearer: [] }];
export const jwtOrKeySecurity: Security = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
/**
 * A JWT or a full_access API key (requireUser, and the writes of readWithScopeWriteWithUser):
 * what a JWT grants everywhere except /auth/* and /api-keys/*, which stay bearerSecurity
 * (PRODUCT.md §2; src/http/middleware/auth.ts).
 */
export const userSecurity: Security = [{ bearerAuth: [] }, { apiKeyHeader: [] }];

/**
 * The optional Idempotency-Key header: POST /trading-signals and the manual trades (POST
 * /agents/:id/buy, POST /agent-positions/:agentId/:positionId/sell). A repeat with the same key
 * and body within 24 h answers the first request's result; another body is 409.
 */
export const IdempotencyHeader = z.object({
  "idempotency-key": z.string().min(1).max(255, { error: "Idempotency-Key must be at most 255 characters" }).optional(),
});
