import { z } from "@hono/zod-openapi";

// SPEC "SOL price".
export const SolPriceSchema = z
  .object({
    price: z.string().openapi({ description: "USD per SOL, 8 decimal places", example: "187.41230000" }),
    lastUpdated: z.string().openapi({ description: "ISO 8601", example: "2026-01-01T00:00:00.000Z" }),
    isStale: z.boolean().openapi({ description: "More than 60 s without an update, or the price connection down" }),
    source: z.string().openapi({ description: "Price source identifier", example: "priceNetwork" }),
    unavailableSince: z.string().nullable().openapi({
      description:
        "While isStale: since when the price has been stale or not to be had (ISO 8601); null while fresh. Also in the 502's details when no price was ever had.",
      example: null,
    }),
  })
  .openapi("SolPrice");
