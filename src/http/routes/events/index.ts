import { z } from "@hono/zod-openapi";
import { EventStreamHub } from "../../../events/event-stream.ts";
import type { AppDeps } from "../../app-env.ts";
import { createRouter, operation } from "../../operation.ts";
import { errorResponses } from "../../schemas.ts";
import { EVENT_STREAM_DESCRIPTION, EventStreamHeaders, EventStreamQuery } from "./schema.ts";

// GET /api/v1/events: the user's live events as Server-Sent Events (PRODUCT.md §6). JWT in the
// Authorization header, or in `?access_token=` because EventSource cannot send headers.

const stream = operation({
  method: "get",
  path: "/",
  tags: ["events"],
  summary: "Live events of the caller (Server-Sent Events)",
  description: EVENT_STREAM_DESCRIPTION,
  auth: { kind: "user", queryToken: "access_token" },
  request: { query: EventStreamQuery, headers: EventStreamHeaders },
  responses: {
    200: {
      description: "text/event-stream that stays open",
      content: {
        "text/event-stream": {
          schema: z.string().openapi({
            example:
              'id: 7\nevent: position.opened\ndata: {"id":7,"type":"position.opened","time":"2026-01-01T00:00:00.000Z","data":{}}\n\n',
          }),
        },
      },
    },
    ...errorResponses(400, 401),
  },
});

export function eventRoutes(s: AppDeps) {
  const hub = new EventStreamHub(s.events, { heartbeatMs: s.config.EVENTS_HEARTBEAT_SECONDS * 1000 });
  // Open streams never end by themselves: shutdown ends them so the listener can close.
  s.onShutdown(() => hub.closeAll(), "event streams");
  const router = createRouter(s);
  return router.openapi(stream, (c) => {
    // The stream is idle by design between events: exempt it from the listener's idle timeout
    // (Bun.serve's server.timeout); heartbeats still reveal a dead peer.
    (c.env as { server?: { timeout?(req: Request, seconds: number): void } } | undefined)?.server?.timeout?.(
      c.req.raw,
      0,
    );
    const auth = c.get("auth");
    const lastEventId = c.req.valid("header")["last-event-id"] ?? c.req.valid("query").lastEventId ?? null;
    const body = hub.open({
      userId: auth.userId,
      lastEventId,
      signal: c.req.raw.signal,
      closeAfterMs: auth.exp !== undefined ? auth.exp * 1000 - s.clock.now() : undefined,
    });
    return c.body(body, 200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache",
      // nginx buffers proxied responses unless told not to (README "Run on a VPS").
      "X-Accel-Buffering": "no",
    });
  });
}
