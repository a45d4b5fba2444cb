import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { SCOPES } from "../../src/auth/scopes.ts";
import { childEnv, run, SOURCE_CLI } from "./process-helpers.ts";

// The CLI from source (`bun src/main.ts ...`) as a child process: help texts, version, usage and
// configuration errors with their exit codes (0 ok, 1 runtime failure, 2 configuration/usage),
// migrate and --env-file.

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "trading-agent-cli-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (args: string[], extra: Record<string, string> = {}) =>
  run([...SOURCE_CLI, ...args], { cwd: dir, env: childEnv(extra) });

describe("help", () => {
  test("--help lists every command, the options and the exit codes", async () => {
    const r = await cli(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toStartWith(
      "trading-agent: self-hosted trading-agent service for the Solana token market\n\nUsage: trading-agent [COMMAND] [OPTIONS]\n",
    );
    for (const line of [
      "  serve           run the service (the default command)",
      "  migrate         apply pending database migrations and exit",
      "  version         print the version and exit",
      "  api-key create  create an API key for a user and print it once",
      "  backup PATH     write a consistent copy of the database to PATH",
      "  --env-file PATH",
      "  0  ok (serve: stopped by SIGTERM or SIGINT)",
      "  1  runtime failure",
      "  2  bad configuration or usage",
    ]) {
      expect(r.stdout).toContain(line);
    }
  });

  test.each([
    [["serve", "--help"], "Usage: trading-agent [serve] [--env-file PATH]\n"],
    [["migrate", "--help"], "Usage: trading-agent migrate [--env-file PATH]\n"],
    [["version", "--help"], "Usage: trading-agent version\n"],
    [
      ["api-key", "create", "--help"],
      "Usage: trading-agent api-key create --email EMAIL --name NAME --scopes SCOPE[,SCOPE...] [--env-file PATH]\n",
    ],
    [["api-key", "--help"], "Usage: trading-agent api-key create --email EMAIL"],
    [["backup", "--help"], "Usage: trading-agent backup PATH [--force] [--env-file PATH]\n"],
    [["help", "backup"], "Usage: trading-agent backup PATH [--force] [--env-file PATH]\n"],
    [["migrate", "-h"], "Usage: trading-agent migrate [--env-file PATH]\n"],
  ])("%p prints that command's usage and exits 0", async (args, usage) => {
    const r = await cli(args);
    expect(r.code).toBe(0);
    expect(r.stdout).toStartWith(usage);
    expect(r.stdout).toContain("--env-file PATH   read variables from PATH");
    expect(r.stderr).toBe("");
  });

  test("api-key create --help lists the scopes", async () => {
    const r = await cli(["api-key", "create", "--help"]);
    expect(r.stdout).toContain(`--scopes LIST     comma-separated: ${SCOPES.join(", ")}`);
  });
});

describe("version", () => {
  const expected = `trading-agent ${pkg.version} (source; bun ${Bun.version}; ${process.platform}-${process.arch})\n`;

  test("version prints one line and reads no configuration", async () => {
    // An invalid variable does not matter to `version`.
    const r = await cli(["version"], { PORT: "not-a-port" });
    expect(r).toEqual({ code: 0, stdout: expected, stderr: "" });
  });

  test("--version is the same", async () => {
    expect(await cli(["--version"])).toEqual({ code: 0, stdout: expected, stderr: "" });
  });
});

describe("usage errors exit 2", () => {
  test.each([
    [["bogus"], "error: unknown command bogus\nRun 'trading-agent --help' for usage.\n"],
    [["migrate", "--nope"], "error: unknown option --nope\nRun 'trading-agent migrate --help' for usage.\n"],
    [["migrate", "extra"], "error: unexpected argument extra\nRun 'trading-agent migrate --help' for usage.\n"],
    [["api-key"], "error: api-key needs a sub-command: create\nRun 'trading-agent api-key create --help' for usage.\n"],
    [["api-key", "list"], "error: unknown command api-key list\nRun 'trading-agent --help' for usage.\n"],
    [["help", "nothing"], "error: unknown command nothing\nRun 'trading-agent --help' for usage.\n"],
    [
      ["migrate", "--env-file"],
      "error: option --env-file needs a value\nRun 'trading-agent migrate --help' for usage.\n",
    ],
    [["version", "--help=yes"], "error: option --help takes no value\nRun 'trading-agent version --help' for usage.\n"],
  ])("%p", async (args, stderr) => {
    const r = await cli(args);
    expect(r).toEqual({ code: 2, stdout: "", stderr });
  });
});

describe("configuration errors exit 2 with one line per problem", () => {
  test("each invalid variable is named, values are not echoed", async () => {
    const secret = "too-short-secret";
    const r = await cli(["migrate"], {
      PORT: "abc",
      DB_SYNC: "sometimes",
      JWT_SECRET: secret,
      DATABASE_PATH: join(dir, "never.db"),
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      [
        "config error: PORT: must be a whole number",
        "config error: DB_SYNC: must be normal or full",
        "config error: JWT_SECRET: must be at least 32 bytes long",
        "",
      ].join("\n"),
    );
    expect(r.stderr).not.toContain(secret);
    expect(existsSync(join(dir, "never.db"))).toBe(false);
  });

  test("serve without ADMIN_EMAIL/ADMIN_PASSWORD on an empty database exits 2", async () => {
    const env = childEnv({ DATABASE_PATH: join(dir, "no-admin.db"), PORT: "0" });
    delete env.ADMIN_EMAIL;
    delete env.ADMIN_PASSWORD;
    const r = await run([...SOURCE_CLI, "serve"], { cwd: dir, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "config error: ADMIN_EMAIL and ADMIN_PASSWORD must be set: no user exists yet, and the first start creates the admin account from them\n",
    );
  });
});

describe("migrate", () => {
  test("applies the embedded migrations once, then reports the database up to date", async () => {
    const db = join(dir, "migrate", "fresh.db");
    const first = await cli(["migrate"], { DATABASE_PATH: db });
    expect(first).toEqual({
      code: 0,
      stdout: `applied 0000_init, 0001_trading_controls, 0002_signal_token_index, 0003_copy_trading, 0004_portfolio_snapshots, 0005_unfinished_signals_index, 0006_signal_hooks, 0007_box_on_the_internet, 0008_position_exit_config to ${db}\n`,
      stderr: "",
    });
    const second = await cli(["migrate"], { DATABASE_PATH: db });
    expect(second).toEqual({ code: 0, stdout: `database ${db} is up to date\n`, stderr: "" });

    const sqlite = new Database(db, { readonly: true });
    const tables = sqlite
      .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
      .all()
      .map((t) => t.name);
    const tags = sqlite
      .query<{ tag: string }, []>("SELECT tag FROM __migrations")
      .all()
      .map((t) => t.tag);
    sqlite.close();
    expect(tables).toContain("users");
    expect(tables).toContain("api_keys");
    expect(tags).toEqual([
      "0000_init",
      "0001_trading_controls",
      "0002_signal_token_index",
      "0003_copy_trading",
      "0004_portfolio_snapshots",
      "0005_unfinished_signals_index",
      "0006_signal_hooks",
      "0007_box_on_the_internet",
      "0008_position_exit_config",
    ]);
  });

  test("a database that cannot be opened is a runtime failure (exit 1)", async () => {
    const blocker = join(dir, "a-file");
    writeFileSync(blocker, "not a directory");
    const r = await cli(["migrate"], { DATABASE_PATH: join(blocker, "trading.db") });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toStartWith("error: ");
  });
});

describe("--env-file", () => {
  test("variables come from the file; the environment wins over it", async () => {
    const fromFile = join(dir, "env-file", "from-file.db");
    const fromEnv = join(dir, "env-file", "from-env.db");
    const file = join(dir, "service.env");
    writeFileSync(file, `# comment\nexport DATABASE_PATH="${fromFile}"\nDB_SYNC=full   # inline comment\n`);

    const env = childEnv();
    const fileOnly = await run([...SOURCE_CLI, "migrate", "--env-file", file], { cwd: dir, env });
    expect(fileOnly).toEqual({
      code: 0,
      stdout: `applied 0000_init, 0001_trading_controls, 0002_signal_token_index, 0003_copy_trading, 0004_portfolio_snapshots, 0005_unfinished_signals_index, 0006_signal_hooks, 0007_box_on_the_internet, 0008_position_exit_config to ${fromFile}\n`,
      stderr: "",
    });

    const envWins = await run([...SOURCE_CLI, `--env-file=${file}`, "migrate"], {
      cwd: dir,
      env: { ...env, DATABASE_PATH: fromEnv },
    });
    expect(envWins).toEqual({
      code: 0,
      stdout: `applied 0000_init, 0001_trading_controls, 0002_signal_token_index, 0003_copy_trading, 0004_portfolio_snapshots, 0005_unfinished_signals_index, 0006_signal_hooks, 0007_box_on_the_internet, 0008_position_exit_config to ${fromEnv}\n`,
      stderr: "",
    });
  });

  test("a missing file is a configuration error", async () => {
    const missing = join(dir, "missing.env");
    const r = await cli(["migrate", "--env-file", missing]);
    expect(r).toEqual({ code: 2, stdout: "", stderr: `config error: --env-file: cannot read ${missing} (ENOENT)\n` });
  });

  test("malformed lines are named by number, never by value", async () => {
    const file = join(dir, "bad.env");
    writeFileSync(file, 'PORT=3000\nthis line has no equals sign s3cr3t\n1BAD=x\nQ="unterminated\n');
    const r = await cli(["migrate", "--env-file", file]);
    expect(r).toEqual({
      code: 2,
      stdout: "",
      stderr: [
        `config error: ${file} line 2: expected NAME=value`,
        `config error: ${file} line 3: invalid variable name`,
        `config error: ${file} line 4: Q: unterminated quote`,
        "",
      ].join("\n"),
    });
  });

  test("values from the file are validated like the environment's", async () => {
    const file = join(dir, "invalid-values.env");
    writeFileSync(file, "PORT=seventy\n");
    const r = await cli(["migrate", "--env-file", file], { DATABASE_PATH: join(dir, "unused.db") });
    expect(r).toEqual({ code: 2, stdout: "", stderr: "config error: PORT: must be a whole number\n" });
  });
});
