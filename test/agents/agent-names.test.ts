import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { applyMigrations } from "../../src/db/migrate.ts";
import { createTestContext, createUser, json, login, type TestContext } from "../helpers/context.ts";
import { createAgent } from "./fixtures.ts";

// Agent names are unique per user, ignoring letter case (PRODUCT.md §7): Telegram's /pause NAME
// and the signal decisions name agents. A database from before the unique index gets it at
// start-up, its duplicates renamed with a suffix (src/db/schema-repairs.ts).

let ctx: TestContext;
let token: string;
beforeAll(async () => {
  ctx = await createTestContext();
  token = (await login(ctx)).token;
});
afterAll(async () => {
  await ctx.close();
  rmSync(ctx.dir, { recursive: true, force: true });
});

const conflict = { success: false, error: "Agent name already exists", code: "CONFLICT" };

test("POST /agents with a name the user already has (any letter case, any padding) is 409; nothing is created", async () => {
  await createAgent(ctx, token, { name: "Momentum" });
  const before = ctx.database.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM agents").get()!.n;
  for (const name of ["Momentum", "momentum", "  MOMENTUM "]) {
    const res = await ctx.request("POST", "/api/v1/agents", { token, body: { name } });
    expect(res.status, name).toBe(409);
    expect(await json(res)).toEqual(conflict);
  }
  const after = ctx.database.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM agents").get()!.n;
  expect(after).toBe(before);
  // Nor a wallet or a balance for the refused agent.
  const orphans = ctx.database.sqlite
    .query<{ n: number }, []>("SELECT count(*) AS n FROM agent_wallets WHERE agent_id NOT IN (SELECT id FROM agents)")
    .get()!.n;
  expect(orphans).toBe(0);
});

test("PUT /agents/:id renaming onto another agent's name is 409; its own name (another case) is fine", async () => {
  const a = await createAgent(ctx, token, { name: "Scalper" });
  await createAgent(ctx, token, { name: "Sniper" });
  const taken = await ctx.request("PUT", `/api/v1/agents/${a.id}`, { token, body: { name: "sniper" } });
  expect(taken.status).toBe(409);
  expect(await json(taken)).toEqual(conflict);
  const same = await ctx.request("PUT", `/api/v1/agents/${a.id}`, { token, body: { name: "SCALPER" } });
  expect(same.status).toBe(200);
  expect((await json(same)).name).toBe("SCALPER");
});

test("another user may use the same name", async () => {
  const other = await createUser(ctx);
  const res = await ctx.request("POST", "/api/v1/agents", { token: other.token, body: { name: "Momentum" } });
  expect(res.status).toBe(201);
});

test("a database from before the index: duplicates get ' (2)', ' (3)' (the oldest keeps its name), then the index holds", () => {
  const db = new Database(join(ctx.dir, "old.db"), { strict: true });
  try {
    applyMigrations(db);
    db.exec("DROP INDEX agents_user_name_uq");
    db.exec(
      "INSERT INTO users (id, email, password_hash, is_admin, is_active, failed_login_attempts, created_at, updated_at) VALUES ('u1', 'a@x', 'h', 0, 1, 0, 't', 't'), ('u2', 'b@x', 'h', 0, 1, 0, 't', 't')",
    );
    const insert = db.query<unknown, [string, string, string, string]>(
      "INSERT INTO agents (id, user_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?4)",
    );
    insert.run("a1", "u1", "Bot", "2026-01-01T00:00:00.000Z");
    insert.run("a2", "u1", "bot", "2026-01-02T00:00:00.000Z");
    insert.run("a3", "u1", "Bot (2)", "2026-01-03T00:00:00.000Z");
    insert.run("a4", "u1", "BOT", "2026-01-04T00:00:00.000Z");
    insert.run("a5", "u2", "Bot", "2026-01-01T00:00:00.000Z");

    expect(applyMigrations(db)).toEqual([]);
    const names = db.query<{ id: string; name: string }, []>("SELECT id, name FROM agents ORDER BY id").all();
    expect(names).toEqual([
      { id: "a1", name: "Bot" },
      { id: "a2", name: "bot (3)" },
      { id: "a3", name: "Bot (2)" },
      { id: "a4", name: "BOT (4)" },
      { id: "a5", name: "Bot" },
    ]);
    expect(() => insert.run("a6", "u1", "bOt", "2026-01-05T00:00:00.000Z")).toThrow(/UNIQUE/);
    // Idempotent: a second start renames nothing.
    applyMigrations(db);
    expect(db.query<{ name: string }, []>("SELECT name FROM agents WHERE id = 'a2'").get()!.name).toBe("bot (3)");
  } finally {
    db.close();
  }
});
