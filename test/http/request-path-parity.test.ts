import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ACCESS_TTL_S } from "../../src/auth/tokens.ts";
import { MAX_BODY_BYTES } from "../../src/http/body-limits.ts";
import { type DeclaredOperation, declaredOperations } from "../../src/http/operation.ts";
import { createApiKey, createTestContext, json, login, type TestContext } from "../helpers/context.ts";
import { answerOf, labelOf, openApiReader } from "../helpers/declared-routes.ts";

// One request path (docs/decisions.md "One request path"): what the chain does on every answer
// is checked on every declared route, not on a reference route — the security headers and the
// request id, the debug request line, CORS off and on (Vary, exposed headers), the media types a
// JSON body may be sent with, 413 over the body limit, 429 over the rate limit, and a 400 naming
// the parameter for an empty or non-numeric value of every numeric query parameter.

const ORIGIN = "https://app.example.com";
type Json = Record<string, any>;
let off: TestContext;
let on: TestContext;
let doc: Json;
let fullKey: string;

beforeAll(async () => {
  off = await createTestContext({ env: { LOG_LEVEL: "debug" } });
  on = await createTestContext({ env: { CORS_ORIGINS: ORIGIN } });
  doc = await json(await off.request("GET", "/api/v1/openapi.json"));
  fullKey = (await createApiKey(off, (await login(off)).token, ["full_access"])).key;
});
afterAll(async () => {
  await off.close();
  await on.close();
});

const ops = () => declaredOperations(off.app);
const reader = () => openApiReader(doc);
const adminId = (ctx: TestContext) =>
  (ctx.database.sqlite.query("SELECT id FROM users ORDER BY created_at LIMIT 1").get() as { id: string }).id;

/** A credential the route accepts (a fresh token: logout revokes the one it is given). */
async function credentialFor(ctx: TestContext, op: DeclaredOperation): Promise<Record<string, string>> {
  if (op.auth.kind === "none") return {};
  if (op.auth.kind === "apiKey") return { "x-api-key": fullKey };
  const { token } = await ctx.services.signer.issue(adminId(ctx), "access", ACCESS_TTL_S);
  return { authorization: `Bearer ${token}` };
}

async function send(ctx: TestContext, op: DeclaredOperation, headers: Record<string, string> = {}, rawBody?: string) {
  // Signals posted earlier decided first: the clock jump would otherwise age them past the queue's
  // lag limit, and POST /trading-signals would answer 503 (backpressure, issue 35).
  await ctx.services.signalQueue.idle();
  ctx.clock.advance(61_000); // a fresh rate-limit window
  const body = op.hasBody ? (reader().exampleBody(op.method, op.path) ?? {}) : undefined;
  return ctx.request(op.method, reader().exampleUrl(op), {
    headers: { ...(await credentialFor(ctx, op)), ...headers },
    ...(rawBody !== undefined ? { rawBody } : body !== undefined ? { body } : {}),
  });
}

describe("on every declared route", () => {
  test("the security headers, the request id and one debug request line", async () => {
    const problems: string[] = [];
    for (const op of ops()) {
      const before = off.logs.length;
      const res = await send(off, op, { "x-request-id": "parity-1" });
      await answerOf(res);
      const h = res.headers;
      const missing = [
        ["x-content-type-options", "nosniff"],
        ["referrer-policy", "no-referrer"],
        ["x-frame-options", "DENY"],
        ["x-request-id", "parity-1"],
      ].filter(([name, value]) => h.get(name as string) !== value);
      if (!h.get("cache-control")) missing.push(["cache-control", "(any)"]);
      if (missing.length) problems.push(`${labelOf(op)}: ${JSON.stringify(missing)}`);
      const ours = off.logs
        .slice(before)
        .filter((l) => l.includes('"msg":"request"') && l.includes('"requestId":"parity-1"'));
      if (ours.length !== 1) problems.push(`${labelOf(op)}: ${ours.length} debug request lines`);
      for (const name of h.keys())
        if (name.startsWith("access-control-")) problems.push(`${labelOf(op)}: ${name} with CORS off`);
    }
    expect(problems).toEqual([]);
  }, 120_000);

  test("CORS on: the allowed origin, Vary: Origin and the exposed headers", async () => {
    const problems: string[] = [];
    for (const op of declaredOperations(on.app)) {
      const res = await send(on, op, { origin: ORIGIN });
      await answerOf(res);
      const h = res.headers;
      if (h.get("access-control-allow-origin") !== ORIGIN) problems.push(`${labelOf(op)}: allow-origin`);
      if (!(h.get("vary") ?? "").includes("Origin")) problems.push(`${labelOf(op)}: Vary`);
      const exposed = (h.get("access-control-expose-headers") ?? "").toLowerCase();
      if (!exposed.includes("x-request-id") || !exposed.includes("retry-after"))
        problems.push(`${labelOf(op)}: exposed headers "${exposed}"`);
    }
    expect(problems).toEqual([]);
  }, 120_000);

  test("a JSON body: media type parameters are read as JSON; `application/json;` is refused as any other type", async () => {
    const problems: string[] = [];
    for (const op of ops()) {
      const media = reader().operationOf(op.method, op.path).requestBody?.content ?? {};
      // A route that reads its body whatever the type (CSV import, a signal hook's text/plain) is not a JSON-only body.
      if (!media["application/json"] || media["text/csv"] || media["text/plain"]) continue;
      const text = JSON.stringify(reader().exampleBody(op.method, op.path) ?? {});
      const statusWith = async (type: string) =>
        (await answerOf(await send(off, op, { "content-type": type }, text))).status;
      const plain = await statusWith("application/json");
      const charset = await statusWith("application/json; charset=utf-8");
      const upper = await statusWith("Application/JSON");
      if (charset !== plain || upper !== plain)
        problems.push(`${labelOf(op)}: json ${plain}, with charset ${charset}, upper case ${upper}`);
      for (const odd of ["application/json;", "application/json;foo", "text/plain"]) {
        const r = await answerOf(await send(off, op, { "content-type": odd }, text));
        // A body route whose body is optional reads an undeclared type as no body at all.
        if (r.status !== 400 && (plain < 200 || plain > 299 || r.status !== plain))
          problems.push(`${labelOf(op)}: ${odd} → ${r.status} ${r.error}`);
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);

  test("every numeric query parameter: an empty, blank or non-numeric value is a 400 naming the parameter", async () => {
    // Whale data configured (at an address nothing answers): unconfigured, those routes answer 503
    // before any validation (PRODUCT.md §5), and validation is what this checks.
    const whales = await createTestContext({
      env: { WHALE_DATA_API_KEY: "whale-key", WHALE_DATA_URL: "http://127.0.0.1:9" },
    });
    const wholeKey = (await createApiKey(whales, (await login(whales)).token, ["full_access"])).key;
    const problems: string[] = [];
    let checked = 0;
    for (const op of declaredOperations(whales.app)) {
      const params = (reader().operationOf(op.method, op.path).parameters ?? []) as Json[];
      const query = params.filter((p) => p.in === "query");
      const required = query.filter((p) => p.required);
      for (const p of query.filter((q) => q.schema?.type === "integer" || q.schema?.type === "number")) {
        for (const bad of ["", " ", "abc", "1x", "0x10"]) {
          const q = new URLSearchParams();
          for (const r of required) if (r.name !== p.name) q.set(r.name, String(r.example ?? r.schema?.example));
          q.set(p.name, bad);
          whales.clock.advance(61_000);
          const headers = op.auth.kind === "apiKey" ? { "x-api-key": wholeKey } : await credentialFor(whales, op);
          const res = await whales.request(op.method, `${reader().exampleUrl(op)}?${q}`, { headers });
          const r = await answerOf(res);
          if (r.status !== 400 || !r.error?.includes(p.name))
            problems.push(`${labelOf(op)} ?${p.name}=${JSON.stringify(bad)}: ${r.status} ${r.error}`);
        }
        checked++;
      }
    }
    await whales.close();
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(20);
  }, 120_000);

  test("every route that reads a body answers 413 over its limit, before any credential", async () => {
    const problems: string[] = [];
    for (const op of ops().filter((o) => o.method !== "GET")) {
      const limit = op.bodyLimit ?? MAX_BODY_BYTES;
      off.clock.advance(61_000);
      const res = await off.request(op.method, reader().exampleUrl(op), {
        rawBody: "x".repeat(limit + 1),
        headers: { "content-type": "application/json" },
      });
      const r = await answerOf(res);
      if (r.status !== 413 || r.error !== `Request body exceeds the ${limit} byte limit`)
        problems.push(`${labelOf(op)}: ${r.status} ${r.error}`);
      const documented = reader().operationOf(op.method, op.path).responses?.["413"];
      if (!documented) problems.push(`${labelOf(op)}: 413 not documented`);
    }
    expect(problems).toEqual([]);
  }, 120_000);

  test("every rate-limited route answers 429 with Retry-After once its window is full, and documents it", async () => {
    const problems: string[] = [];
    const limited = ops().filter((o) => o.rateLimit);
    expect(limited.length).toBeGreaterThanOrEqual(5);
    for (const op of limited) {
      const limiter = off.services.limiters[op.rateLimit?.limiter as keyof typeof off.services.limiters];
      await off.services.signalQueue.idle();
      off.clock.advance(61_000);
      const headers = await credentialFor(off, op);
      const body = reader().exampleBody(op.method, op.path);
      let last: Response | undefined;
      for (let i = 0; i <= limiter.limit; i++) {
        if (op.path.endsWith("/trading-signals")) headers["idempotency-key"] = crypto.randomUUID();
        last = await off.request(op.method, reader().exampleUrl(op), { headers, ...(body ? { body } : {}) });
        await answerOf(last);
      }
      if (last?.status !== 429 || !last.headers.get("retry-after"))
        problems.push(`${labelOf(op)}: ${last?.status} retry-after ${last?.headers.get("retry-after")}`);
      if (!reader().operationOf(op.method, op.path).responses?.["429"])
        problems.push(`${labelOf(op)}: 429 undocumented`);
    }
    expect(problems).toEqual([]);
  }, 120_000);
});
