import { afterEach } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { ManualClock } from "../../src/clock.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import { type DatabaseHandle, openDatabase } from "../../src/db/client.ts";
import type { AppDeps } from "../../src/http/app-env.ts";
import { createAppDeps } from "../../src/http/deps.ts";
import { createLogger, type Logger } from "../../src/logger.ts";
import { createServices, type ServiceOptions } from "../../src/services.ts";

// A real service over a real SQLite file in a temp dir, with a manual clock and captured logs.
// Every external source is disabled unless the test points it at a fake (test/fakes/).

export const ADMIN_EMAIL = "admin@example.com";
export const ADMIN_PASSWORD = "Admin!Passw0rd";

/** Environment with every outside source switched off; tests override what they need. */
export const offlineEnv: Record<string, string> = {
  NODE_ENV: "test",
  LOG_LEVEL: "debug",
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  PRICE_NETWORK_URL: "",
  SOL_PRICE_FEED_URL: "",
  SWAP_AGGREGATOR_URL: "",
  MARKET_DATA_URL: "",
  WHALE_DATA_URL: "",
  SOLANA_RPC_URL: "",
  // The suite's figures are worked out with a 0.0001 SOL simulated priority fee (PRODUCT.md's
  // original default). Unset, the simulation charges live's cap (the lower of LIVE_PRIORITY_FEE_MAX,
  // 0.001 SOL, and LIVE_PRIORITY_FEE_MAX_BPS of the trade; test/trading/simulation-fidelity.test.ts).
  SIMULATION_PRIORITY_FEE_SOL: "0.0001",
};

export interface TestContext {
  dir: string;
  config: Config;
  database: DatabaseHandle;
  /** The service container plus the HTTP layer's auth middleware and rate limiters. */
  services: AppDeps;
  app: ReturnType<typeof createApp>;
  clock: ManualClock;
  logs: string[];
  /** app.request with JSON encoding of `body` and a Bearer token or API key. */
  request(method: string, path: string, opts?: RequestOptions): Promise<Response>;
  /** Re-opens the same database file with fresh services (a restart). */
  restart(): Promise<TestContext>;
  close(): Promise<void>;
}

export interface RequestOptions {
  body?: unknown;
  rawBody?: string;
  token?: string;
  apiKey?: string;
  headers?: Record<string, string>;
}

export interface ContextOptions {
  env?: Record<string, string>;
  clock?: ManualClock;
  dir?: string;
  services?: Partial<ServiceOptions>;
  /** false: skip start-up signal recovery, which serve() runs before it opens the door (default true). */
  recover?: boolean;
}

export async function createTestContext(opts: ContextOptions = {}): Promise<TestContext> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), "trading-agent-test-"));
  const clock = opts.clock ?? new ManualClock();
  const env = { ...offlineEnv, DATABASE_PATH: join(dir, "trading.db"), ...opts.env };
  const config = loadConfig(env);
  const database = openDatabase(config.DATABASE_PATH, { sync: config.DB_SYNC });
  const logs: string[] = [];
  // As createServices does for its own logger: WALLET_N secrets in every text form are scrubbed.
  const secrets = () => [
    ...(opts.services?.secrets?.() ?? []),
    ...(opts.services?.liveWallets?.redactionStrings() ?? []),
  ];
  const logger: Logger = createLogger({ level: config.LOG_LEVEL, write: (l) => logs.push(l), secrets });
  const services = createAppDeps(
    createServices(config, database, {
      clock,
      logger,
      passwordCost: { memoryCost: 1024, timeCost: 1 },
      ...opts.services,
    }),
  );
  await services.accounts.ensureAdmin(config.ADMIN_EMAIL, config.ADMIN_PASSWORD);
  // As serve() does before it opens the door.
  if (opts.recover !== false) services.signalIntake.ensureRecovered();
  const app = createApp(services);
  let closed = false;

  const ctx: TestContext = {
    dir,
    config,
    database,
    services,
    app,
    clock,
    logs,
    request: (method, path, o = {}) => {
      const headers: Record<string, string> = { ...o.headers };
      let body: string | undefined = o.rawBody;
      if (o.body !== undefined) {
        body = JSON.stringify(o.body);
        headers["content-type"] ??= "application/json";
      }
      // As a client sending a fixed body over the wire does (a Request built here has none).
      if (body !== undefined) headers["content-length"] ??= String(Buffer.byteLength(body));
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      if (o.apiKey) headers["x-api-key"] = o.apiKey;
      return Promise.resolve(app.request(path, { method, headers, body }));
    },
    restart: async () => {
      await services.stop();
      database.close();
      closed = true;
      return createTestContext({ ...opts, dir, clock });
    },
    close: async () => {
      if (!closed) {
        await services.stop();
        database.close();
        closed = true;
      }
      if (!opts.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
  return ctx;
}

/**
 * For a test file whose tests open contexts with their own environment: `const context =
 * contextsClosedAfterEach()` at the top of the file; every context it opens is closed after its test.
 */
export function contextsClosedAfterEach(): (env?: Record<string, string>) => Promise<TestContext> {
  const open: TestContext[] = [];
  afterEach(async () => {
    for (const ctx of open.splice(0)) await ctx.close();
  });
  return async (env) => {
    const ctx = await createTestContext({ env });
    open.push(ctx);
    return ctx;
  };
}

export async function json<T = any>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

/** Logs in and returns the access token (and the rest of the login body). */
export async function login(ctx: TestContext, email = ADMIN_EMAIL, password = ADMIN_PASSWORD) {
  const res = await ctx.request("POST", "/api/v1/auth/login", { body: { email, password } });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  const body = await json(res);
  return {
    token: body.accessToken as string,
    refreshToken: body.refreshToken as string,
    user: body.user as { id: string; email: string },
  };
}

let userSeq = 0;
/** Creates another user directly through the account service and logs in as them. */
export async function createUser(
  ctx: TestContext,
  email = `user${++userSeq}-${crypto.randomUUID().slice(0, 8)}@example.com`,
) {
  const password = "User!Passw0rd";
  await ctx.services.accounts.register(email, password, true);
  return { email, password, ...(await login(ctx, email, password)) };
}

export async function createApiKey(
  ctx: TestContext,
  token: string,
  scopes: string[],
  name = `key-${crypto.randomUUID().slice(0, 8)}`,
) {
  const res = await ctx.request("POST", "/api/v1/api-keys", { token, body: { name, scopes } });
  if (res.status !== 201) throw new Error(`api key creation failed: ${res.status} ${await res.text()}`);
  return (await json(res)) as { id: string; key: string; prefix: string; scopes: string[] };
}
