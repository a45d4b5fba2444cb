import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createApiKey, createTestContext, json, login, type TestContext } from "../helpers/context.ts";
import { parseExposition, sampleValue } from "../metrics/exposition.ts";

// POST /trading-signals, the signal bots' hot path: its answers (201, replays, conflicts, storage
// failures, refusals) with their headers, limiter hits, use counts and metrics. A request with an
// Origin header (CORS_ORIGINS unset) must be answered exactly as one without.

let ctx: TestContext;
let key: { id: string; key: string };
const MINT = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
const body = { tokenAddress: ` ${MINT} `, symbol: "BONK", signalType: "buy", signalStrength: 4, source: "bot" };
const THROUGH_CHAIN = { origin: "https://elsewhere.example" };

beforeEach(async () => {
  ctx = await createTestContext();
  const { token } = await login(ctx);
  key = await createApiKey(ctx, token, ["signals"]);
});
afterEach(() => ctx.close());

const post = (b: unknown, headers: Record<string, string> = {}) =>
  ctx.request("POST", "/api/v1/trading-signals", { apiKey: key.key, body: b, headers });

/** Header names and values, without those that differ by design from one request to the next. */
const headersOf = (res: Response) =>
  Object.fromEntries(
    [...res.headers].filter(([name]) => name !== "x-request-id" && name !== "ratelimit-remaining").sort(),
  );

const useCount = () =>
  (ctx.database.sqlite.query("SELECT request_count AS n FROM api_keys WHERE id = ?").get(key.id) as { n: number }).n;

const signalRows = () =>
  (ctx.database.sqlite.query("SELECT count(*) AS n FROM trading_signals").get() as { n: number }).n;

describe("POST /trading-signals", () => {
  test("a 201 is the chain's: status, headers, body (trimmed by the same schema), one limiter hit each", async () => {
    const direct = await post(body);
    const chained = await post(body, THROUGH_CHAIN);
    expect(direct.status).toBe(201);
    expect(chained.status).toBe(201);
    expect(headersOf(direct)).toEqual(headersOf(chained));
    expect(direct.headers.get("ratelimit-remaining")).toBe("119");
    expect(chained.headers.get("ratelimit-remaining")).toBe("118");
    expect(direct.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const [a, b] = [await json(direct), await json(chained)];
    expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
    expect(a.tokenAddress).toBe(MINT);
    expect({ ...a, id: 0 }).toEqual({ ...b, id: 0 });
    expect(useCount()).toBe(2);
  });

  test("concurrent signals of one key: every use counted, written once per commit", async () => {
    // A TEMP trigger belongs to the service's own connection: it counts the service's UPDATEs.
    ctx.database.sqlite.exec(`CREATE TEMP TABLE key_updates (n INTEGER NOT NULL); INSERT INTO key_updates VALUES (0);
      CREATE TEMP TRIGGER count_key_updates AFTER UPDATE OF request_count ON main.api_keys
      BEGIN UPDATE key_updates SET n = n + 1; END;`);
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(body)));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(useCount()).toBe(20);
    expect(signalRows()).toBe(20);
    const updates = (ctx.database.sqlite.query("SELECT n FROM temp.key_updates").get() as { n: number }).n;
    // Requests that arrive in one turn share a commit, and so one UPDATE.
    expect(updates).toBeGreaterThanOrEqual(1);
    expect(updates).toBeLessThan(20);
  });

  test("its log line carries the request id it answers with", async () => {
    const res = await post(body, { "x-request-id": "bot-7.abc" });
    expect(res.headers.get("x-request-id")).toBe("bot-7.abc");
    const line = ctx.logs.map((l) => JSON.parse(l)).find((l) => l.msg === "signal received");
    expect(line?.requestId).toBe("bot-7.abc");
  });

  test("is counted in http_requests_total under the chain's route label", async () => {
    await post(body);
    await post(body);
    await post(body, THROUGH_CHAIN);
    const families = parseExposition(await (await ctx.request("GET", "/metrics")).text());
    const labels = { method: "POST", status: "201", route: "/api/v1/trading-signals" };
    expect(sampleValue(families, "http_requests_total", labels)).toBe(3);
  });

  test("an Idempotency-Key replay and conflict answer as the chain does; each use is counted", async () => {
    const first = await post(body, { "idempotency-key": "k1" });
    const replay = await post(body, { "idempotency-key": "k1" });
    expect(replay.status).toBe(201);
    expect((await json(replay)).id).toBe((await json(first)).id);
    const conflict = await post({ ...body, signalStrength: 5 }, { "idempotency-key": "k1" });
    const chained = await post({ ...body, signalStrength: 5 }, { "idempotency-key": "k1", ...THROUGH_CHAIN });
    expect(conflict.status).toBe(409);
    expect(await json(conflict)).toEqual(await json(chained));
    expect(headersOf(conflict)).toEqual(headersOf(chained));
    expect(useCount()).toBe(4);
    expect(signalRows()).toBe(1);
  });

  test("a storage failure is a 500 in the spec's shape, nothing stored, the use counted, as the chain", async () => {
    ctx.database.sqlite.exec(
      "CREATE TRIGGER refuse BEFORE INSERT ON trading_signals BEGIN SELECT RAISE(ABORT, 'disk says no'); END",
    );
    const direct = await post(body);
    const chained = await post(body, THROUGH_CHAIN);
    expect(direct.status).toBe(500);
    const answer = await json(direct);
    expect(answer).toEqual({ success: false, error: "Internal server error", code: "INTERNAL_ERROR" });
    expect(answer).toEqual(await json(chained));
    expect(headersOf(direct)).toEqual(headersOf(chained));
    expect(JSON.stringify(answer)).not.toContain("disk says no");
    expect(signalRows()).toBe(0);
    expect(useCount()).toBe(2);
    expect(ctx.logs.filter((l) => JSON.parse(l).msg === "unhandled error")).toHaveLength(2);
  });

  test("a conflict whose use count cannot be written is the chain's 500", async () => {
    expect((await post(body, { "idempotency-key": "k1" })).status).toBe(201);
    ctx.database.sqlite.exec("CREATE TRIGGER refuse BEFORE UPDATE ON api_keys BEGIN SELECT RAISE(ABORT, 'no'); END");
    const other = { ...body, signalStrength: 5 };
    const direct = await post(other, { "idempotency-key": "k1" });
    const chained = await post(other, { "idempotency-key": "k1", ...THROUGH_CHAIN });
    expect(direct.status).toBe(500);
    expect(await json(direct)).toEqual(await json(chained));
    expect(headersOf(direct)).toEqual(headersOf(chained));
  });

  test("what it does not take is the chain's answer, with one limiter hit", async () => {
    const cases: Array<{ raw?: string; b?: unknown; headers?: Record<string, string>; status: number }> = [
      { raw: "{not json", status: 400 },
      { b: { ...body, signalStrength: 9 }, status: 400 },
      { b: body, headers: { "idempotency-key": "x".repeat(256) }, status: 400 },
      { b: body, headers: { "x-api-key": "svc_wrong" }, status: 401 },
      { raw: JSON.stringify(body), headers: { "content-type": "text/plain" }, status: 400 },
    ];
    let hits = 0;
    for (const c of cases) {
      const send = (extra: Record<string, string>) =>
        ctx.request("POST", "/api/v1/trading-signals", {
          apiKey: c.headers?.["x-api-key"] ? undefined : key.key,
          ...(c.raw !== undefined ? { rawBody: c.raw } : { body: c.b }),
          headers: { "content-type": "application/json", ...c.headers, ...extra },
        });
      const direct = await send({});
      const chained = await send(THROUGH_CHAIN);
      expect(direct.status, JSON.stringify(c)).toBe(c.status);
      expect(await json(direct)).toEqual(await json(chained));
      if (c.status === 400) hits += 2;
      expect(direct.headers.get("ratelimit-remaining") ?? "none").toBe(
        c.status === 400 ? String(120 - hits + 1) : "none",
      );
    }
  });
});
