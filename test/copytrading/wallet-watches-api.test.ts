import { describe, expect, test } from "bun:test";
import {
  contextsClosedAfterEach,
  createApiKey,
  createUser,
  json,
  login,
  type TestContext,
} from "../helpers/context.ts";

// /api/v1/wallet-watches (issue "Copy trading" item 1): fields and defaults, validation in the
// spec's error shape, limits and ownership. The credential checks of every route are the generated
// test/http/route-security.test.ts's (the routes are declared with auth.scoped("signals")).

const context = contextsClosedAfterEach();
const ADDRESS = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";
const OTHER = "DemoCopyAnt11111111111111111111111111111111";

let ctx: TestContext;
let token: string;

async function setup(env: Record<string, string> = {}) {
  ctx = await context(env);
  token = (await login(ctx)).token;
}
const req = (method: string, path: string, body?: unknown, t = token) => ctx.request(method, path, { token: t, body });

describe("wallet watches API", () => {
  test("create with defaults, list, get, update, delete", async () => {
    await setup();
    const res = await req("POST", "/api/v1/wallet-watches", { address: ADDRESS });
    expect(res.status).toBe(201);
    const w = await json(res);
    expect(w).toEqual({
      id: expect.any(String),
      address: ADDRESS,
      label: "",
      minSolAmount: 0.1,
      signalStrength: 3,
      copySells: false,
      enabled: true,
      maxSolPerTrade: 0.1,
      maxOpenPositions: 1,
      dailySolBudget: 0.5,
      lastSeenSignature: null,
      lastError: null,
      lagSeconds: null,
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
    });
    expect(await json(await req("GET", "/api/v1/wallet-watches"))).toEqual([w]);
    expect(await json(await req("GET", `/api/v1/wallet-watches/${w.id}`))).toEqual(w);

    ctx.clock.advance(1_000);
    const up = await req("PUT", `/api/v1/wallet-watches/${w.id}`, {
      label: "Sniper",
      minSolAmount: 0.25,
      signalStrength: 5,
      copySells: true,
      enabled: false,
    });
    expect(up.status).toBe(200);
    expect(await json(up)).toMatchObject({
      label: "Sniper",
      minSolAmount: 0.25,
      signalStrength: 5,
      copySells: true,
      enabled: false,
      updatedAt: "2026-01-01T00:00:01.000Z",
    });

    expect(await json(await req("DELETE", `/api/v1/wallet-watches/${w.id}`))).toEqual({ success: true });
    const gone = await req("GET", `/api/v1/wallet-watches/${w.id}`);
    expect(gone.status).toBe(404);
    expect((await json(gone)).error).toBe("Wallet watch not found");
  });

  test.each([
    [{}, "address is required"],
    [{ address: "not-a-key" }, "address must be a base58 Solana public key (32 bytes)"],
    [
      { address: "0x52908400098527886E0F7030069857D2E4169EE7" },
      "address must be a base58 Solana public key (32 bytes)",
    ],
    [{ address: ADDRESS, label: "x".repeat(101) }, "label must be at most 100 characters"],
    [{ address: ADDRESS, minSolAmount: 0 }, "minSolAmount must be greater than 0"],
    [{ address: ADDRESS, minSolAmount: "1" }, "minSolAmount must be a number"],
    [{ address: ADDRESS, signalStrength: 6 }, "Signal strength must be between 1 and 5"],
    [{ address: ADDRESS, signalStrength: 2.5 }, "Signal strength must be between 1 and 5"],
    [{ address: ADDRESS, copySells: "yes" }, "copySells must be true or false"],
    [{ address: ADDRESS, extra: 1 }, expect.stringContaining("extra")],
  ])("POST %j → 400", async (body, error) => {
    await setup();
    const res = await req("POST", "/api/v1/wallet-watches", body);
    expect(res.status).toBe(400);
    const b = await json(res);
    expect(b).toMatchObject({ success: false, code: "VALIDATION_ERROR", error });
  });

  test("PUT validation, an empty body, a malformed id", async () => {
    await setup();
    const w = await json(await req("POST", "/api/v1/wallet-watches", { address: ADDRESS }));
    const empty = await req("PUT", `/api/v1/wallet-watches/${w.id}`, {});
    expect(empty.status).toBe(400);
    expect((await json(empty)).error).toStartWith("At least one field must be provided");
    const bad = await req("PUT", `/api/v1/wallet-watches/${w.id}`, { signalStrength: 0 });
    expect((await json(bad)).error).toBe("Signal strength must be between 1 and 5");
    const badId = await req("GET", "/api/v1/wallet-watches/nope");
    expect(badId.status).toBe(400);
    expect((await json(badId)).error).toBe("Invalid wallet watch ID format");
  });

  test("one watch per address (409) and at most WALLET_WATCH_MAX per user (409)", async () => {
    await setup({ WALLET_WATCH_MAX: "2" });
    expect((await req("POST", "/api/v1/wallet-watches", { address: ADDRESS })).status).toBe(201);
    const dup = await req("POST", "/api/v1/wallet-watches", { address: ADDRESS });
    expect(dup.status).toBe(409);
    expect((await json(dup)).error).toBe("This wallet is already watched");
    const second = await json(await req("POST", "/api/v1/wallet-watches", { address: OTHER }));
    const third = await req("POST", "/api/v1/wallet-watches", {
      address: "So11111111111111111111111111111111111111112",
    });
    expect(third.status).toBe(409);
    expect((await json(third)).error).toBe("At most 2 wallet watches per user (WALLET_WATCH_MAX)");
    const moved = await req("PUT", `/api/v1/wallet-watches/${second.id}`, { address: ADDRESS });
    expect(moved.status).toBe(409);
    // Another user has their own allowance and may follow the same wallet.
    const other = await createUser(ctx);
    expect((await req("POST", "/api/v1/wallet-watches", { address: ADDRESS }, other.token)).status).toBe(201);
  });

  test("another user's watch is 404 on every route; an API key with the signals scope may use them all", async () => {
    await setup();
    const other = await createUser(ctx);
    const theirs = await json(await req("POST", "/api/v1/wallet-watches", { address: ADDRESS }, other.token));
    for (const [method, path, body] of [
      ["GET", `/api/v1/wallet-watches/${theirs.id}`],
      ["PUT", `/api/v1/wallet-watches/${theirs.id}`, { enabled: false }],
      ["DELETE", `/api/v1/wallet-watches/${theirs.id}`],
      ["GET", `/api/v1/wallet-watches/${theirs.id}/trades`],
    ] as const) {
      const res = await req(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect(await json(await req("GET", "/api/v1/wallet-watches"))).toEqual([]);

    const key = (await createApiKey(ctx, token, ["signals"])).key;
    const made = await ctx.request("POST", "/api/v1/wallet-watches", { apiKey: key, body: { address: OTHER } });
    expect(made.status).toBe(201);
    const id = (await json(made)).id;
    expect(
      (await ctx.request("PUT", `/api/v1/wallet-watches/${id}`, { apiKey: key, body: { label: "k" } })).status,
    ).toBe(200);
    expect((await ctx.request("DELETE", `/api/v1/wallet-watches/${id}`, { apiKey: key })).status).toBe(200);
  });

  test("the OpenAPI document covers every operation", async () => {
    await setup();
    const doc = await json(await ctx.request("GET", "/api/v1/openapi.json"));
    expect(Object.keys(doc.paths["/api/v1/wallet-watches"]).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/api/v1/wallet-watches/{id}"]).sort()).toEqual(["delete", "get", "put"]);
    expect(doc.paths["/api/v1/wallet-watches/{id}/trades"].get.operationId).toBe("listWalletWatchTrades");
  });
});
