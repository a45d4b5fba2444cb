import { z } from "@hono/zod-openapi";
import { WEBHOOK_EVENT_TYPES } from "../../../notifications/webhooks/event-types.ts";
import { pagination, uuidParam } from "../../schemas.ts";

export const WebhookIdParam = uuidParam("id", "Invalid webhook ID format");

const url = z
  .string({ error: "url is required" })
  .max(2048, { error: "url must be at most 2048 characters" })
  .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), {
    error: "url must be an absolute http(s) URL",
  })
  .openapi({ example: "https://example.com/hooks/trading" });

const events = z
  .array(
    z.enum(WEBHOOK_EVENT_TYPES, {
      error: `events must be among: ${WEBHOOK_EVENT_TYPES.join(", ")}`,
    }),
    { error: "events must be a list of event types" },
  )
  .min(1, { error: "events must name at least one event type" })
  .openapi({ example: ["position.opened", "position.closed", "trade.failed"] });

const description = z.string().max(500, { error: "description must be at most 500 characters" });

export const CreateWebhookBody = z
  .strictObject({ url, events, description: description.optional() })
  .openapi("CreateWebhookRequest", {
    example: {
      url: "https://example.com/hooks/trading",
      events: ["position.opened", "position.closed", "trade.failed"],
      description: "My trading journal",
    },
  });

export const UpdateWebhookBody = z
  .strictObject({
    url: url.optional(),
    events: events.optional(),
    description: description.optional(),
    enabled: z.boolean({ error: "enabled must be true or false" }).optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    error: "At least one field must be provided: url, events, description or enabled",
  })
  .openapi("UpdateWebhookRequest", { example: { enabled: true } });

export const WebhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string(),
    enabled: z.boolean(),
    status: z.enum(["active", "failing", "disabled"]),
    failingSince: z.string().nullable(),
    disabledAt: z.string().nullable(),
    disabledReason: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Webhook");

export const CreatedWebhookSchema = WebhookSchema.extend({
  secret: z.string().openapi({ description: "whsec_… signing secret; shown only in this response" }),
}).openapi("CreatedWebhook");

export const SecretSchema = z.object({ secret: z.string() }).openapi("WebhookSecret");

export const TestResultSchema = z
  .object({
    success: z.boolean(),
    deliveryId: z.string(),
    statusCode: z.number().int().nullable(),
    error: z.string().nullable(),
    durationMs: z.number().int(),
  })
  .openapi("WebhookTestResult");

export const DeliverySchema = z
  .object({
    deliveryId: z.string().openapi({ description: "The webhook-id header; the same on every retry" }),
    event: z.string(),
    time: z.string(),
    attempt: z.number().int(),
    statusCode: z.number().int().nullable(),
    error: z.string().nullable(),
    durationMs: z.number().int(),
    deliveryStatus: z.enum(["pending", "delivered", "failed"]),
  })
  .openapi("WebhookDeliveryAttempt");

export const DeliveriesQuery = z.object(pagination(50, 500));
