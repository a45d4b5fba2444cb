import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { ADMIN_EMAIL, ADMIN_PASSWORD, createTestContext, type TestContext } from "../helpers/context.ts";
import { childEnv, ROOT, run, SOURCE_CLI } from "./process-helpers.ts";

// `trading-agent unlock --email E` (PRODUCT.md §7): the operator lifts the spec's 15-minute
// login lockout at once, while the service (here: the test context on the same file) runs.

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx.close();
  rmSync(ctx.dir, { recursive: true, force: true });
});

const login = (password: string) =>
  ctx.request("POST", "/api/v1/auth/login", { body: { email: ADMIN_EMAIL, password } });
const env = () => childEnv({ DATABASE_PATH: ctx.config.DATABASE_PATH });

async function lockAdmin(): Promise<void> {
  for (let i = 1; i <= 4; i++) expect((await login("wrong-password")).status).toBe(401);
  expect((await login("wrong-password")).status).toBe(423);
  expect((await login(ADMIN_PASSWORD)).status).toBe(423);
}

test("unlock clears the lockout: the right password works at once, and the counter starts again", async () => {
  await lockAdmin();
  const r = await run([...SOURCE_CLI, "unlock", "--email", ` ${ADMIN_EMAIL.toUpperCase()} `], {
    cwd: ctx.dir,
    env: env(),
  });
  expect(r).toEqual({ code: 0, stdout: `unlocked ${ADMIN_EMAIL}\n`, stderr: "" });
  expect((await login(ADMIN_PASSWORD)).status).toBe(200);
  // Four wrong passwords after the unlock are not a lock: the counter was reset.
  for (let i = 1; i <= 4; i++) expect((await login("wrong-password")).status).toBe(401);
  expect((await login(ADMIN_PASSWORD)).status).toBe(200);
});

test("`npm run cli -- unlock` runs the same command from the source tree", async () => {
  await lockAdmin();
  const r = await run(["npm", "run", "--silent", "cli", "--", "unlock", "--email", ADMIN_EMAIL], {
    cwd: ROOT,
    env: env(),
  });
  expect(r).toMatchObject({ code: 0, stdout: `unlocked ${ADMIN_EMAIL}\n` });
  expect((await login(ADMIN_PASSWORD)).status).toBe(200);
});

test("an account that is not locked: exit 0 and says so; an unknown user exits 1; no --email exits 2", async () => {
  const notLocked = await run([...SOURCE_CLI, "unlock", "--email", ADMIN_EMAIL], { cwd: ctx.dir, env: env() });
  expect(notLocked).toEqual({ code: 0, stdout: `${ADMIN_EMAIL} was not locked; failure count reset\n`, stderr: "" });
  const unknown = await run([...SOURCE_CLI, "unlock", "--email", "nobody@example.com"], { cwd: ctx.dir, env: env() });
  expect(unknown).toEqual({ code: 1, stdout: "", stderr: "error: no user with email nobody@example.com\n" });
  const usage = await run([...SOURCE_CLI, "unlock"], { cwd: ctx.dir, env: env() });
  expect(usage).toEqual({
    code: 2,
    stdout: "",
    stderr: "error: --email is required\nRun 'trading-agent unlock --help' for usage.\n",
  });
});

test("the main help lists unlock", async () => {
  const r = await run([...SOURCE_CLI, "--help"], { cwd: ctx.dir, env: env() });
  expect(r.stdout).toContain("  unlock          clear a login lockout (after five wrong passwords)\n");
});
