import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";
import { dashboardRoutes } from "./dashboard/serve.ts";
import {
  AppError,
  AuthenticationError,
  NotFoundError,
  PayloadTooLargeError,
  toErrorBody,
  ValidationError,
} from "./errors.ts";
import type { AppDeps, AppEnv } from "./http/app-env.ts";
import { MAX_BODY_BYTES, MAX_IMPORT_BODY_BYTES } from "./http/body-limits.ts";
import { errorAnswer } from "./http/error-answer.ts";
import { createHotRead } from "./http/hot-read.ts";
import { edge } from "./http/middleware/edge.ts";
import { agentBalanceRoutes } from "./http/routes/agent-balances/index.ts";
import { agentHistoricalSwapRoutes } from "./http/routes/agent-historical-swaps/index.ts";
import { agentPositionRoutes } from "./http/routes/agent-positions/index.ts";
import { agentTransactionRoutes } from "./http/routes/agent-transactions/index.ts";
import { agentRoutes } from "./http/routes/agents/index.ts";
import { apiKeyRoutes } from "./http/routes/api-keys/index.ts";
import { authRoutes } from "./http/routes/auth/index.ts";
import { backtestRoutes } from "./http/routes/backtests/index.ts";
import { dataSourceRoutes } from "./http/routes/data-sources/index.ts";
import { mountApiDocs } from "./http/routes/docs/index.ts";
import { eventRoutes } from "./http/routes/events/index.ts";
import { healthRoutes } from "./http/routes/health/index.ts";
import { metricsRoutes } from "./http/routes/metrics/index.ts";
import { notificationRoutes } from "./http/routes/notifications/index.ts";
import { priceFeedRoutes } from "./http/routes/price-feeds/index.ts";
import { publicRoutes } from "./http/routes/public/index.ts";
import { signalSourceRoutes } from "./http/routes/signal-sources/index.ts";
import { tokenRoutes } from "./http/routes/tokens/index.ts";
import { createDirectSignalPost, SIGNALS_PATH } from "./http/routes/trading-signals/direct-post.ts";
import { tradingSignalRoutes } from "./http/routes/trading-signals/index.ts";
import { walletRoutes } from "./http/routes/wallets/index.ts";
import { webhookRoutes } from "./http/routes/webhooks/index.ts";

export { MAX_BODY_BYTES, MAX_IMPORT_BODY_BYTES };

const IMPORT_PATH = `${SIGNALS_PATH}/import`;

/**
 * Builds the HTTP app from its dependencies (createAppDeps(services), src/http/deps.ts). No side
 * effects: no listener, no timers.
 */
export function createApp(s: AppDeps): OpenAPIHono<AppEnv> {
  const app = createBaseApp(s);
  mountRoutes(app, s);
  // Kept GET answers are served in front of the chain (src/http/hot-read.ts). Hono's `request()`
  // (the tests) and the listener both call `app.fetch`, so both take this path.
  const hot = createHotRead(s);
  const signalPost = createDirectSignalPost(s);
  const chain = app.fetch;
  app.fetch = (req, ...rest) => hot(req) ?? signalPost(req, (r) => chain(r, ...rest)) ?? chain(req, ...rest);
  return app;
}

/**
 * The public API alone (PRODUCT.md §1, PUBLIC_PORT): the same middleware and error handling, and
 * only the /v1 routes; every other path is 404.
 */
export function createPublicApp(s: AppDeps): OpenAPIHono<AppEnv> {
  const app = createBaseApp(s);
  app.route("/v1", publicRoutes(s));
  return app;
}

/** Middleware, error mapping and 404 shared by both apps. */
function createBaseApp(s: AppDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const development = s.config.NODE_ENV === "development";

  // Request id and log context, metrics, security headers (one hop: src/http/middleware/edge.ts).
  app.use("*", edge(s.metrics.http));
  // Before the body limit and CORS, so that a 413 or a preflight still leaves a line with its id.
  // Only mounted when debug lines are written: a middleware that logs nothing still costs a hop.
  if (s.config.LOG_LEVEL === "debug")
    app.use("*", async (c, next) => {
      const started = performance.now();
      await next();
      s.logger.debug("request", {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 100) / 100,
      });
    });
  if (s.config.CORS_ORIGINS.length > 0) {
    app.use("*", cors({ origin: s.config.CORS_ORIGINS, exposeHeaders: ["X-Request-Id", "Retry-After"], maxAge: 600 }));
  }
  const limit = (maxSize: number) =>
    bodyLimit({
      maxSize,
      onError: () => {
        throw new PayloadTooLargeError(maxSize);
      },
    });
  const defaultLimit = limit(MAX_BODY_BYTES);
  const importLimit = limit(MAX_IMPORT_BODY_BYTES);
  // Bun gives a GET or HEAD request no body (the limit's own first check): those skip its layer.
  app.use("*", (c, next) => {
    const method = c.req.method;
    if (method === "GET" || method === "HEAD") return next();
    return c.req.path === IMPORT_PATH ? importLimit(c, next) : defaultLimit(c, next);
  });

  app.onError((err, c) => {
    const mapped = err instanceof HTTPException && !(err instanceof AppError) ? fromHonoException(err) : err;
    if (mapped instanceof Response) return mapped;
    const answer = errorAnswer(mapped, { development, logger: s.logger, method: c.req.method, path: c.req.path });
    for (const [name, value] of Object.entries(answer.headers)) c.header(name, value);
    return c.json(answer.body, answer.status as 400);
  });

  app.notFound((c) => {
    const { status, body } = toErrorBody(new NotFoundError(`Route not found: ${c.req.method} ${c.req.path}`), {
      development: false,
    });
    return c.json(body, status as 404);
  });
  return app;
}

/**
 * Hono's own exceptions in the spec's error shape: its validators throw 400 for malformed JSON,
 * @hono/zod-openapi 415 for a body of an undeclared media type (the spec's status for invalid
 * input is 400), the body limit 413. Anything else keeps its status.
 */
function fromHonoException(err: HTTPException): AppError | Response {
  switch (err.status) {
    case 400:
      return new ValidationError("Malformed JSON in request body");
    case 401:
      return new AuthenticationError(err.message);
    case 413:
      return new PayloadTooLargeError(MAX_BODY_BYTES);
    case 415:
      return new ValidationError("Content-Type must be application/json");
    default:
      return Response.json({ success: false, error: err.message || "Request failed" }, { status: err.status });
  }
}

function mountRoutes(app: OpenAPIHono<AppEnv>, s: AppDeps): void {
  app.route("/api/v1/auth", authRoutes(s));
  app.route("/api/v1/api-keys", apiKeyRoutes(s));
  app.route("/api/v1/health", healthRoutes(s));
  app.route("/api/v1/price-feeds", priceFeedRoutes(s));
  app.route("/api/v1/data-sources", dataSourceRoutes(s));
  // SPEC lists /metrics among the paths under {base_url}/api/v1; the root one is where Prometheus
  // looks by default. Both serve the same exposition.
  app.route("/", metricsRoutes(s));
  app.route("/api/v1", metricsRoutes(s));
  app.route(SIGNALS_PATH, tradingSignalRoutes(s));
  app.route("/api/v1/agent-positions", agentPositionRoutes(s));
  app.route("/api/v1/agents", agentRoutes(s));
  app.route("/api/v1/wallets", walletRoutes(s));
  app.route("/api/v1/agent-balances", agentBalanceRoutes(s));
  app.route("/api/v1/agent-transactions", agentTransactionRoutes(s));
  app.route("/api/v1/agent-historical-swaps", agentHistoricalSwapRoutes(s));
  app.route("/api/v1/events", eventRoutes(s));
  app.route("/api/v1/backtests", backtestRoutes(s));
  app.route("/api/v1/tokens", tokenRoutes(s));
  app.route("/api/v1/webhooks", webhookRoutes(s));
  app.route("/api/v1/notifications", notificationRoutes(s));
  app.route("/api/v1/signal-sources", signalSourceRoutes(s));
  app.route("/v1", publicRoutes(s));
  app.route("/", dashboardRoutes()); // the web dashboard (issue 14): main port only

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKeyHeader", {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description:
      "svc_ API key. A read route accepts a key with its scope (agents, positions, balances, transactions, " +
      "signals); every other route outside /auth and /api-keys takes a full_access key in place of a JWT.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKeyBearer", {
    type: "http",
    scheme: "bearer",
    description: "svc_ API key as Bearer",
  });
  mountApiDocs(app);
}
