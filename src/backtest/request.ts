// z from @hono/zod-openapi: zod v4 gives a schema `.openapi()` only if the extension ran before the
// schema was built, and the backtests route calls it on these (the CLI imports this module first).
import { z } from "@hono/zod-openapi";
import { applyConfigUpdate, INVALID_CONFIG_MESSAGE, type TradingConfig } from "../agents/trading-config.ts";
import { ValidationError } from "../errors.ts";

// POST /api/v1/backtests: the body's shape, and each variant's configuration
// validated exactly as PUT /agents/:id/config validates a partial configuration
// (src/agents/trading-config.ts applyConfigUpdate), merged over the defaults.

const MAX_VARIANTS = 50;
const MAX_SIGNAL_IDS = 100_000;

const isoDate = (field: string) =>
  z
    .string()
    .refine((v) => !Number.isNaN(Date.parse(v)), { error: `${field} must be an ISO 8601 date` })
    .transform((v) => new Date(v).toISOString());

const SignalSelectionSchema = z.union([
  z.strictObject({
    signalIds: z
      .array(z.number().int().positive(), { error: "signals.signalIds must be an array of signal ids" })
      .min(1, { error: "signals.signalIds must not be empty" })
      .max(MAX_SIGNAL_IDS, { error: `signals.signalIds holds at most ${MAX_SIGNAL_IDS} ids` }),
  }),
  z.strictObject({
    source: z.string().max(100, { error: "signals.source must be at most 100 characters" }).optional(),
    signalType: z.string().max(50, { error: "signals.signalType must be at most 50 characters" }).optional(),
    minStrength: z.number().int().min(1).max(5).optional(),
    startDate: isoDate("signals.startDate").optional(),
    endDate: isoDate("signals.endDate").optional(),
  }),
]);

export const BacktestRequestSchema = z.strictObject({
  name: z
    .string({ error: "Name is required" })
    .trim()
    .min(1, { error: "Name is required" })
    .max(255, { error: "Name must be at most 255 characters" }),
  initialSol: z
    .number({ error: "initialSol must be a number" })
    .positive({ error: "initialSol must be positive" })
    .max(1_000_000_000, { error: "initialSol must be at most 1000000000" }),
  signals: SignalSelectionSchema,
  variants: z
    .array(
      z.strictObject({
        name: z.string().trim().min(1).max(100, { error: "A variant's name must be at most 100 characters" }),
        // Validated by applyConfigUpdate (its own 400), documented as the PUT config body's patch.
        config: z
          .unknown()
          .optional()
          .openapi({ allOf: [{ $ref: "#/components/schemas/TradingConfigPatch" }] } as never),
      }),
      {
        error: "variants must be an array",
      },
    )
    .min(1, { error: "At least one variant is required" })
    .max(MAX_VARIANTS, { error: `At most ${MAX_VARIANTS} variants` }),
});

export type BacktestRequest = z.output<typeof BacktestRequestSchema>;
export type SignalSelection = z.output<typeof SignalSelectionSchema>;

export interface ResolvedVariant {
  name: string;
  config: TradingConfig;
}

/**
 * Each variant's complete configuration, or a 400 with the agent configuration's message and
 * details (prefixed with the variant). Market-cap and liquidity filters cannot be replayed: no
 * market data of the past exists, so they are refused rather than silently ignored.
 */
export function resolveVariants(variants: BacktestRequest["variants"]): ResolvedVariant[] {
  const details: string[] = [];
  const out: ResolvedVariant[] = [];
  variants.forEach((v, i) => {
    const r = applyConfigUpdate({}, v.config ?? {});
    if (!r.ok) {
      details.push(...r.details.map((d) => `variants.${i}.config: ${d}`));
      return;
    }
    for (const f of ["minMarketCap", "maxMarketCap", "minLiquidity"] as const) {
      if (r.config.filters[f] !== null)
        details.push(`variants.${i}.config: filters.${f}: market filters cannot be backtested (no past market data)`);
    }
    out.push({ name: v.name, config: r.config });
  });
  const names = new Set(variants.map((v) => v.name));
  if (names.size !== variants.length) details.push("variants: names must be unique");
  if (details.length > 0) throw new ValidationError(INVALID_CONFIG_MESSAGE, details);
  return out;
}
