import { afterAll, beforeAll, expect, test } from "bun:test";
import { createApiKey, createTestContext, json, login, type TestContext } from "../helpers/context.ts";

// src/http/request-validators.ts checks a route's query, path parameters and headers in place of
// @hono/zod-openapi's validators (issue 35, ingest): the OpenAPI document must still describe
// them, a header is read whatever its spelling, and a bad value is the spec's 400.

type Json = Record<string, any>;
let ctx: TestContext;
let doc: Json;
let token: string;
let key: string;
const MINT = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
const signal = { tokenAddress: MINT, signalType: "buy", signalStrength: 3 };

beforeAll(async () => {
  ctx = await createTestContext();
  doc = await json(await ctx.request("GET", "/api/v1/openapi.json"));
  token = (await login(ctx)).token;
  key = (await createApiKey(ctx, token, ["signals"])).key;
});
afterAll(() => ctx.close());

const parameters = (path: string, method: string) =>
  ((doc.paths[path]?.[method]?.parameters ?? []) as Json[]).map((p) => `${p.in}:${p.name}`).sort();

test("the document still lists the header, query and path parameters the routes check", () => {
  expect(parameters("/api/v1/trading-signals", "post")).toEqual(["header:idempotency-key"]);
  expect(parameters("/api/v1/events", "get")).toEqual(
    expect.arrayContaining(["header:last-event-id", "query:access_token"]),
  );
  expect(parameters("/api/v1/trading-signals/{id}", "get")).toEqual(["path:id"]);
  expect(parameters("/api/v1/trading-signals", "get")).toContain("query:limit");
});

test("a header is read whatever its spelling; a bad one is the spec's 400", async () => {
  const post = (headers: Record<string, string>) =>
    ctx.request("POST", "/api/v1/trading-signals", { apiKey: key, body: signal, headers });
  const first = await post({ "IDEMPOTENCY-KEY": "spelled-1" });
  const again = await post({ "idempotency-key": "spelled-1" });
  expect(first.status).toBe(201);
  expect((await json(again)).id).toBe((await json(first)).id);
  const long = await post({ "Idempotency-Key": "x".repeat(256) });
  expect(long.status).toBe(400);
  expect(await json(long)).toMatchObject({ success: false, error: "Idempotency-Key must be at most 255 characters" });
});

test("query and path values: the same values and the same 400s", async () => {
  const list = await ctx.request("GET", "/api/v1/trading-signals?limit=1&offset=0", { token });
  expect(list.status).toBe(200);
  expect((await json(list)) as unknown[]).toHaveLength(1);
  const badQuery = await ctx.request("GET", "/api/v1/trading-signals?limit=", { token });
  expect(badQuery.status).toBe(400);
  expect((await json(badQuery)).error).toContain("limit");
  const badPath = await ctx.request("GET", "/api/v1/trading-signals/not-a-number", { token });
  expect(badPath.status).toBe(400);
  expect((await json(badPath)).success).toBe(false);
});
