import { z } from "@hono/zod-openapi";
import { isoDateTime, numberInQuery } from "./schemas.ts";

// Field schemas shared by the per-agent ledger routes (agent balances, transactions, historical
// swaps): money and amounts are decimal strings at the API edge (SPEC "Resources"), never JSON
// numbers, so nothing is lost to floating point before it reaches big.js.

const DECIMAL = /^\d+(\.\d+)?$/;
const SIGNED_DECIMAL = /^-?\d+(\.\d+)?$/;
const MAX_DECIMAL_LENGTH = 80;

/** A required non-negative decimal string, e.g. "12.5". */
export const decimalString = (field: string, example = "1.5") =>
  z
    .string({ error: `${field} is required and must be a decimal string` })
    .max(MAX_DECIMAL_LENGTH, { error: `${field} must be at most ${MAX_DECIMAL_LENGTH} characters` })
    .regex(DECIMAL, { error: `${field} must be a non-negative decimal string such as "12.5"` })
    .openapi({ example });

/** A required decimal string that may be negative (P/L, change percent). */
export const signedDecimalString = (field: string, example = "-3.25") =>
  z
    .string({ error: `${field} is required and must be a decimal string` })
    .max(MAX_DECIMAL_LENGTH, { error: `${field} must be at most ${MAX_DECIMAL_LENGTH} characters` })
    .regex(SIGNED_DECIMAL, { error: `${field} must be a decimal string such as "-3.25"` })
    .openapi({ example });

/** A required non-empty string of at most `max` characters. */
export const requiredText = (field: string, max = 255) =>
  z
    .string({ error: `${field} is required` })
    .trim()
    .min(1, { error: `${field} is required` })
    .max(max, { error: `${field} must be at most ${max} characters` });

/** An ISO 8601 timestamp in a body; stored normalized (toISOString) so it sorts as text. */
export const timestamp = (field: string) => isoDateTime(field).openapi({ example: "2026-01-15T12:00:00.000Z" });

export const agentIdBody = z.string({ error: "Agent ID is required" }).uuid({ error: "Invalid agent ID format" });

/** agentId as a required query parameter (SPEC: lists of the ledgers need it). */
export const agentIdQuery = z
  .string({ error: "Agent ID is required" })
  .uuid({ error: "Invalid agent ID format" })
  .openapi({
    param: { name: "agentId", in: "query", required: true },
    example: "0b5e2a4c-7a1d-4d8e-9a51-2f6a3c1d9e10",
  });

export const optionalQueryText = (name: string) =>
  z
    .string()
    .max(255, { error: `${name} must be at most 255 characters` })
    .optional()
    .openapi({ param: { name, in: "query" } });

export const queryDate = (name: string) =>
  isoDateTime(name)
    .optional()
    .openapi({ param: { name, in: "query" }, example: "2026-01-01T00:00:00.000Z" });

export const queryFlag = (name: string) =>
  z
    .enum(["true", "false", "1", "0"], { error: `${name} must be true or false` })
    .transform((v) => v === "true" || v === "1")
    .optional()
    .openapi({ param: { name, in: "query" }, example: "true" });

export const queryInteger = (name: string) =>
  numberInQuery(z.number({ error: `${name} must be a whole number` }).int({ error: `${name} must be a whole number` }))
    .optional()
    .openapi({ param: { name, in: "query" }, example: 1 });

export const queryNumber = (name: string) =>
  numberInQuery(z.number({ error: `${name} must be a number` }))
    .optional()
    .openapi({ param: { name, in: "query" }, example: 0 });

export const objectBody = (iss: { code: string }) =>
  iss.code === "invalid_type" ? "Request body must be a JSON object" : undefined;

/** The fields every ledger record starts with in a response. */
export const ledgerRecordFields = {
  id: z.string().uuid(),
  agentId: z.string().uuid(),
  walletAddress: z.string(),
};
