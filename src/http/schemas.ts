import { z } from "@hono/zod-openapi";

// Schemas shared by many routes: the error body, UUID path params with the spec's texts,
// pagination. Resource schemas live beside their routes.

/** The `content` block of an OpenAPI request body or response carrying JSON of `schema`. */
export const jsonContent = <T>(schema: T) => ({ content: { "application/json": { schema } } });

export const ErrorBodySchema = z
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

/** `limit`/`offset` with a route's own default and maximum (SPEC "Pagination convention"). */
export function pagination(defaultLimit: number, maxLimit: number) {
  return {
    limit: z.coerce
      .number({ error: "limit must be a whole number" })
      .int({ error: "limit must be a whole number" })
      .min(1, { error: "limit must be at least 1" })
      .max(maxLimit, { error: `limit must be at most ${maxLimit}` })
      .default(defaultLimit)
      .openapi({ param: { name: "limit", in: "query" }, example: defaultLimit }),
    offset: z.coerce
      .number({ error: "offset must be a whole number" })
      .int({ error: "offset must be a whole number" })
      .min(0, { error: "offset must be at least 0" })
      .default(0)
      .openapi({ param: { name: "offset", in: "query" }, example: 0 }),
  };
}

/** Query booleans arrive as text. */
export const queryBoolean = z
  .enum(["true", "false", "1", "0"], { error: "must be true or false" })
  .transform((v) => v === "true" || v === "1");

export const isoDate = (field: string) =>
  z
    .string()
    .refine((v) => !Number.isNaN(Date.parse(v)), { error: `${field} must be an ISO 8601 date` })
    .transform((v) => new Date(v).toISOString());

export const SuccessSchema = z.object({ success: z.boolean() });
export const SuccessMessageSchema = z.object({ success: z.boolean(), message: z.string() });

type Security = Array<Record<string, string[]>>;
export const bearerSecurity: Security = [{ bearerAuth: [] }];
export const apiKeySecurity: Security = [{ apiKeyHeader: [] }, { apiKeyBearer: [] }];
export const jwtOrKeySecurity: Security = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
