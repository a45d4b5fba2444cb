import { AccountService } from "./auth/accounts.ts";
import { ApiKeyService } from "./auth/api-keys.ts";
import { AccessTokenBlacklist } from "./auth/blacklist.ts";
import { resolveJwtSecret } from "./auth/jwt-secret.ts";
import { createPasswordHasher, type Argon2Cost, type PasswordHasher } from "./auth/passwords.ts";
import { TokenSigner } from "./auth/tokens.ts";
import { systemClock, type Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import type { DatabaseHandle } from "./db/client.ts";
import { createAuthMiddleware, type AuthMiddleware } from "./http/middleware/auth.ts";
import { SlidingWindowLimiter } from "./http/rate-limit.ts";
import { EventBus } from "./events/bus.ts";
import { createLogger, type Logger } from "./logger.ts";

// The dependency container: built once in main.ts (and by the test helper) and handed to
// createApp and the background workers. Each capability adds its services here.

export interface Services {
  config: Config;
  database: DatabaseHandle;
  clock: Clock;
  logger: Logger;
  startedAt: number;
  passwords: PasswordHasher;
  signer: TokenSigner;
  blacklist: AccessTokenBlacklist;
  accounts: AccountService;
  apiKeys: ApiKeyService;
  auth: AuthMiddleware;
  events: EventBus;
  limiters: {
    login: SlidingWindowLimiter;
    signals: SlidingWindowLimiter;
    dataSources: SlidingWindowLimiter;
    wallets: SlidingWindowLimiter;
  };
  /** Closes what the services hold open (timers, streams); the database is closed by its owner. */
  stop(): Promise<void>;
}

export interface ServiceOptions {
  clock?: Clock;
  logger?: Logger;
  passwordCost?: Argon2Cost;
  /** Extra strings the logger must never print (wallet secrets, the JWT secret). */
  secrets?: () => readonly string[];
}

export function createServices(config: Config, database: DatabaseHandle, opts: ServiceOptions = {}): Services {
  const clock = opts.clock ?? systemClock;
  const jwtSecret = resolveJwtSecret(config.JWT_SECRET, database.path);
  const secretStrings = [Buffer.from(jwtSecret).toString("hex"), ...(config.JWT_SECRET ? [config.JWT_SECRET] : [])];
  const logger =
    opts.logger ??
    createLogger({
      level: config.LOG_LEVEL,
      secrets: () => [...secretStrings, ...(opts.secrets?.() ?? [])],
    });
  const passwords = createPasswordHasher(opts.passwordCost);
  const signer = new TokenSigner(jwtSecret, clock);
  const blacklist = new AccessTokenBlacklist(database.sqlite, clock);
  const accounts = new AccountService(database, passwords, signer, blacklist, clock, logger);
  const apiKeys = new ApiKeyService(database, clock);
  const minute = 60_000;
  const timers: Array<ReturnType<typeof setInterval>> = [];
  timers.push(setInterval(() => blacklist.sweep(), 5 * minute));
  for (const t of timers) t.unref?.();

  return {
    config,
    database,
    clock,
    logger,
    startedAt: clock.now(),
    passwords,
    signer,
    blacklist,
    accounts,
    apiKeys,
    auth: createAuthMiddleware({ signer, blacklist, apiKeys, accounts }),
    events: new EventBus(() => clock.now()),
    limiters: {
      login: new SlidingWindowLimiter(config.LOGIN_RATE_LIMIT_PER_MINUTE, minute, clock),
      signals: new SlidingWindowLimiter(config.SIGNAL_RATE_LIMIT_PER_MINUTE, minute, clock),
      dataSources: new SlidingWindowLimiter(config.DATA_SOURCES_RATE_LIMIT_PER_MINUTE, minute, clock),
      wallets: new SlidingWindowLimiter(config.WALLETS_RATE_LIMIT_PER_MINUTE, minute, clock),
    },
    async stop() {
      for (const t of timers) clearInterval(t);
    },
  };
}
