import { OpenAPIHono } from "@hono/zod-openapi";
import type { z } from "zod";
import { ValidationError } from "../errors.ts";
import type { AppEnv } from "./app-env.ts";

/** Turns zod issues into the spec's 400: the first message as `error`, every issue in `details`. */
export function validationErrorFrom(error: z.ZodError): ValidationError {
  const details = error.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message));
  return new ValidationError(error.issues[0]?.message ?? "Invalid request", details);
}

/**
 * Every resource router is built here so that request validation failures all go through the
 * one error mapping (the validator's own 400 body is unusable: STYLE.md trap).
 */
export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationErrorFrom(result.error as z.ZodError);
    },
  });
}
