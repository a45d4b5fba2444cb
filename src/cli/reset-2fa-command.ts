import { AuditLog } from "../audit/audit-log.ts";
import { type Clock, isoNow, systemClock } from "../clock.ts";
import { loadConfig } from "../config.ts";
import { type Db, openDatabase } from "../db/client.ts";
import { TwoFactorRepository } from "../db/repositories/two-factor.ts";
import { UserRepository } from "../db/repositories/users.ts";
import { createLogger } from "../logger.ts";
import { type OptionSpec, UsageError } from "./args.ts";

// `trading-agent reset-2fa EMAIL` (PRODUCT.md §2): the operator's way back in for a user who lost
// both the authenticator and the recovery codes. Needs a shell on the box, which is the point:
// whoever has that has the wallet keys anyway. Works while the service runs (login reads the
// secret from the database on every attempt). Leaves an audit entry.

type ResetResult = { outcome: "unknown_user" } | { outcome: "reset" | "not_enabled"; userId: string };

function resetTwoFactor(db: Db, emailInput: string, clock: Clock, audit: AuditLog): ResetResult {
  const user = new UserRepository(db).byEmail(emailInput.trim().toLowerCase());
  if (!user) return { outcome: "unknown_user" };
  if (!user.totpSecret && !user.totpPendingSecret) return { outcome: "not_enabled", userId: user.id };
  new TwoFactorRepository(db).disable(user.id, isoNow(clock));
  audit.record({ userId: user.id, action: "auth.2fa_reset", actor: "cli", details: { by: "reset-2fa" } });
  return { outcome: "reset", userId: user.id };
}

export const reset2faCommand = {
  usage: "trading-agent reset-2fa EMAIL [--env-file PATH]",
  summary: "turn off a user's second factor (lost authenticator)",
  help: `Removes the two-factor secret and the recovery codes of the account EMAIL: the next login
needs the password only. For a user who lost both the authenticator app and the recovery codes.
Works while the service runs; the account's audit log records it.

Exit codes: 0 ok (also when the second factor was not on), 1 unknown user or database error,
2 bad configuration or usage.`,
  options: [{ name: "email", value: true }] as OptionSpec[],
  async execute(args: {
    positionals: string[];
    options: Map<string, string | true>;
    io: { out(text: string): void; err(text: string): void; env: Record<string, string | undefined> };
  }): Promise<number> {
    const { positionals, options, io } = args;
    const flag = options.get("email");
    const given = typeof flag === "string" ? flag : positionals[0];
    if (given === undefined || given.trim() === "" || positionals.length > 1) {
      throw new UsageError("reset-2fa needs one EMAIL", "reset-2fa");
    }
    const email = given.trim().toLowerCase();
    const config = loadConfig(io.env);
    const database = openDatabase(config.DATABASE_PATH, { sync: config.DB_SYNC });
    try {
      const audit = new AuditLog(database.db, systemClock, createLogger({ level: config.LOG_LEVEL }));
      const r = resetTwoFactor(database.db, email, systemClock, audit);
      if (r.outcome === "unknown_user") {
        io.err(`error: no user with email ${email}`);
        return 1;
      }
      io.out(r.outcome === "reset" ? `two-factor login turned off for ${email}` : `${email} had no two-factor login`);
      return 0;
    } finally {
      database.close();
    }
  },
};
