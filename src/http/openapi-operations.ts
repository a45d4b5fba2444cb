// The human side of the OpenAPI document: one summary and one operationId per operation, in one
// table, so the reference page reads as a list of verbs and client generators get stable names.
// The routes keep their schemas (request and response types stay generated from the validating
// zod schemas); test/http/openapi.test.ts fails when a served operation has no entry here.

export interface OperationDoc {
  operationId: string;
  summary: string;
}

type Key = `${"GET" | "POST" | "PUT" | "PATCH" | "DELETE"} ${string}`;

export const OPERATIONS: Record<Key, OperationDoc> = {
  "POST /api/v1/auth/login": { operationId: "login", summary: "Log in with email and password" },
  "POST /api/v1/auth/register": { operationId: "register", summary: "Create an account (when registration is open)" },
  "POST /api/v1/auth/refresh": { operationId: "refreshTokens", summary: "Exchange a refresh token for new tokens" },
  "GET /api/v1/auth/me": { operationId: "getCurrentUser", summary: "The logged-in user" },
  "POST /api/v1/auth/logout": { operationId: "logout", summary: "Revoke the access token (and a refresh token)" },
  "POST /api/v1/auth/2fa/setup": {
    operationId: "setUpTwoFactor",
    summary: "Start two-factor setup (a new TOTP secret)",
  },
  "POST /api/v1/auth/2fa/enable": { operationId: "enableTwoFactor", summary: "Turn two-factor login on with a code" },
  "POST /api/v1/auth/2fa/disable": {
    operationId: "disableTwoFactor",
    summary: "Turn two-factor login off with a code",
  },
  "GET /api/v1/audit-log": { operationId: "listAuditLog", summary: "The account's audit log, newest first" },
  "GET /api/v1/audit-log/export": { operationId: "exportAuditLog", summary: "Export the audit log as CSV" },

  "POST /api/v1/api-keys": { operationId: "createApiKey", summary: "Create an API key (shown once)" },
  "GET /api/v1/api-keys": { operationId: "listApiKeys", summary: "List API keys" },
  "GET /api/v1/api-keys/{id}": { operationId: "getApiKey", summary: "Get one API key" },
  "DELETE /api/v1/api-keys/{id}": { operationId: "deleteApiKey", summary: "Delete an API key" },

  "GET /api/v1/health": { operationId: "getHealth", summary: "Health of the service and its dependencies" },
  "GET /api/v1/health/ready": { operationId: "getReadiness", summary: "Readiness: can the service answer requests" },
  "GET /api/v1/health/live": { operationId: "getLiveness", summary: "Liveness: the process is up" },
  "GET /metrics": { operationId: "getMetrics", summary: "Prometheus metrics" },
  "GET /api/v1/metrics": {
    operationId: "getApiMetrics",
    summary: "Prometheus metrics (the same exposition as /metrics)",
  },
  "GET /api/v1/price-feeds/sol-usd": { operationId: "getSolUsdPrice", summary: "Current SOL/USD price" },
  "GET /api/v1/data-sources/status": { operationId: "getDataSourceStatus", summary: "Outside data sources" },

  "POST /api/v1/trading-signals": { operationId: "createTradingSignal", summary: "Post a trading signal (API key)" },
  "GET /api/v1/trading-signals": { operationId: "listTradingSignals", summary: "List trading signals" },
  "GET /api/v1/trading-signals/export": { operationId: "exportTradingSignals", summary: "Export signals as CSV" },
  "DELETE /api/v1/trading-signals/all": { operationId: "deleteAllTradingSignals", summary: "Delete all signals" },
  "POST /api/v1/trading-signals/import": {
    operationId: "importTradingSignals",
    summary: "Import past signals from a CSV (never traded)",
  },
  "GET /api/v1/trading-signals/{id}": {
    operationId: "getTradingSignal",
    summary: "Get one signal with each agent's decision",
  },
  "PUT /api/v1/trading-signals/{id}": { operationId: "updateTradingSignal", summary: "Update a signal" },
  "DELETE /api/v1/trading-signals/{id}": { operationId: "deleteTradingSignal", summary: "Delete a signal" },

  "GET /api/v1/agent-positions": { operationId: "listAllOpenPositions", summary: "Open positions of every agent" },
  "GET /api/v1/agent-positions/{agentId}": {
    operationId: "listAgentOpenPositions",
    summary: "Open positions of one agent",
  },
  "POST /api/v1/agent-positions/{agentId}/{positionId}/close": {
    operationId: "closeAgentPosition",
    summary: "Close a position of an agent",
  },
  "POST /api/v1/agent-positions/{id}/close": { operationId: "closePosition", summary: "Close a position by its id" },
  "POST /api/v1/agent-positions/{agentId}/{positionId}/sell": {
    operationId: "sellAgentPosition",
    summary: "Sell a share (percent) of a position; 100 closes it",
  },

  "POST /api/v1/agents": { operationId: "createAgent", summary: "Create an agent" },
  "GET /api/v1/agents": { operationId: "listAgents", summary: "List agents" },
  "GET /api/v1/agents/{id}": { operationId: "getAgent", summary: "Get one agent" },
  "PUT /api/v1/agents/{id}": { operationId: "updateAgent", summary: "Update an agent (name, mode, switches)" },
  "DELETE /api/v1/agents/{id}": { operationId: "deleteAgent", summary: "Delete an agent" },
  "GET /api/v1/agents/{id}/config": { operationId: "getAgentConfig", summary: "An agent's trading configuration" },
  "PUT /api/v1/agents/{id}/config": {
    operationId: "updateAgentConfig",
    summary: "Change (or reset) an agent's trading configuration",
  },
  "POST /api/v1/agents/{id}/buy": {
    operationId: "manualBuy",
    summary: "Buy a token by hand, through the same checks as an automated entry",
  },
  "GET /api/v1/agents/{id}/positions": { operationId: "listAgentPositions", summary: "An agent's positions" },
  "GET /api/v1/agents/{id}/performance": { operationId: "getAgentPerformance", summary: "An agent's performance" },
  "GET /api/v1/agents/{id}/balance-history": {
    operationId: "getAgentBalanceHistory",
    summary: "An agent's balance snapshots",
  },

  "GET /api/v1/wallets": { operationId: "listWallets", summary: "Wallets of every agent and free live wallets" },
  "GET /api/v1/wallets/agent/{agentId}": { operationId: "getAgentWallets", summary: "Wallets of one agent" },
  "POST /api/v1/wallets/assign": { operationId: "assignWallet", summary: "Assign a wallet to an agent" },
  "POST /api/v1/wallets/reset": { operationId: "resetSimulationWallets", summary: "Reset simulation wallets" },
  "POST /api/v1/wallets/{walletAddress}/reset": {
    operationId: "resetSimulationWallet",
    summary: "Reset one simulation wallet",
  },
  "POST /api/v1/wallets/{walletAddress}/check-deposits": {
    operationId: "checkWalletDeposits",
    summary: "Read a live wallet's balances from the chain",
  },

  "GET /api/v1/agent-balances": { operationId: "listAgentBalances", summary: "List agent balances" },
  "POST /api/v1/agent-balances": { operationId: "createAgentBalance", summary: "Record an agent balance" },
  "GET /api/v1/agent-balances/{id}": { operationId: "getAgentBalance", summary: "Get one agent balance" },
  "PUT /api/v1/agent-balances/{id}": { operationId: "updateAgentBalance", summary: "Update an agent balance" },
  "DELETE /api/v1/agent-balances/{id}": { operationId: "deleteAgentBalance", summary: "Delete an agent balance" },
  "GET /api/v1/agent-transactions": { operationId: "listAgentTransactions", summary: "List agent transactions" },
  "POST /api/v1/agent-transactions": { operationId: "createAgentTransaction", summary: "Record a transaction" },
  "GET /api/v1/agent-transactions/{id}": { operationId: "getAgentTransaction", summary: "Get one transaction" },
  "PUT /api/v1/agent-transactions/{id}": { operationId: "updateAgentTransaction", summary: "Update a transaction" },
  "DELETE /api/v1/agent-transactions/{id}": {
    operationId: "deleteAgentTransaction",
    summary: "Delete a transaction",
  },
  "GET /api/v1/agent-historical-swaps": { operationId: "listHistoricalSwaps", summary: "List historical swaps" },
  "POST /api/v1/agent-historical-swaps": { operationId: "createHistoricalSwap", summary: "Record a historical swap" },
  "GET /api/v1/agent-historical-swaps/export": {
    operationId: "exportHistoricalSwaps",
    summary: "Export historical swaps as CSV",
  },
  "GET /api/v1/agent-historical-swaps/{id}": { operationId: "getHistoricalSwap", summary: "Get one historical swap" },
  "PUT /api/v1/agent-historical-swaps/{id}": {
    operationId: "updateHistoricalSwap",
    summary: "Update a historical swap",
  },
  "DELETE /api/v1/agent-historical-swaps/{id}": {
    operationId: "deleteHistoricalSwap",
    summary: "Delete a historical swap",
  },

  "POST /api/v1/backtests": { operationId: "createBacktest", summary: "Start a backtest of strategy variants" },
  "GET /api/v1/backtests": { operationId: "listBacktests", summary: "List backtests" },
  "GET /api/v1/backtests/{id}": { operationId: "getBacktest", summary: "A backtest's status and results" },
  "DELETE /api/v1/backtests/{id}": { operationId: "deleteBacktest", summary: "Delete a backtest" },
  "GET /api/v1/backtests/{id}/trades": {
    operationId: "listBacktestTrades",
    summary: "A backtest's trades (JSON or CSV)",
  },
  "GET /api/v1/signal-sources/report": {
    operationId: "getSignalSourceReport",
    summary: "How each signal source's calls moved afterwards",
  },
  "GET /api/v1/tokens/{address}/prices": {
    operationId: "getTokenPriceBars",
    summary: "Recorded price bars of a token",
  },

  "POST /api/v1/webhooks": { operationId: "createWebhook", summary: "Create a webhook (secret shown once)" },
  "GET /api/v1/webhooks": { operationId: "listWebhooks", summary: "List webhooks" },
  "GET /api/v1/webhooks/{id}": { operationId: "getWebhook", summary: "Get one webhook" },
  "PATCH /api/v1/webhooks/{id}": { operationId: "updateWebhook", summary: "Change a webhook (url, events, enabled)" },
  "DELETE /api/v1/webhooks/{id}": { operationId: "deleteWebhook", summary: "Delete a webhook" },
  "POST /api/v1/webhooks/{id}/test": { operationId: "testWebhook", summary: "Send a test message to a webhook" },
  "POST /api/v1/webhooks/{id}/rotate-secret": {
    operationId: "rotateWebhookSecret",
    summary: "Replace a webhook's signing secret (shown once)",
  },
  "GET /api/v1/webhooks/{id}/deliveries": { operationId: "listWebhookDeliveries", summary: "A webhook's deliveries" },
  "POST /api/v1/wallet-watches": { operationId: "createWalletWatch", summary: "Follow a wallet (copy trading)" },
  "GET /api/v1/wallet-watches": { operationId: "listWalletWatches", summary: "List followed wallets" },
  "GET /api/v1/wallet-watches/{id}": { operationId: "getWalletWatch", summary: "Get one followed wallet" },
  "PUT /api/v1/wallet-watches/{id}": {
    operationId: "updateWalletWatch",
    summary: "Change a followed wallet (pause, resume, thresholds)",
  },
  "DELETE /api/v1/wallet-watches/{id}": { operationId: "deleteWalletWatch", summary: "Stop following a wallet" },
  "GET /api/v1/wallet-watches/{id}/trades": {
    operationId: "listWalletWatchTrades",
    summary: "A followed wallet's detected trades and what your agents did",
  },
  "POST /api/v1/signal-hooks": {
    operationId: "createSignalHook",
    summary: "Create a signal hook: a URL with its own secret for TradingView alerts",
  },
  "GET /api/v1/signal-hooks": { operationId: "listSignalHooks", summary: "List signal hooks" },
  "GET /api/v1/signal-hooks/{id}": { operationId: "getSignalHook", summary: "Get one signal hook" },
  "PATCH /api/v1/signal-hooks/{id}": {
    operationId: "updateSignalHook",
    summary: "Rename a signal hook or change its addresses and tokens",
  },
  "DELETE /api/v1/signal-hooks/{id}": {
    operationId: "deleteSignalHook",
    summary: "Revoke a signal hook (its URL answers 404)",
  },
  "GET /api/v1/signal-hooks/{id}/deliveries": {
    operationId: "listSignalHookDeliveries",
    summary: "A signal hook's last deliveries",
  },
  "POST /api/v1/hooks/{token}": {
    operationId: "deliverToSignalHook",
    summary: "Deliver a signal to a hook (TradingView alerts, senders that cannot set a header)",
  },
  "POST /api/v1/wallet-watch-groups": {
    operationId: "createWalletWatchGroup",
    summary: "Group followed wallets: one signal when N of them buy a mint within T",
  },
  "GET /api/v1/wallet-watch-groups": { operationId: "listWalletWatchGroups", summary: "List wallet watch groups" },
  "GET /api/v1/wallet-watch-groups/{id}": { operationId: "getWalletWatchGroup", summary: "Get one wallet watch group" },
  "PUT /api/v1/wallet-watch-groups/{id}": {
    operationId: "updateWalletWatchGroup",
    summary: "Change a wallet watch group",
  },
  "DELETE /api/v1/wallet-watch-groups/{id}": {
    operationId: "deleteWalletWatchGroup",
    summary: "Delete a wallet watch group",
  },
  "GET /api/v1/notifications/preferences": {
    operationId: "getNotificationPreferences",
    summary: "Which events notify you, and quiet hours",
  },
  "PUT /api/v1/notifications/preferences": {
    operationId: "updateNotificationPreferences",
    summary: "Change notification preferences",
  },
  "GET /api/v1/notifications/telegram": { operationId: "getTelegramStatus", summary: "The bot and your linked chats" },
  "POST /api/v1/notifications/telegram/link": {
    operationId: "createTelegramLinkCode",
    summary: "A one-time code to link a Telegram chat",
  },
  "DELETE /api/v1/notifications/telegram/chats/{chatId}": {
    operationId: "unlinkTelegramChat",
    summary: "Unlink a Telegram chat",
  },

  "GET /api/v1/trading/status": {
    operationId: "getTradingStatus",
    summary: "Pause switches and daily-loss breakers per mode",
  },
  "POST /api/v1/trading/pause": {
    operationId: "pauseTrading",
    summary: "Stop every buy in a mode: entries, copied buys, DCA orders (exits, stop-losses and closes keep working)",
  },
  "POST /api/v1/trading/resume": {
    operationId: "resumeTrading",
    summary: "Allow entries again in a mode; clears a tripped daily-loss breaker",
  },
  "POST /api/v1/trading/close-all": {
    operationId: "closeAllPositions",
    summary: "Close every open position of a mode or an agent (optionally pausing entries first)",
  },
  "GET /api/v1/risk-limits": {
    operationId: "getRiskLimits",
    summary: "Account-wide risk limits per mode, with the breaker and usage",
  },
  "PUT /api/v1/risk-limits": { operationId: "updateRiskLimits", summary: "Set account-wide risk limits" },
  "GET /api/v1/portfolio/history": {
    operationId: "getPortfolioHistory",
    summary: "Account value and P/L over time for one mode, a point per 5 minutes",
  },
  "GET /api/v1/reports/pnl": {
    operationId: "getPnlReport",
    summary: "Realized P/L by UTC day, ISO week or token, for an agent or the account",
  },
  "GET /api/v1/reports/pnl/export": { operationId: "exportPnlReport", summary: "The P/L report as CSV" },

  "GET /": { operationId: "getDashboard", summary: "The web dashboard (HTML page)" },
  "GET /dashboard/{file}": { operationId: "getDashboardAsset", summary: "A script or stylesheet of the dashboard" },

  "GET /api/v1/events": { operationId: "streamEvents", summary: "Live events of the caller (Server-Sent Events)" },

  "GET /v1/platform/health": { operationId: "publicHealth", summary: "Health check" },
  "GET /v1/platform/usage": { operationId: "publicUsage", summary: "Requests counted for the calling key" },
  "GET /v1/agents": { operationId: "publicListAgents", summary: "All agents of the key's user" },
  "GET /v1/agents/{agentId}": { operationId: "publicGetAgent", summary: "One agent" },
  "GET /v1/agents/{agentId}/wallet": { operationId: "publicAgentWallet", summary: "Wallet balances and USD value" },
  "GET /v1/agents/{agentId}/live-trades": { operationId: "publicAgentLiveTrades", summary: "Live trades" },
  "GET /v1/prices/sol": { operationId: "publicSolPrice", summary: "Latest SOL price" },
  "GET /v1/agents/{agentId}/signals": {
    operationId: "publicAgentSignals",
    summary: "Latest signals the agent acted on or was eligible for",
  },
  "GET /v1/agents/{agentId}/signals/{signalId}": { operationId: "publicAgentSignal", summary: "One signal" },
  "GET /v1/whale-trades/latest": { operationId: "publicLatestWhaleTrades", summary: "Latest whale trades" },
  "GET /v1/whale-trades/{tokenAddress}": {
    operationId: "publicTokenWhaleTrades",
    summary: "Latest whale trades of one token",
  },
};

const TAGS: Array<{ name: string; description: string }> = [
  { name: "auth", description: "Accounts, logins and tokens" },
  { name: "api-keys", description: "Scoped API keys for signal bots and read access" },
  { name: "agents", description: "Trading agents and their configuration" },
  { name: "trading-signals", description: "Signals posted by bots, and what each agent did with them" },
  { name: "agent-positions", description: "Open positions and closing them" },
  { name: "wallets", description: "Simulation and live wallets" },
  { name: "agent-balances", description: "Balance ledger" },
  { name: "agent-transactions", description: "Transaction ledger" },
  { name: "agent-historical-swaps", description: "Closed trades with their P/L" },
  { name: "price-feeds", description: "SOL/USD" },
  { name: "data-sources", description: "Outside data sources" },
  { name: "events", description: "Live event stream" },
  { name: "health", description: "Health, readiness and metrics" },
  { name: "public", description: "Read-only public API (any API key)" },
  { name: "backtests", description: "Strategy lab: replay signals through the exit rules" },
  { name: "tokens", description: "Recorded token price history" },
  { name: "webhooks", description: "Signed webhooks for your own systems" },
  { name: "notifications", description: "Notification preferences and the Telegram bot" },
  { name: "trading", description: "Pause switches, risk limits and the daily-loss breaker over all your agents" },
  { name: "dashboard", description: "The web dashboard served by the binary" },
];

// biome-ignore lint/suspicious/noExplicitAny: the generated document is walked as loose JSON
type Json = Record<string, any>;
type Operation = {
  summary?: string;
  operationId?: string;
  security?: unknown;
  tags?: string[];
  parameters?: Json[];
  requestBody?: Json;
};
type Document = { paths?: object; info?: object; components?: Json };

/**
 * Finishes the generated document: summaries and operationIds from the table, `security: []`
 * on operations that take no credential (so a reader does not take them for protected ones),
 * one path per resource (a trailing-slash alias is served but not documented), tags and servers.
 */
export function finishOpenApiDocument<T extends Document>(doc: T): T {
  const source = (doc.paths ?? {}) as Record<string, Record<string, Operation>>;
  const paths: Record<string, Record<string, Operation>> = {};
  const updateBodies = new Set<Json | undefined>();
  for (const [path, ops] of Object.entries(source)) {
    if (path.length > 1 && path.endsWith("/")) continue;
    const out: Record<string, Operation> = {};
    for (const [method, op] of Object.entries(ops)) {
      const entry = OPERATIONS[`${method.toUpperCase()} ${path}` as Key];
      out[method] = {
        ...op,
        ...(entry ? { operationId: entry.operationId, summary: op.summary ?? entry.summary } : {}),
        security: op.security ?? [],
        ...(op.parameters ? { parameters: op.parameters.map(withoutNullInQuery) } : {}),
      };
      if (method === "put" || method === "patch")
        updateBodies.add(op.requestBody?.content?.["application/json"]?.schema);
    }
    paths[path] = out;
  }
  // Every update body refuses `{}` (its schema's refine, test/http/openapi-edge.test.ts): say so.
  const schemas: Json = { ...doc.components?.schemas };
  for (const body of updateBodies) {
    const name = (body?.$ref as string | undefined)?.split("/").pop();
    if (name && schemas[name]) schemas[name] = { ...schemas[name], minProperties: 1 };
  }
  return {
    ...doc,
    ...(doc.components ? { components: { ...doc.components, schemas } } : {}),
    info: { ...doc.info, license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" } },
    servers: [{ url: "/", description: "This service" }],
    tags: TAGS,
    paths,
  };
}

/**
 * A query string carries text, never a JSON null: the generator marks coerced numbers as
 * `["integer", "null"]`, which the server refuses (`?offset=null` is 400), so the type says text
 * that reads as the number.
 */
function withoutNullInQuery(param: Json): Json {
  const type = param.schema?.type;
  if (param.in !== "query" || !Array.isArray(type) || !type.includes("null")) return param;
  const rest = type.filter((t: string) => t !== "null");
  return { ...param, schema: { ...param.schema, type: rest.length === 1 ? rest[0] : rest } };
}
