import { resolveJwtSecret } from "../auth/jwt-secret.ts";
import { type Clock, systemClock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { Lifecycle } from "../lifecycle.ts";
import { createLogger, type Logger } from "../logger.ts";
import type { ServiceOptions } from "./options.ts";

export interface Foundations {
  clock: Clock;
  jwtSecret: Uint8Array;
  logger: Logger;
  lifecycle: Lifecycle;
}

/** The clock, the JWT secret, the logger (with every secret it must scrub) and the lifecycle hooks. */
export function createFoundations(config: Config, database: DatabaseHandle, opts: ServiceOptions): Foundations {
  const clock = opts.clock ?? systemClock;
  const jwtSecret = resolveJwtSecret(config.JWT_SECRET, database.path);
  const secretStrings = [Buffer.from(jwtSecret).toString("hex"), ...(config.JWT_SECRET ? [config.JWT_SECRET] : [])];
  const logger =
    opts.logger ??
    createLogger({
      level: config.LOG_LEVEL,
      // WALLET_N secrets (every text form) are scrubbed from every line as a last defence.
      secrets: () => [
        ...secretStrings,
        ...(config.TELEGRAM_BOT_TOKEN ? [config.TELEGRAM_BOT_TOKEN] : []),
        ...(opts.secrets?.() ?? []),
        ...(opts.liveWallets?.redactionStrings() ?? []),
      ],
    });
  return { clock, jwtSecret, logger, lifecycle: new Lifecycle(logger) };
}
