import { OpenAPIHono } from "@hono/zod-openapi";
import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";
import { dashboardRoutes } from "./dashboard/serve.ts";
import {
  AppError,
  AuthenticationError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  toErrorBody,
  ValidationError,
} from "./errors.ts";
import type { AppDeps, AppEnv } from "./http/app-env.ts";
import { MAX_BODY_BYTES, MAX_IMPORT_BODY_BYTES } from "./http/body-limits.ts";
import { errorAnswer } from "./http/error-answer.ts";
import { edge } from "./http/middleware/edge.ts";
import { allowedMethods, declaredOperations, mountDeclared } from "./http/operation.ts";
import { redactPath } from "./http/redact-path.ts";
import { agentBalanceRoutes } from "./http/routes/agent-balances/index.ts";
import { agentHistoricalSwapRoutes } from "./http/routes/agent-historical-swaps/index.ts";
import { agentPositionRoutes } from "./http/routes/agent-positions/index.ts";
import { positionSaleRoutes } from "./http/routes/agent-positions/sell.ts";
import { agentTransactionRoutes } from "./http/routes/agent-transactions/index.ts";
import { agentRoutes } from "./http/routes/agents/index.ts";
import { manualBuyRoutes } from "./http/routes/agents/manual-buy.ts";
import { apiKeyRoutes } from "./http/routes/api-keys/index.ts";
import { auditLogRoutes } from "./http/routes/audit-log/index.ts";
import { authRoutes } from "./http/routes/auth/index.ts";
import { twoFactorRoutes } from "./http/routes/auth/two-factor.ts";
import { backtestRoutes } from "./http/routes/backtests/index.ts";
import { dataSourceRoutes } from "./http/routes/data-sources/index.ts";
import { mountApiDocs } from "./http/routes/docs/index.ts";
import { eventRoutes } from "./http/routes/events/index.ts";
import { healthRoutes } from "./http/routes/health/index.ts";
import { metricsRoutes } from "./http/routes/metrics/index.ts";
import { notificationRoutes } from "./http/routes/notifications/index.ts";
import { portfolioRoutes } from "./http/routes/portfolio/index.ts";
import { priceFeedRoutes } from "./http/routes/price-feeds/index.ts";
import { publicRoutes } from "./http/routes/public/index.ts";
import { reportRoutes } from "./http/routes/reports/index.ts";
import { hookDeliveryRoutes } from "./http/routes/signal-hooks/deliver.ts";
import { signalHookRoutes } from "./http/routes/signal-hooks/index.ts";
import { signalSourceRoutes } from "./http/routes/signal-sources/index.ts";
import { tokenRoutes } from "./http/routes/tokens/index.ts";
import { riskLimitRoutes, tradingControlRoutes } from "./http/routes/trading-controls/index.ts";
import { SIGNALS_PATH, tradingSignalRoutes } from "./http/routes/trading-signals/index.ts";
import { walletWatchGroupRoutes } from "./http/routes/wallet-watch-groups/index.ts";
import { walletWatchRoutes } from "./http/routes/wallet-watches/index.ts";
import { walletRoutes } from "./http/routes/wallets/index.ts";
import { webhookRoutes } from "./http/routes/webhooks/index.ts";
import { HOOKS_PATH } from "./signals/signal-hooks.ts";

export { MAX_BODY_BYTES, MAX_IMPORT_BODY_BYTES };

/**
 * Builds the HTTP app from its dependencies (createAppDeps(services), src/http/deps.ts). No side
 * effects: no listener, no timers.
 */
export function createApp(s: AppDeps): OpenAPIHono<AppEnv> {
  const app = createBaseApp(s);
  mountRoutes(app, s);
  return app;
}

/**
 * The public API alone (PRODUCT.md §1, PUBLIC_PORT): the same middleware and error handling, and
 * only the /v1 routes; every other path is 404.
 */
export function createPublicApp(s: AppDeps): OpenAPIHono<AppEnv> {
  const app = createBaseApp(s);
  mountDeclared(app, "/v1", publicRoutes(s));
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
        path: redactPath(c.req.path),
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 100) / 100,
      });
    });
  if (s.config.CORS_ORIGINS.length > 0) {
    app.use("*", cors({ origin: s.config.CORS_ORIGINS, exposeHeaders: ["X-Request-Id", "Retry-After"], maxAge: 600 }));
  }

  app.onError((err, c) => {
    const mapped = err instanceof HTTPException && !(err instanceof AppError) ? fromHonoException(err) : err;
    if (mapped instanceof Response) return mapped;
    const answer = errorAnswer(mapped, {
      development,
      logger: s.logger,
      method: c.req.method,
      path: redactPath(c.req.path),
    });
    for (const [name, value] of Object.entries(answer.headers)) c.header(name, value);
    return c.json(answer.body, answer.status as 400);
  });

  // A known path with a method it does not take: 405 with Allow (RFC 9110 §15.5.6), from the
  // declared operations (read when the first request misses, after every route is mounted).
  let allowed: ((path: string) => string[]) | undefined;
  app.notFound((c) => {
    allowed ??= allowedMethods(declaredOperations(app));
    const methods = allowed(c.req.path);
    // A declared method whose handler found nothing (an unknown dashboard asset) is a 404, not a 405.
    const method = c.req.method === "HEAD" ? "GET" : c.req.method;
    if (methods.length > 0 && !methods.includes(method)) {
      const error = new MethodNotAllowedError(`Method not allowed: ${c.req.method} ${redactPath(c.req.path)}`);
      const { status, body } = toErrorBody(error, { development: false });
      return c.json(body, status as 405, { Allow: methods.join(", ") });
    }
    const { status, body } = toErrorBody(
      new NotFoundError(`Route not found: ${c.req.method} ${redactPath(c.req.path)}`),
      {
        development: false,
      },
    );
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
  mountDeclared(app, "/api/v1/auth", authRoutes(s));
  mountDeclared(app, "/api/v1/auth", twoFactorRoutes(s));
  mountDeclared(app, "/api/v1/audit-log", auditLogRoutes(s));
  mountDeclared(app, "/api/v1/api-keys", apiKeyRoutes(s));
  mountDeclared(app, "/api/v1/health", healthRoutes(s));
  mountDeclared(app, "/api/v1/price-feeds", priceFeedRoutes(s));
  mountDeclared(app, "/api/v1/data-sources", dataSourceRoutes(s));
  // SPEC lists /metrics among the paths under {base_url}/api/v1; the root one is where Prometheus
  // looks by default. Both serve the same exposition.
  mountDeclared(app, "/", metricsRoutes(s));
  mountDeclared(app, "/api/v1", metricsRoutes(s));
  mountDeclared(app, SIGNALS_PATH, tradingSignalRoutes(s));
  mountDeclared(app, "/api/v1/agent-positions", agentPositionRoutes(s));
  mountDeclared(app, "/api/v1/agent-positions", positionSaleRoutes(s));
  mountDeclared(app, "/api/v1/agents", agentRoutes(s));
  mountDeclared(app, "/api/v1/agents", manualBuyRoutes(s));
  mountDeclared(app, "/api/v1/portfolio", portfolioRoutes(s));
  mountDeclared(app, "/api/v1/reports", reportRoutes(s));
  mountDeclared(app, "/api/v1/wallets", walletRoutes(s));
  mountDeclared(app, "/api/v1/agent-balances", agentBalanceRoutes(s));
  mountDeclared(app, "/api/v1/agent-transactions", agentTransactionRoutes(s));
  mountDeclared(app, "/api/v1/agent-historical-swaps", agentHistoricalSwapRoutes(s));
  mountDeclared(app, "/api/v1/events", eventRoutes(s));
  mountDeclared(app, "/api/v1/backtests", backtestRoutes(s));
  mountDeclared(app, "/api/v1/tokens", tokenRoutes(s));
  mountDeclared(app, "/api/v1/webhooks", webhookRoutes(s));
  mountDeclared(app, "/api/v1/notifications", notificationRoutes(s));
  mountDeclared(app, "/api/v1/trading", tradingControlRoutes(s));
  mountDeclared(app, "/api/v1/risk-limits", riskLimitRoutes(s));
  mountDeclared(app, "/api/v1/signal-sources", signalSourceRoutes(s));
  mountDeclared(app, "/api/v1/wallet-watches", walletWatchRoutes(s));
  mountDeclared(app, "/api/v1/wallet-watch-groups", walletWatchGroupRoutes(s));
  mountDeclared(app, "/api/v1/signal-hooks", signalHookRoutes(s));
  mountDeclared(app, HOOKS_PATH, hookDeliveryRoutes(s));
  mountDeclared(app, "/v1", publicRoutes(s));
  mountDeclared(app, "/", dashboardRoutes(s)); // the web dashboard: main port only

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
