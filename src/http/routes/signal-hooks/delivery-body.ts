import { z } from "@hono/zod-openapi";
import { sha256Hex } from "../../../auth/hashing.ts";
import { ValidationError } from "../../../errors.ts";
import type { ParsedDelivery } from "../../../signals/signal-hooks.ts";
import { validationErrorFrom } from "../../request-validators.ts";
import { isStrictIsoDateTime } from "../../schemas.ts";
import { CreateSignalBody } from "../trading-signals/schema.ts";

// The body of a hook delivery (docs/decisions/signal-hooks.md): POST /trading-signals' fields as
// JSON, whatever the Content-Type says (TradingView sends text/plain unless the message parses as
// JSON, and its placeholders come out as strings), plus an optional `timestamp` and `alertId`.
// Pure: the hook's symbol map and the clock are handed in.

/** The alert message a TradingView user pastes (README "Receiving TradingView alerts"). */
export const TRADINGVIEW_MESSAGE = {
  symbol: "{{ticker}}",
  signalType: "buy",
  signalStrength: "4",
  timestamp: "{{timenow}}",
  activationReason: "{{strategy.order.comment}}",
};

/** What a body must look like, shown in the 400 for one that is not a JSON object. */
const EXAMPLE = {
  tokenAddress: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263 (or symbol, one of the hook's tokens)",
  signalType: "buy",
  signalStrength: "4",
  timestamp: "{{timenow}} (optional)",
  alertId: "(optional)",
};

const HOOK_ONLY = ["timestamp", "alertId"] as const;
const KNOWN = new Set([...Object.keys(CreateSignalBody.shape), ...HOOK_ONLY]);
const NUMBER_TEXT = /^\s*[-+]?\d+(\.\d+)?\s*$/;

/** The body's own schema: a string strength is read as the number it spells. */
const DeliveryFields = CreateSignalBody.extend({
  signalStrength: z.preprocess(
    (v) => (typeof v === "string" && NUMBER_TEXT.test(v) ? Number(v) : v),
    CreateSignalBody.shape.signalStrength,
  ),
  alertId: z
    .union([z.string(), z.number()], { error: "alertId must be text" })
    .transform(String)
    .pipe(z.string().max(100, { error: "alertId must be at most 100 characters" }))
    .optional(),
  timestamp: z.unknown().optional(),
});

/**
 * Reads a delivery's body into a signal, or throws the 400 to answer. A symbol without a
 * tokenAddress takes its mint from `mintOf` (the hook's tokens) and nowhere else.
 */
export function parseDeliveryBody(
  text: string,
  hook: { source: string },
  mintOf: (symbol: string) => string | undefined,
): ParsedDelivery & { timestamp: unknown } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new ValidationError("Body must be a JSON object of the signal's fields, as in details.example", {
      example: EXAMPLE,
    });
  const fields = { ...(body as Record<string, unknown>) };
  if ("source" in fields)
    throw new ValidationError(`source is set by the hook (${hook.source}): remove it from the message`);
  const unknown = Object.keys(fields).filter((k) => !KNOWN.has(k));
  if (unknown.length > 0)
    throw new ValidationError(`Unknown field${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}`);
  if ((fields.tokenAddress === undefined || fields.tokenAddress === "") && typeof fields.symbol === "string") {
    const mint = mintOf(fields.symbol);
    if (!mint)
      throw new ValidationError(
        `Symbol ${fields.symbol} is not in this hook's tokens: add it to the hook or send tokenAddress`,
      );
    fields.tokenAddress = mint;
  }
  const parsed = DeliveryFields.safeParse(fields);
  if (!parsed.success) throw validationErrorFrom(parsed.error);
  const { alertId, timestamp, ...input } = parsed.data;
  return { input, timestamp, alertId: alertId ?? null, bodyHash: sha256Hex(text.trim()) };
}

/** Epoch seconds below this, milliseconds above (seconds reach it in the year 5138). */
const SECONDS_BELOW = 100_000_000_000;

/** When the alert fired (ISO 8601, epoch seconds or milliseconds, as TradingView's {{timenow}}), in ms. */
function timestampMs(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return value < SECONDS_BELOW ? value * 1000 : value;
  if (typeof value !== "string") return null;
  if (NUMBER_TEXT.test(value)) return timestampMs(Number(value));
  return isStrictIsoDateTime(value) ? Date.parse(value) : null;
}

/**
 * Throws the 400 for a `timestamp` that cannot be read, is older than `maxLagSeconds` (a late
 * delivery of an old alert must not trade at today's price) or more than a minute in the future.
 */
export function checkTimestamp(value: unknown, now: number, maxLagSeconds: number): void {
  if (value === undefined) return;
  const at = timestampMs(value);
  if (at === null)
    throw new ValidationError("timestamp must be ISO 8601 (as {{timenow}} gives) or epoch seconds or milliseconds");
  const age = Math.round((now - at) / 1000);
  if (age > maxLagSeconds)
    throw new ValidationError(
      `timestamp is ${age} seconds old, more than SIGNAL_HOOK_MAX_LAG_SECONDS (${maxLagSeconds}): the alert is stale`,
    );
  if (age < -60) throw new ValidationError(`timestamp is ${-age} seconds in the future (at most 60 allowed)`);
}
