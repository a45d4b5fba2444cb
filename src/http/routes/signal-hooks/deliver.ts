import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { AppError, AuthorizationError, NotFoundError, RateLimitError } from "../../../errors.ts";
import { allowListRanges } from "../../../ip-ranges.ts";
import type { OwnedHook } from "../../../signals/signal-hooks.ts";
import type { AppDeps, AppEnv } from "../../app-env.ts";
import { clientAddress } from "../../client-address.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses, jsonContent } from "../../schemas.ts";
import { signalsKeepingUp } from "../trading-signals/import.ts";
import { SignalSchema } from "../trading-signals/schema.ts";
import { checkTimestamp, parseDeliveryBody, TRADINGVIEW_MESSAGE } from "./delivery-body.ts";
import { HookTokenParam } from "./schema.ts";

// POST /api/v1/hooks/{token} (PRODUCT.md §4, docs/decisions/signal-hooks.md): the URL is the
// credential, so the route takes no header. In order: the address's misses (wrong tokens, refused
// addresses) → the token → the hook's allowedIps → the hook's rate limit → the body → a repeat of
// an earlier delivery → the timestamp → the intake. The token is never written anywhere: not in a
// log line (the request log cuts it, src/http/redact-path.ts), an error body or a metric label.

const DeliveryBody = z
  .object({
    tokenAddress: z.string().optional().openapi({ description: "The mint; or leave it out and send symbol" }),
    symbol: z.string().optional().openapi({ description: "Without tokenAddress: one of the hook's tokens (any case)" }),
    signalType: z.string(),
    signalStrength: z
      .union([z.number().int(), z.string()])
      .openapi({ description: '1 to 5; a string such as "4" is read as the number' }),
    activationReason: z.string().optional(),
    timestamp: z
      .union([z.string(), z.number()])
      .optional()
      .openapi({
        description:
          "When the alert fired: ISO 8601 ({{timenow}}), epoch seconds or milliseconds; older than " +
          "SIGNAL_HOOK_MAX_LAG_SECONDS (60) or more than a minute ahead is refused",
      }),
    alertId: z.union([z.string(), z.number()]).optional().openapi({
      description: "Your own id of the alert: the same again within 10 minutes answers with the first signal",
    }),
  })
  .openapi("SignalHookDeliveryBody", { example: TRADINGVIEW_MESSAGE });

const deliver = operation({
  method: "post",
  path: "/{token}",
  tags: ["signal hooks"],
  description:
    "The POST /trading-signals fields as JSON, sent as application/json or text/plain (what TradingView " +
    "sends), with no other credential. The same body again within 10 minutes (or the same alertId) answers " +
    "200 with the first signal and stores nothing. The answer never waits for a trade.",
  auth: auth.none,
  bodyLimit: 16 * 1024,
  guard: signalsKeepingUp,
  // Read as text whatever the Content-Type (parseDeliveryBody): no media-type gate, no JSON validator.
  ownBody: true,
  request: {
    params: HookTokenParam,
    body: {
      content: { "application/json": { schema: DeliveryBody }, "text/plain": { schema: DeliveryBody } },
      required: true,
    },
  },
  responses: {
    201: { description: "Stored; the agents decide on it in the background", ...jsonContent(SignalSchema) },
    200: { description: "A repeat of an earlier delivery: its signal, nothing stored", ...jsonContent(SignalSchema) },
    ...errorResponses(400, 403, 404, 429, 503),
  },
});

/** Counts a wrong token or a refused address against the caller's address (misses per minute). */
const miss = (s: AppDeps, key: string) => s.limiters.hookMisses.hit(key);

async function delivered(s: AppDeps, c: Context<AppEnv>, hook: OwnedHook) {
  const text = await c.req.text();
  const parsed = parseDeliveryBody(text, hook, (symbol) => s.signalHooks.mintOf(hook, symbol));
  // A resend of an alert stored already is answered with its signal even when its timestamp has aged since.
  const earlier = s.signalHooks.earlierSignal(hook, parsed);
  if (earlier !== undefined) return c.json(s.signalHooks.repeat(hook, parsed, earlier), 200);
  checkTimestamp(parsed.timestamp, s.clock.now(), s.config.SIGNAL_HOOK_MAX_LAG_SECONDS);
  const { signal, duplicate } = await s.signalHooks.accept(hook, parsed);
  s.logger.info("signal hook delivery", { hookId: hook.id, signalId: signal.id, duplicate });
  return c.json(signal, duplicate ? 200 : 201);
}

export function hookDeliveryRoutes(s: AppDeps) {
  return createRouter(s).openapi(deliver, async (c) => {
    const address = clientAddress(c, s.trustedProxies);
    const missKey = `hook-miss:${address}`;
    const blocked = s.limiters.hookMisses.blockedFor(missKey);
    if (blocked > 0) {
      s.signalHooks.count(null, 429);
      throw new RateLimitError(blocked);
    }
    const hook = s.signalHooks.byToken(c.req.valid("param").token);
    if (!hook) {
      miss(s, missKey);
      s.signalHooks.count(null, 404);
      throw new NotFoundError("Signal hook not found");
    }
    if (hook.allowedIps.length > 0 && !allowListRanges(hook.allowedIps).has(address)) {
      miss(s, missKey);
      const refusal = new AuthorizationError(`Address ${address} is not in this hook's allowedIps`);
      s.signalHooks.refused(hook, 403, refusal.message);
      throw refusal;
    }
    const rate = s.limiters.hooks.hit(`hook:${hook.id}`);
    if (!rate.allowed) {
      s.signalHooks.count(hook.id, 429);
      throw new RateLimitError(rate.resetSeconds);
    }
    try {
      return await delivered(s, c, hook);
    } catch (err) {
      if (err instanceof AppError && err.status < 500) s.signalHooks.refused(hook, err.status, err.message);
      throw err;
    }
  });
}
