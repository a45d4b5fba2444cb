import { ApiKeyService } from "./auth/api-keys.ts";
import { isScope, SCOPES, type Scope } from "./auth/scopes.ts";
import { type OptionSpec, parseArgs, UsageError } from "./cli/args.ts";
import { backtestCommand } from "./cli/backtest-command.ts";
import { mergeEnvFile } from "./cli/env-file.ts";
import { reset2faCommand } from "./cli/reset-2fa-command.ts";
import { restoreCommand } from "./cli/restore-command.ts";
import { unknownVariableWarnings } from "./cli/unknown-variables.ts";
import { unlockCommand } from "./cli/unlock-command.ts";
import { systemClock } from "./clock.ts";
import { type Config, ConfigError, loadConfig, walletVariables } from "./config.ts";
import { BackupError, backupDatabase } from "./db/backup.ts";
import { openDatabase } from "./db/client.ts";
import { applyMigrations } from "./db/migrate.ts";
import { AppError } from "./errors.ts";
import { type ServerHandle, serve } from "./server.ts";
import { versionLine } from "./version.ts";
import { LiveWalletRegistry } from "./wallets/live-wallet-registry.ts";

// The command line of PRODUCT.md §6 and §7: `trading-agent [serve] | migrate | version |
// api-key create | backup PATH | restore | backtest | unlock | reset-2fa`, each with --help. runCli returns the exit code; main.ts exits
// with it. Exit codes: 0 ok, 1 runtime failure, 2 bad configuration or usage.

const EXIT_OK = 0;
const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
}

const GLOBAL_OPTIONS: OptionSpec[] = [
  { name: "env-file", value: true },
  { name: "help", value: false, alias: "h" },
];

interface Command {
  usage: string;
  summary: string;
  help: string;
  options: OptionSpec[];
  execute(args: { positionals: string[]; options: Map<string, string | true>; io: CliIo }): Promise<number>;
}

const COMMON_HELP = `Options:
  --env-file PATH   read variables from PATH (NAME=value lines, # comments); a variable
                    already set in the environment wins over the file
  -h, --help        show this help`;

const EXIT_HELP = `Exit codes: 0 ok, 1 runtime failure, 2 bad configuration or usage.`;

const commands: Record<string, Command> = {
  serve: {
    usage: "trading-agent [serve] [--env-file PATH]",
    summary: "run the service (the default command)",
    help: `Runs the HTTP service: applies pending migrations, creates or updates the admin account from
ADMIN_EMAIL/ADMIN_PASSWORD, listens on HOST:PORT and starts the background workers.
SIGTERM or SIGINT stops it gracefully: no new connections, requests and trades in flight
finish (bounded), the database is checkpointed and closed, exit code 0.

Exit codes: 0 stopped by SIGTERM/SIGINT, 1 runtime failure (port in use, database cannot be
opened), 2 bad configuration (one "config error:" line per problem on stderr).`,
    options: [],
    execute: ({ io }) => runServe(io),
  },
  migrate: {
    usage: "trading-agent migrate [--env-file PATH]",
    summary: "apply pending database migrations and exit",
    help: `Applies the migrations embedded in this binary to DATABASE_PATH (creating the file if needed)
and prints what it applied. \`serve\` does the same at start; this is for running it on its own.

${EXIT_HELP}`,
    options: [],
    execute: async ({ io }) => {
      const config = configFrom(io);
      const database = openDatabase(config.DATABASE_PATH, { sync: config.DB_SYNC, migrate: false });
      try {
        const applied = applyMigrations(database.sqlite);
        io.out(
          applied.length === 0
            ? `database ${database.path} is up to date`
            : `applied ${applied.join(", ")} to ${database.path}`,
        );
      } finally {
        database.close();
      }
      return EXIT_OK;
    },
  },
  version: {
    usage: "trading-agent version",
    summary: "print the version and exit",
    help: `Prints the version, the build's commit, the Bun runtime and the platform. Reads no configuration.

${EXIT_HELP}`,
    options: [],
    execute: async ({ io }) => {
      io.out(versionLine());
      return EXIT_OK;
    },
  },
  "api-key create": {
    usage: "trading-agent api-key create --email EMAIL --name NAME --scopes SCOPE[,SCOPE...] [--env-file PATH]",
    summary: "create an API key for a user and print it once",
    help: `Creates an API key for the existing user EMAIL, for headless set-ups (a signal bot without
logging in first). The key is printed once, alone on stdout, so \`KEY=$(trading-agent api-key create ...)\`
captures it; only its SHA-256 digest is stored. Works while the service runs.

  --email EMAIL     the user who owns the key (e.g. ADMIN_EMAIL)
  --name NAME       the key's name, unique per user
  --scopes LIST     comma-separated: ${SCOPES.join(", ")}

${EXIT_HELP} Unknown user or a name already used: 1.`,
    options: [
      { name: "email", value: true },
      { name: "name", value: true },
      { name: "scopes", value: true },
    ],
    execute: async ({ options, io }) => {
      const cmd = "api-key create";
      const email = requiredOption(options, "email", cmd);
      const name = requiredOption(options, "name", cmd).trim();
      if (name === "" || name.length > 255) throw new UsageError("--name must be 1 to 255 characters", cmd);
      const scopes = requiredOption(options, "scopes", cmd)
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      if (scopes.length === 0) throw new UsageError("--scopes needs at least one scope", cmd);
      const unknown = scopes.filter((s) => !isScope(s));
      if (unknown.length > 0)
        throw new UsageError(`unknown scope ${unknown.join(", ")}; allowed: ${SCOPES.join(", ")}`, cmd);

      const config = configFrom(io);
      const database = openDatabase(config.DATABASE_PATH, { sync: config.DB_SYNC });
      try {
        const apiKeys = new ApiKeyService(database, systemClock);
        const userId = apiKeys.userIdByEmail(email);
        if (!userId) {
          io.err(`error: no user with email ${email}`);
          return EXIT_FAILURE;
        }
        const created = apiKeys.create(userId, name, scopes as Scope[]);
        io.out(created.key);
        io.err(
          `created API key "${created.name}" (id ${created.id}, prefix ${created.prefix}, scopes ${created.scopes.join(",")}) for ${email}; it is shown only this once`,
        );
        return EXIT_OK;
      } finally {
        database.close();
      }
    },
  },
  backtest: backtestCommand,
  unlock: unlockCommand,
  "reset-2fa": reset2faCommand,
  restore: restoreCommand,
  backup: {
    usage: "trading-agent backup PATH [--force] [--env-file PATH]",
    summary: "write a consistent copy of the database to PATH",
    help: `Writes a consistent copy of the database at DATABASE_PATH to PATH with SQLite's VACUUM INTO,
safe while the service is running and writing. The copy is checked with integrity_check before
it is moved into place. Restore: stop the service, replace the database file with the copy
(and remove its -wal/-shm files), start it again.

  --force           replace PATH if it exists

${EXIT_HELP}`,
    options: [{ name: "force", value: false }],
    execute: async ({ positionals, options, io }) => {
      if (positionals.length !== 1)
        throw new UsageError(
          positionals.length === 0 ? "backup needs a destination PATH" : "backup takes one PATH",
          "backup",
        );
      const config = configFrom(io);
      try {
        const r = backupDatabase(config.DATABASE_PATH, positionals[0]!, { force: options.get("force") === true });
        io.out(`backup written to ${r.path} (${r.bytes} bytes, ${r.tables} tables, integrity ok)`);
        return EXIT_OK;
      } catch (err) {
        if (err instanceof BackupError) {
          io.err(`error: ${err.message}`);
          return EXIT_FAILURE;
        }
        throw err;
      }
    },
  },
};

function mainHelp(): string {
  const width = 16;
  const list = [
    ["serve", commands.serve!.summary],
    ["migrate", commands.migrate!.summary],
    ["version", commands.version!.summary],
    ["api-key create", commands["api-key create"]!.summary],
    ["backup PATH", commands.backup!.summary],
    ["restore", commands.restore!.summary],
    ["backtest", commands.backtest!.summary],
    ["unlock", commands.unlock!.summary],
    ["reset-2fa EMAIL", commands["reset-2fa"]!.summary],
    ["help [COMMAND]", "show help for a command"],
  ];
  return `trading-agent: self-hosted trading-agent service for the Solana token market

Usage: trading-agent [COMMAND] [OPTIONS]

Commands:
${list.map(([c, s]) => `  ${c!.padEnd(width)}${s}`).join("\n")}

${COMMON_HELP}
  --version         same as the version command

Configuration comes from environment variables (README "Configuration") and, with --env-file,
from a file. The compiled binary does not read a .env file on its own.

Exit codes:
  0  ok (serve: stopped by SIGTERM or SIGINT)
  1  runtime failure (port in use, database error, unknown user, backup failed)
  2  bad configuration or usage (one line per problem on stderr)`;
}

function commandHelp(name: string): string {
  const c = commands[name]!;
  return `Usage: ${c.usage}\n\n${c.help}\n\n${COMMON_HELP}`;
}

/**
 * Finds the command words among argv (the words that are neither options nor an option's value)
 * and returns the command, the remaining arguments and whether the command was named explicitly.
 */
function resolveCommand(argv: readonly string[]): { name: string; rest: string[]; explicit: boolean } {
  const words: number[] = [];
  argv.forEach((a, i) => {
    if (!a.startsWith("-") && argv[i - 1] !== "--env-file") words.push(i);
  });
  if (words.length === 0) return { name: "serve", rest: [...argv], explicit: false };
  const first = argv[words[0]!]!;
  const take =
    first === "api-key" || first === "help" ? words.slice(0, first === "help" ? words.length : 2) : words.slice(0, 1);
  const name = take.map((i) => argv[i]!).join(" ");
  const rest = argv.filter((_, i) => !take.includes(i));
  return { name, rest, explicit: true };
}

export async function runCli(argv: readonly string[], io: CliIo = defaultIo()): Promise<number> {
  let commandName: string | undefined;
  try {
    if (argv.length === 1 && argv[0] === "--version")
      return await commands.version!.execute({ positionals: [], options: new Map(), io });
    const { name, rest, explicit } = resolveCommand(argv);
    if (name === "help" || name.startsWith("help ")) {
      const topic = name.slice(5);
      if (topic === "") io.out(mainHelp());
      else if (topic === "api-key") io.out(commandHelp("api-key create"));
      else if (commands[topic]) io.out(commandHelp(topic));
      else throw new UsageError(`unknown command ${topic}`);
      return EXIT_OK;
    }
    if (name === "api-key") {
      if (rest.includes("--help") || rest.includes("-h")) {
        io.out(commandHelp("api-key create"));
        return EXIT_OK;
      }
      throw new UsageError("api-key needs a sub-command: create", "api-key create");
    }
    const command = commands[name];
    if (!command) throw new UsageError(`unknown command ${name}`);
    commandName = name;
    const { positionals, options } = parseArgs(rest, [...GLOBAL_OPTIONS, ...command.options], name);
    if (options.get("help") === true) {
      io.out(explicit ? commandHelp(name) : mainHelp());
      return EXIT_OK;
    }
    if (name !== "backup" && name !== "reset-2fa" && positionals.length > 0)
      throw new UsageError(`unexpected argument ${positionals[0]}`, name);
    const envFile = options.get("env-file");
    const env = typeof envFile === "string" ? mergeEnvFile(envFile, io.env) : io.env;
    return await command.execute({ positionals, options, io: { ...io, env } });
  } catch (err) {
    return reportError(err, io, commandName);
  }
}

function reportError(err: unknown, io: CliIo, command: string | undefined): number {
  if (err instanceof UsageError) {
    io.err(`error: ${err.message}`);
    const about = err.command ?? command;
    io.err(`Run 'trading-agent ${about ? `${about} ` : ""}--help' for usage.`);
    return EXIT_USAGE;
  }
  if (err instanceof ConfigError) {
    for (const line of err.problems) io.err(`config error: ${line}`);
    return EXIT_USAGE;
  }
  if (err instanceof AppError) {
    io.err(`error: ${err.message}`);
    return EXIT_FAILURE;
  }
  io.err(`error: ${describe(err)}`);
  return EXIT_FAILURE;
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE") return `cannot listen: address already in use (${err.message})`;
  return err.message;
}

function configFrom(io: CliIo): Config {
  return loadConfig(io.env);
}

function requiredOption(options: Map<string, string | true>, name: string, command: string): string {
  const v = options.get(name);
  if (typeof v !== "string" || v === "") throw new UsageError(`--${name} is required`, command);
  return v;
}

async function runServe(io: CliIo): Promise<number> {
  const config = configFrom(io);
  // A typo must not pass silently (issue 34): a warning in the log, or with STRICT_CONFIG no start.
  const configWarnings = unknownVariableWarnings(io.env);
  if (config.STRICT_CONFIG && configWarnings.length > 0) {
    throw new ConfigError(configWarnings.map((w) => `${w} (STRICT_CONFIG=true)`));
  }
  // Live wallets (PRODUCT.md §5): WALLET_N parsed now; a malformed one is a ConfigError naming
  // the variable (exit 2). The raw values join the logger's scrub list, never a log line.
  const liveWallets = LiveWalletRegistry.fromEnv(io.env);
  const walletSecrets = walletVariables(io.env).map((v) => v.value);
  // Handlers go in before the listener opens, so a SIGTERM that arrives during start-up (a
  // supervisor that changed its mind) still ends in a graceful stop and exit 0.
  let first: NodeJS.Signals | undefined;
  let signalled: (signal: NodeJS.Signals) => void = () => {};
  const firstSignal = new Promise<NodeJS.Signals>((resolve) => (signalled = resolve));
  let handle: ServerHandle | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (first) {
      // A second signal while draining: the operator wants out now.
      handle?.services.logger.warn("second signal during shutdown; exiting immediately", { signal });
      process.exit(EXIT_FAILURE);
    }
    first = signal;
    signalled(signal);
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  try {
    handle = await serve(config, { services: { liveWallets, secrets: () => walletSecrets }, configWarnings });
  } catch (err) {
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
    throw err;
  }
  const signal = await firstSignal;
  try {
    await handle.stop(signal);
    return EXIT_OK;
  } catch (err) {
    handle.services.logger.error("shutdown failed", { error: err instanceof Error ? err.message : String(err) });
    return EXIT_FAILURE;
  }
}

function defaultIo(): CliIo {
  return {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    env: process.env,
  };
}
