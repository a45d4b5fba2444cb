import { AuditLog } from "../audit/audit-log.ts";
import { systemClock } from "../clock.ts";
import { loadConfig } from "../config.ts";
import { openDatabase } from "../db/client.ts";
import { findLitestream } from "../db/replication/litestream-binary.ts";
import { parseReplicaUrl } from "../db/replication/replica-url.ts";
import { RestoreError, restoreDatabase } from "../db/replication/restore.ts";
import { UserRepository } from "../db/repositories/users.ts";
import { createLogger } from "../logger.ts";
import { type OptionSpec, UsageError } from "./args.ts";

// `trading-agent restore` as src/cli.ts registers it (docs/backups.md "Restore"): the database
// back from its Litestream replica, onto this machine or a new one.

export const restoreCommand = {
  usage: "trading-agent restore --from REPLICA_URL [--to DATABASE_PATH] [--timestamp ISO] [--force] [--env-file PATH]",
  summary: "restore the database from its replica (REPLICA_URL)",
  help: `Fetches the latest copy of the database from its Litestream replica (or the copy as it was at
--timestamp), checks it with integrity_check, puts it at DATABASE_PATH and prints what it holds.
The next start of the service asks the chain about every live swap left pending or unknown
before it opens the API. Refuses a database that a running process has open (stop the service
first) and an existing file unless --force (which keeps it beside as NAME.before-restore).
Every account's audit log gets a database.restored entry naming the replica and the time.
An s3:// replica takes REPLICA_S3_ENDPOINT and AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_REGION
from the environment or --env-file, as the service does.

  --from URL        the replica: s3://BUCKET/PATH, sftp://USER@HOST/PATH or file:///DIR
                    (default: REPLICA_URL)
  --to PATH         the database file to write (default: DATABASE_PATH)
  --timestamp ISO   the copy as it was then, e.g. 2026-01-31T12:00:00Z (default: the latest)
  --force           replace an existing database that no process has open

Exit codes: 0 restored, 1 nothing to restore, the replica unreachable, a live database or a
failed check, 2 bad configuration or usage.`,
  options: [
    { name: "from", value: true },
    { name: "to", value: true },
    { name: "timestamp", value: true },
    { name: "force", value: false },
  ] as OptionSpec[],
  async execute(args: {
    options: Map<string, string | true>;
    io: { out(text: string): void; err(text: string): void; env: Record<string, string | undefined> };
  }): Promise<number> {
    const { options, io } = args;
    const config = loadConfig(io.env);
    const text = stringOption(options, "from") ?? config.REPLICA_URL;
    if (!text) throw new UsageError("--from REPLICA_URL is required (REPLICA_URL is not set)", "restore");
    const replica = parseReplicaUrl(text);
    if ("error" in replica) throw new UsageError(`--from ${replica.error}`, "restore");
    const to = stringOption(options, "to") ?? config.DATABASE_PATH;
    if (to === ":memory:") throw new UsageError("--to must be a file (DATABASE_PATH is :memory:)", "restore");
    const binary = findLitestream({ LITESTREAM_BIN: config.LITESTREAM_BIN, PATH: io.env.PATH });
    if (!binary) {
      io.err("error: the Litestream binary was not found: install it (docs/backups.md) or set LITESTREAM_BIN");
      return 1;
    }
    const env: Record<string, string> = { PATH: io.env.PATH ?? "/usr/bin:/bin" };
    if (io.env.HOME) env.HOME = io.env.HOME;
    for (const k of ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"] as const) {
      const v = config[k];
      if (v) env[k] = v;
    }
    try {
      const r = await restoreDatabase({
        replica,
        to,
        timestamp: stringOption(options, "timestamp"),
        force: options.get("force") === true,
        binary,
        env,
        s3Endpoint: config.REPLICA_S3_ENDPOINT || undefined,
        region: config.AWS_REGION,
      });
      io.out(`restored ${r.path} from ${replica.display} (integrity ok)`);
      io.out(`  last transaction:     ${r.lastTransactionAt ?? "none"}`);
      io.out(`  agents:               ${r.agents}`);
      io.out(`  positions:            ${r.positions.open} open, ${r.positions.total} in all`);
      io.out(
        `  live journal entries: ${r.liveJournal.total} (${r.liveJournal.unresolved} pending or unknown: the next start asks the chain before it opens the API)`,
      );
      if (r.replaced) io.out(`  the database it replaced: ${r.replaced}`);
      const noted = auditRestore(r.path, { replica: replica.display, timestamp: r.timestamp }, r.lastTransactionAt);
      if (noted !== null) io.err(`warning: the restore is done, but its audit entry could not be written: ${noted}`);
      return 0;
    } catch (err) {
      if (err instanceof RestoreError) {
        io.err(`error: ${err.message}`);
        return 1;
      }
      throw err;
    }
  },
};

/**
 * Writes `database.restored` into the restored database's audit log, one entry per account: each
 * owner reading their log learns that the books were replaced, from which replica (without
 * credentials) and as of when (docs/decisions/box-on-the-internet.md). Opening the file applies
 * the migrations the next start would. The restore stands if this fails: the reason is answered.
 */
function auditRestore(
  path: string,
  what: { replica: string; timestamp: string | null },
  lastTransactionAt: string | null,
): string | null {
  try {
    const database = openDatabase(path);
    try {
      const audit = new AuditLog(database.db, systemClock, createLogger({ level: "silent" }));
      for (const userId of new UserRepository(database.db).allIds())
        audit.record({
          userId,
          action: "database.restored",
          actor: "cli",
          target: what.replica,
          details: { ...what, lastTransactionAt },
        });
      return null;
    } finally {
      database.close();
      // Drizzle's prepared statements keep a closed connection, and its -wal and -shm beside the
      // file, until they are collected; finalizing them leaves the restored file standing alone.
      database.sqlite.close(true);
    }
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

function stringOption(options: Map<string, string | true>, name: string): string | undefined {
  const v = options.get(name);
  if (v === true) throw new UsageError(`--${name} needs a value`, "restore");
  return v === undefined || v === "" ? undefined : v;
}
