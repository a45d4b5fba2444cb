import { requestContext } from "../../../logger.ts";
import type { AppDeps } from "../../app-env.ts";
import { MAX_BODY_BYTES } from "../../body-limits.ts";
import { errorAnswer } from "../../error-answer.ts";
import { presentedApiKey } from "../../middleware/auth.ts";
import { edgeHeaders, requestIdFor } from "../../middleware/edge.ts";
import { CreateSignalBody, IdempotencyHeader } from "./schema.ts";

// POST /api/v1/trading-signals served in front of Hono's chain (docs/decisions.md "Performance
// (issue 16)", fourth round): the signal bots' hot path, where the chain's routing, Context,
// middleware hops and validator wrappers cost as much as the durable insert. This path makes the
// chain's checks in the chain's order with the same functions and schemas, and answers only what
// it is sure of; for anything else it hands the request (its body re-attached) to the chain,
// which answers as it always has:
//   - an Origin header (CORS), a missing or oversized Content-Length, a Content-Type other than
//     JSON, a query string: the chain;
//   - the API key (the same cached verification, scope "signals"): refused → the chain;
//   - the body: unparsable JSON, or the route's zod schemas refuse it → the chain (validation
//     has no side effect, so the chain's own check gives the same 400);
//   - the per-key limit, last: a refused hit records nothing, so a 429 is left to the chain too;
//     an allowed hit is recorded once, here, and the request is answered here from then on;
//   - the intake (group commit, the key's use counted in it); what it throws is answered through
//     the app's one error mapping (../../error-answer.ts), and the key's use is then counted as
//     the chain's middleware counts it for any status but 201.
// Request id, log context, security headers, RateLimit-* headers and the request metrics are the
// chain's (middleware/edge.ts, ../../rate-limit.ts).

export const SIGNALS_PATH = "/api/v1/trading-signals";
const ROUTE_LABEL = SIGNALS_PATH;

type Chain = (req: Request) => Response | Promise<Response>;

/** Per-key limiter key of POST /trading-signals (shared with the chain's route). */
export const signalLimitKey = (apiKeyId: string) => `signals:${apiKeyId}`;

/** The answer to a signal POST, or undefined when `req` is not one this path takes. */
export function createDirectSignalPost(s: AppDeps): (req: Request, chain: Chain) => Promise<Response> | undefined {
  const development = s.config.NODE_ENV === "development";
  const limiter = s.limiters.signals;
  const fail = (err: unknown) =>
    errorAnswer(err, { development, logger: s.logger, method: "POST", path: SIGNALS_PATH });

  return (req, chain) => {
    if (req.method !== "POST" || pathOf(req.url) !== SIGNALS_PATH) return undefined;
    const headers = req.headers;
    if (headers.has("origin")) return undefined;
    const length = Number(headers.get("content-length"));
    if (!(length > 0 && length <= MAX_BODY_BYTES)) return undefined;
    if (!/^application\/json(;|$)/i.test(headers.get("content-type") ?? "")) return undefined;
    const raw = presentedApiKey(headers.get("x-api-key"), headers.get("authorization"));
    let key: { apiKeyId: string; userId: string };
    try {
      key = s.apiKeys.verify(raw, "signals", { countUse: false });
    } catch {
      return undefined;
    }
    const started = performance.now();
    const id = requestIdFor(headers.get("x-request-id"));
    return requestContext.run({ requestId: id }, async () => {
      // A body that cannot be read (the client went away) is the chain's to answer, as empty.
      const text = await req.text().catch(() => "");
      const again = () => chain(new Request(req.url, { method: "POST", headers, body: text }));
      const idem = IdempotencyHeader.safeParse({ "idempotency-key": headers.get("idempotency-key") ?? undefined });
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        return again();
      }
      const body = CreateSignalBody.safeParse(json);
      if (!idem.success || !body.success) return again();
      const limit = limiter.hit(signalLimitKey(key.apiKeyId));
      if (!limit.allowed) return again();
      const rateHeaders = {
        "RateLimit-Limit": String(limit.limit),
        "RateLimit-Remaining": String(limit.remaining),
        "RateLimit-Reset": String(limit.resetSeconds),
      };
      let answer: { status: number; body: unknown; headers: Record<string, string> };
      try {
        const { signal } = await s.signalIntake.submit(
          key.userId,
          key.apiKeyId,
          body.data,
          idem.data["idempotency-key"],
        );
        answer = { status: 201, body: signal, headers: {} };
      } catch (err) {
        answer = fail(err);
        // The chain's middleware counts the key's use for any status but 201, in a `finally`
        // whose own failure becomes the answer.
        try {
          s.apiKeys.recordUse(key.apiKeyId);
        } catch (e) {
          answer = fail(e);
        }
      }
      const { status } = answer;
      const res = new Response(JSON.stringify(answer.body), {
        status,
        headers: { ...rateHeaders, ...answer.headers, ...edgeHeaders(id, "application/json") },
      });
      s.metrics.http.record("POST", status, ROUTE_LABEL, (performance.now() - started) / 1000);
      return res;
    });
  };
}

/** The path of an absolute URL without parsing it, "" when it has a query string. */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "";
  const path = url.slice(start);
  return path.includes("?") ? "" : path;
}
