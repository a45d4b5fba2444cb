import type { RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { z } from "zod";
import { ValidationError } from "../errors.ts";
import type { AppEnv } from "./app-env.ts";

// The checks of a route's query, path parameters and headers, derived from its declaration
// (src/http/operation.ts) in place of @hono/zod-openapi's own validators, which collect every
// header of the request into an object for a schema that names one, and parse asynchronously
// even when no part of the schema is (docs/decisions/under-load.md). Same order (query, param,
// header), same values, same 400 through the one error mapping. The body stays with the library's
// validators (media type gate, malformed JSON, required bodies).

type Part = "query" | "param" | "header";
type Schema = z.ZodType;

/** Turns zod issues into the spec's 400: the first message as `error`, every issue in `details`. */
export function validationErrorFrom(error: z.ZodError): ValidationError {
  const details = error.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message));
  return new ValidationError(error.issues[0]?.message ?? "Invalid request", details);
}

/** The route's request without the parts validated here, and the one middleware that validates them. */
export function splitRequestValidation(request: RouteConfig["request"]): {
  rest: RouteConfig["request"];
  validator: MiddlewareHandler<AppEnv> | null;
} {
  if (!request) return { rest: request, validator: null };
  const { query, params, headers, ...rest } = request;
  const parts: Array<[Part, Schema]> = [];
  if (query) parts.push(["query", query as Schema]);
  if (params) parts.push(["param", params as Schema]);
  if (headers) parts.push(["header", headerSchema(headers)]);
  if (parts.length === 0) return { rest: request, validator: null };
  const readers = parts.map(([part, schema]) => ({ part, schema, read: readerOf(part, schema) }));
  const validator: MiddlewareHandler<AppEnv> = async (c, next) => {
    for (const r of readers)
      c.req.addValidatedData(r.part, (await parse(r.schema, r.read(c))) as Record<string, unknown>);
    await next();
  };
  return { rest, validator };
}

/** A header declaration is a zod object (@hono/zod-openapi also takes an array of parameter objects: not used here). */
function headerSchema(headers: unknown): Schema {
  if (!(headers instanceof z.ZodObject)) throw new Error("request.headers must be a zod object");
  // A strict object would refuse every request (they all carry headers it does not name), and a
  // loose one would pass them all on: neither is declared, and reading only the named ones below
  // would change their answers.
  if (headers.def.catchall !== undefined)
    throw new Error("request.headers must be a plain zod object (not strict or loose)");
  return headers;
}

function readerOf(part: Part, schema: Schema): (c: Parameters<MiddlewareHandler<AppEnv>>[0]) => unknown {
  switch (part) {
    case "query":
      // As Hono's validator: a parameter given once is a string, given several times an array.
      return (c) => {
        const out: Record<string, string | string[]> = {};
        for (const [k, v] of Object.entries(c.req.queries())) out[k] = v.length === 1 ? (v[0] as string) : v;
        return out;
      };
    case "param":
      return (c) => c.req.param();
    case "header": {
      // Only the declared names, under their declared spelling (headers are case-insensitive).
      const names = Object.keys((schema as z.ZodObject).shape);
      return (c) => {
        const out: Record<string, string> = {};
        for (const name of names) {
          const v = c.req.raw.headers.get(name);
          if (v !== null) out[name] = v;
        }
        return out;
      };
    }
  }
}

/** Synchronous parse; a schema with an asynchronous part is parsed asynchronously instead. */
async function parse(schema: Schema, value: unknown): Promise<unknown> {
  let result: z.ZodSafeParseResult<unknown>;
  try {
    result = schema.safeParse(value);
  } catch (err) {
    if (!(err instanceof z.core.$ZodAsyncError)) throw err;
    result = await schema.safeParseAsync(value);
  }
  if (!result.success) throw validationErrorFrom(result.error);
  return result.data;
}
