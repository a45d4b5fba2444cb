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
        // The replica's credentials (docs/backups.md): Litestream's log lines pass through here.
        ...(config.AWS_SECRET_ACCESS_KEY ? [config.AWS_SECRET_ACCESS_KEY] : []),
        ...replicaPassword(config.REPLICA_URL),
        ...(opts.secrets?.() ?? []),
        ...(opts.liveWallets?.redactionStrings() ?? []),
      ],
    });
  return { clock, jwtSecret, logger, lifecycle: new Lifecycle(logger) };
}

/** The password in an sftp:// REPLICA_URL, as written and decoded. */
function replicaPassword(url: string | undefined): string[] {
  if (!url || !URL.canParse(url)) return [];
  const raw = new URL(url).password;
  if (raw === "") return [];
  return [...new Set([raw, decodeURIComponent(raw)])];
}
