import type { MiddlewareHandler } from "hono";
import { requestContext } from "../../logger.ts";
import type { AppEnv } from "../app-env.ts";

const SAFE_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Accepts a sane incoming X-Request-Id (from a proxy) or makes one; echoes it and logs with it. */
export const requestId: MiddlewareHandler<AppEnv> = async (c, next) => {
  const incoming = c.req.header("x-request-id");
  const id = incoming && SAFE_ID.test(incoming) ? incoming : crypto.randomUUID();
  c.set("requestId", id);
  c.header("X-Request-Id", id);
  await requestContext.run({ requestId: id }, next);
  c.header("X-Request-Id", id);
};
