import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createApiKey, createTestContext, createUser, json, type TestContext } from "../helpers/context.ts";

// docs/decisions.md "Performance": verified API keys are remembered by digest while the
// credential stamp (src/db/repositories/credential-writes.ts) holds. Whatever changes a key or its
// owner — the API, raw SQL on the service's own connection, another connection, another process —
// must be seen by the very next request; the per-request use count must stay exact.

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof createUser>>;
let key: Awaited<ReturnType<typeof createApiKey>>;
beforeEach(async () => {
  ctx = await createTestContext();
  owner = await createUser(ctx);
  key = await createApiKey(ctx, owner.token, ["agents", "signals"]);
});
afterEach(() => ctx.close());

const read = () => ctx.request("GET", "/api/v1/agents", { apiKey: key.key });
const post = () =>
  ctx.request("POST", "/api/v1/trading-signals", {
    apiKey: key.key,
    body: { tokenAddress: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263", signalType: "buy", signalStrength: 3 },
  });
const errorOf = async (res: Response) => ({ status: res.status, error: (await json(res)).error });
const INVALID = { status: 401, error: "Invalid API key" };

/** Accepted, and now remembered: the next request is answered from the cache. */
async function remembered() {
  expect((await read()).status).toBe(200);
  expect((await read()).status).toBe(200);
  expect(ctx.services.apiKeys.verifiedSize).toBeGreaterThan(0);
}

/** Runs SQL against the database file from another connection of this process. */
function otherConnection(sql: string, ...params: string[]) {
  const other = new Database(ctx.config.DATABASE_PATH);
  other.exec("PRAGMA busy_timeout = 5000");
  other.query(sql).run(...params);
  other.close();
}

describe("a remembered API key", () => {
  test("deleted through the API: refused on the next request", async () => {
    await remembered();
    expect((await ctx.request("DELETE", `/api/v1/api-keys/${key.id}`, { token: owner.token })).status).toBe(200);
    expect(await errorOf(await read())).toEqual(INVALID);
    expect(await errorOf(await post())).toEqual(INVALID);
  });

  test("deleted by another connection: refused on the next request", async () => {
    await remembered();
    otherConnection("DELETE FROM api_keys WHERE id = ?", key.id);
    expect(await errorOf(await read())).toEqual(INVALID);
  });

  test("deleted by another process: refused on the next request", async () => {
    await remembered();
    const script = `
      const { Database } = require("bun:sqlite");
      const db = new Database(process.argv[1]);
      db.exec("PRAGMA busy_timeout = 5000");
      db.query("DELETE FROM api_keys WHERE id = ?").run(process.argv[2]);
      db.close();`;
    const child = Bun.spawnSync([process.execPath, "-e", script, ctx.config.DATABASE_PATH, key.id]);
    expect(child.exitCode).toBe(0);
    expect(await errorOf(await post())).toEqual(INVALID);
  });

  test("its scopes narrowed on the service's own connection: the next request is judged by the new scopes", async () => {
    await remembered();
    ctx.database.sqlite.query(`UPDATE api_keys SET scopes = '["signals"]' WHERE id = ?`).run(key.id);
    expect(await errorOf(await read())).toEqual({ status: 403, error: "API key missing required scope: agents" });
    expect((await post()).status).toBe(201);
  });

  test("its owner deactivated by another connection: refused on the next request", async () => {
    await remembered();
    otherConnection("UPDATE users SET is_active = 0 WHERE id = ?", owner.user.id);
    expect(await errorOf(await read())).toEqual(INVALID);
  });

  test("its owner deleted on the service's own connection (the key goes by cascade): refused", async () => {
    await remembered();
    ctx.database.sqlite.query("DELETE FROM users WHERE id = ?").run(owner.user.id);
    expect(await errorOf(await read())).toEqual(INVALID);
  });

  test("a reactivated owner's key is accepted again (a refusal is never remembered)", async () => {
    await remembered();
    ctx.database.sqlite.query("UPDATE users SET is_active = 0 WHERE id = ?").run(owner.user.id);
    expect(await errorOf(await read())).toEqual(INVALID);
    ctx.database.sqlite.query("UPDATE users SET is_active = 1 WHERE id = ?").run(owner.user.id);
    expect((await read()).status).toBe(200);
  });

  test("every request is still counted, whether answered from the cache or not", async () => {
    for (let i = 0; i < 3; i++) expect((await read()).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await post()).status).toBe(201);
    const row = ctx.database.sqlite
      .query<{ n: number }, [string]>("SELECT request_count AS n FROM api_keys WHERE id = ?")
      .get(key.id);
    expect(row?.n).toBe(7);
  });
});
