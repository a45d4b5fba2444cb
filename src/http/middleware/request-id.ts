import type { MiddlewareHandler } from "hono";
import { requestContext } from "../../logger.ts";
import type { AppEnv } from "../app-env.ts";
import { setResponseHeaders } from "./response-headers.ts";

const SAFE_ID = /^[A-Za-z0-9._-]{1,128}$/;

// Not hono/request-id: its check of an incoming id is fixed to [\w=-] (it would replace ids with a
// dot, such as "req-abc.123_X" from a proxy, and echo ids with "="), and the log context would
// still need a middleware of ours around it. One small middleware does both.

/** Accepts a sane incoming X-Request-Id (from a proxy) or makes one; echoes it and logs with it. */
export const requestId: MiddlewareHandler<AppEnv> = async (c, next) => {
  const incoming = c.req.header("x-request-id");
  const id = incoming && SAFE_ID.test(incoming) ? incoming : crypto.randomUUID();
  c.set("requestId", id);
  c.header("X-Request-Id", id);
  await requestContext.run({ requestId: id }, next);
  setResponseHeaders(c, [["X-Request-Id", id]]);
};
