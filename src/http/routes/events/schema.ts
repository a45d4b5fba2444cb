import { z } from "@hono/zod-openapi";

// GET /api/v1/events (PRODUCT.md §6). Decisions: docs/decisions.md "Public API and live events".

const INVALID_LAST_EVENT_ID = "Invalid Last-Event-ID";

const eventId = z
  .string()
  .regex(/^\d{1,15}$/, { error: INVALID_LAST_EVENT_ID })
  .transform(Number);

export const EventStreamQuery = z.object({
  access_token: z
    .string()
    .optional()
    .openapi({
      param: { name: "access_token", in: "query" },
      description:
        "Access token, for clients that cannot send an Authorization header (EventSource); the header wins when both are sent",
    }),
  lastEventId: eventId.optional().openapi({
    param: { name: "lastEventId", in: "query" },
    description: "Resume after this event id (same as the Last-Event-ID header, which wins)",
    example: "42",
  }),
});

export const EventStreamHeaders = z.object({
  "last-event-id": eventId.optional().openapi({
    param: { name: "last-event-id", in: "header" },
    description: "Sent by EventSource on reconnect: events after it are replayed from the recent buffer",
    example: "42",
  }),
});

export const EVENT_STREAM_DESCRIPTION = [
  "Server-Sent Events, one frame per event: `id: <n>`, `event: <type>`, `data: {id, type, time, data}`.",
  "Types: signal.created, trade.executed, trade.failed, position.opened, position.updated, position.closed, price.sol, risk.tripped, trading.paused, trading.resumed, wallet_watch.unreadable, auth.new_login, auth.locked, auth.2fa_disabled.",
  "Only the caller's own events (price.sol goes to everyone). Idle streams get `: keep-alive` comments.",
  "The stream ends when the access token expires; reconnect with a fresh token and Last-Event-ID.",
].join(" ");
