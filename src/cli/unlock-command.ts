import { AuditLog } from "../audit/audit-log.ts";
import { unlockAccount } from "../auth/unlock.ts";
import { systemClock } from "../clock.ts";
import { loadConfig } from "../config.ts";
import { openDatabase } from "../db/client.ts";
import { createLogger } from "../logger.ts";
import { type OptionSpec, UsageError } from "./args.ts";

// `trading-agent unlock --email E` as src/cli.ts registers it: clears a login lockout in
// DATABASE_PATH. Works while the service runs (the service reads the lock from the database on
// every login attempt).

export const unlockCommand = {
  usage: "trading-agent unlock --email EMAIL [--env-file PATH]",
  summary: "clear a login lockout (after five wrong passwords)",
  help: `Clears the lockout of the account EMAIL: after five wrong passwords the spec locks an account
for 15 minutes, whoever typed them. This lifts the lock and resets the failure counter at once.
Works while the service runs.

  --email EMAIL     the account to unlock (e.g. ADMIN_EMAIL)

Exit codes: 0 ok (also when the account was not locked), 1 unknown user or database error,
2 bad configuration or usage.`,
  options: [{ name: "email", value: true }] as OptionSpec[],
  async execute(args: {
    options: Map<string, string | true>;
    io: { out(text: string): void; err(text: string): void; env: Record<string, string | undefined> };
  }): Promise<number> {
    const { options, io } = args;
    const given = options.get("email");
    if (typeof given !== "string" || given.trim() === "") throw new UsageError("--email is required", "unlock");
    const email = given.trim().toLowerCase();
    const config = loadConfig(io.env);
    const database = openDatabase(config.DATABASE_PATH, { sync: config.DB_SYNC });
    try {
      const r = unlockAccount(database.db, email, systemClock);
      if (r.outcome === "unknown_user") {
        io.err(`error: no user with email ${email}`);
        return 1;
      }
      if (r.outcome === "unlocked") {
        const audit = new AuditLog(database.db, systemClock, createLogger({ level: config.LOG_LEVEL }));
        audit.record({ userId: r.userId, action: "auth.unlocked", actor: "cli", details: { by: "unlock" } });
      }
      io.out(r.outcome === "unlocked" ? `unlocked ${email}` : `${email} was not locked; failure count reset`);
      return 0;
    } finally {
      database.close();
    }
  },
};
