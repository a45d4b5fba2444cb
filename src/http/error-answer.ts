import { RateLimitError, ServiceBusyError, toErrorBody } from "../errors.ts";
import type { Logger } from "../logger.ts";

/**
 * What the app answers for anything thrown while handling a request: the spec's error body
 * (toErrorBody), Retry-After on a 429 and a busy 503, and an "unhandled error" line for a 500-class failure that
 * is not an upstream's (502) or an unavailable service (503). Shared by the app's error handler
 * and the routes served in front of the chain (src/http/direct-routes.ts).
 */
export function errorAnswer(
  err: unknown,
  o: { development: boolean; logger: Logger; method: string; path: string },
): { status: number; body: ReturnType<typeof toErrorBody>["body"]; headers: Record<string, string> } {
  const { status, body } = toErrorBody(err, { development: o.development });
  const headers: Record<string, string> = {};
  if (err instanceof RateLimitError || err instanceof ServiceBusyError)
    headers["Retry-After"] = String(err.retryAfterSeconds);
  if (status >= 500 && status !== 502 && status !== 503) {
    o.logger.error("unhandled error", {
      method: o.method,
      path: o.path,
      error: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : String(err),
    });
  }
  return { status, body, headers };
}
