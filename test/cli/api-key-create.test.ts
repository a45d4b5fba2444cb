import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { SCOPES } from "../../src/auth/scopes.ts";
import { ADMIN_EMAIL, createTestContext, type TestContext } from "../helpers/context.ts";
import { childEnv, run, SOURCE_CLI } from "./process-helpers.ts";

// `trading-agent api-key create` (PRODUCT.md §6): the key is printed once, alone on stdout; only
// its digest is stored; usage errors exit 2, an unknown user or a taken name exit 1.

let ctx: TestContext;
let dir: string;
beforeAll(async () => {
  ctx = await createTestContext();
  dir = ctx.dir;
});
afterAll(async () => {
  await ctx.close();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[]) =>
  run([...SOURCE_CLI, "api-key", "create", ...args], {
    cwd: dir,
    env: childEnv({ DATABASE_PATH: ctx.config.DATABASE_PATH }),
  });

test("creates a key for the user, prints it once on stdout and stores only its digest", async () => {
  const r = await cli(["--email", ADMIN_EMAIL, "--name", "signal-bot", "--scopes", "signals,agents"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^svc_[A-Za-z0-9]{32}\n$/);
  const key = r.stdout.trim();
  expect(r.stderr).toMatch(
    new RegExp(
      `^created API key "signal-bot" \\(id [0-9a-f-]{36}, prefix ${key.slice(0, 8)}, scopes signals,agents\\) for ${ADMIN_EMAIL}; it is shown only this once\\n$`,
    ),
  );
  expect(r.stderr).not.toContain(key);

  // The running service (here: the test context on the same file) accepts the key.
  const verified = ctx.services.apiKeys.verify(key, "signals");
  const admin = ctx.services.apiKeys.userIdByEmail(ADMIN_EMAIL);
  expect(verified.userId).toBe(admin!);
  expect(verified.scopes).toEqual(["signals", "agents"]);
  const stored = ctx.database.sqlite
    .query<{ key_hash: string }, [string]>("SELECT key_hash FROM api_keys WHERE name = ?")
    .get("signal-bot");
  expect(stored!.key_hash).toBe(new Bun.CryptoHasher("sha256").update(key).digest("hex"));
  expect(JSON.stringify(ctx.database.sqlite.query("SELECT * FROM api_keys").all())).not.toContain(key);
});

test("--opt=value form and scope spacing are accepted", async () => {
  const r = await cli([`--email=${ADMIN_EMAIL}`, "--name=full", "--scopes= full_access "]);
  expect(r.code).toBe(0);
  expect(ctx.services.apiKeys.verify(r.stdout.trim(), "positions").scopes).toEqual(["full_access"]);
});

test.each([
  [["--name", "n", "--scopes", "signals"], "error: --email is required"],
  [["--email", ADMIN_EMAIL, "--scopes", "signals"], "error: --name is required"],
  [["--email", ADMIN_EMAIL, "--name", "n"], "error: --scopes is required"],
  [["--email", ADMIN_EMAIL, "--name", "n", "--scopes", ","], "error: --scopes needs at least one scope"],
  [["--email", ADMIN_EMAIL, "--name", "   ", "--scopes", "signals"], "error: --name must be 1 to 255 characters"],
  [
    ["--email", ADMIN_EMAIL, "--name", "n", "--scopes", "signals,trade,admin"],
    `error: unknown scope trade, admin; allowed: ${SCOPES.join(", ")}`,
  ],
  [["--email", ADMIN_EMAIL, "--name", "n", "--scopes", "signals", "--force"], "error: unknown option --force"],
])("usage error %p exits 2", async (args, message) => {
  const r = await cli(args);
  expect(r).toEqual({
    code: 2,
    stdout: "",
    stderr: `${message}\nRun 'trading-agent api-key create --help' for usage.\n`,
  });
});

test("an unknown user exits 1", async () => {
  const r = await cli(["--email", "nobody@example.com", "--name", "n", "--scopes", "signals"]);
  expect(r).toEqual({ code: 1, stdout: "", stderr: "error: no user with email nobody@example.com\n" });
});

test("a name the user already has exits 1", async () => {
  const first = await cli(["--email", ADMIN_EMAIL, "--name", "twice", "--scopes", "signals"]);
  expect(first.code).toBe(0);
  const second = await cli(["--email", ADMIN_EMAIL, "--name", "twice", "--scopes", "signals"]);
  expect(second).toEqual({ code: 1, stdout: "", stderr: "error: API key name already exists\n" });
});
