import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ACCESS_TTL_S } from "../../src/auth/tokens.ts";
import { declaredOperations } from "../../src/http/operation.ts";
import { createApiKey, createTestContext, json, login, type TestContext } from "../helpers/context.ts";
import { answerOf, labelOf, openApiReader } from "../helpers/declared-routes.ts";

// The OpenAPI document says exactly what the server takes (docs/decisions.md "One request path"):
// no query parameter declared nullable (a URL cannot carry null), every update body documented
// and enforced as non-empty, each declared numeric bound of a query parameter the server's own,
// a backtest variant's config typed, and Spectral's OpenAPI ruleset at 0 errors.

type Json = Record<string, any>;
let ctx: TestContext;
let doc: Json;
let userId: string;
let key: string;

beforeAll(async () => {
  ctx = await createTestContext();
  doc = await json(await ctx.request("GET", "/api/v1/openapi.json"));
  const admin = await login(ctx);
  userId = admin.user.id;
  key = (await createApiKey(ctx, admin.token, ["full_access"])).key;
});
afterAll(() => ctx.close());

const operations = () =>
  Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op: op as Json })),
  );
const token = async () => (await ctx.services.signer.issue(userId, "access", ACCESS_TTL_S)).token;

test("no query parameter is declared nullable", () => {
  const nullable = operations().flatMap(({ key, op }) =>
    ((op.parameters ?? []) as Json[])
      .filter((p) => p.in === "query" && JSON.stringify(p.schema).includes('"null"'))
      .map((p) => `${key} ${p.name}`),
  );
  expect(nullable).toEqual([]);
});

test("every PUT and PATCH body is documented with minProperties: 1, and the server refuses {}", async () => {
  const reader = openApiReader(doc);
  const problems: string[] = [];
  for (const op of declaredOperations(ctx.app).filter((o) => o.method === "PUT" || o.method === "PATCH")) {
    const ref = reader.operationOf(op.method, op.path).requestBody?.content?.["application/json"]?.schema?.$ref;
    const schema = ref ? doc.components.schemas[ref.split("/").pop()] : undefined;
    if (schema?.minProperties !== 1) problems.push(`${labelOf(op)}: minProperties ${schema?.minProperties}`);
    const res = await ctx.request(op.method, reader.exampleUrl(op), { token: await token(), body: {} });
    const r = await answerOf(res);
    // An unknown id is looked up only after the body is valid: 400 proves {} was refused first.
    if (r.status !== 400) problems.push(`${labelOf(op)}: {} answered ${r.status}`);
  }
  expect(problems).toEqual([]);
});

test("each declared numeric bound of a query parameter is the server's", async () => {
  const reader = openApiReader(doc);
  const problems: string[] = [];
  let checked = 0;
  for (const op of declaredOperations(ctx.app).filter((o) => o.method === "GET")) {
    const params = (reader.operationOf(op.method, op.path).parameters ?? []) as Json[];
    // Required query parameters keep their example values; the one under test varies.
    const required = params.filter((p) => p.in === "query" && p.required);
    const credential =
      op.auth.kind === "apiKey" ? { apiKey: key } : op.auth.kind === "none" ? {} : { token: await token() };
    for (const p of params) {
      const s = p.schema ?? {};
      if (p.in !== "query" || (s.type !== "number" && s.type !== "integer")) continue;
      const cases: Array<[number, boolean]> = [];
      if (s.maximum !== undefined) cases.push([s.maximum, true], [s.maximum + 1, false]);
      if (s.minimum !== undefined) cases.push([s.minimum, true], [s.minimum - 1, false]);
      if (s.exclusiveMinimum !== undefined) cases.push([s.exclusiveMinimum, false]);
      for (const [value, accepted] of cases) {
        const query = new URLSearchParams(
          required.map((q): [string, string] => [q.name, String(q.example ?? q.schema?.example)]),
        );
        query.set(p.name, String(value));
        ctx.clock.advance(61_000); // a fresh rate-limit window
        const r = await answerOf(await ctx.request("GET", `${reader.exampleUrl(op)}?${query}`, credential));
        // An unconfigured outside source answers 503 before any validation (the whale routes).
        if (r.status === 503) continue;
        if ((r.status === 400) === accepted) problems.push(`${labelOf(op)} ${p.name}=${value}: ${r.status} ${r.error}`);
        checked++;
      }
    }
  }
  expect(problems).toEqual([]);
  expect(checked).toBeGreaterThanOrEqual(30);
});

// Issue 34 item 9: a string one character over its documented maxLength is refused with a message
// that names the limit ("... at most 10000 characters"), never a type error.
test("each declared maxLength of a JSON body field is the server's, and its 400 names the limit", async () => {
  const reader = openApiReader(doc);
  const resolve = (schema: Json | undefined): Json | undefined => {
    const ref = (schema?.$ref ?? schema?.allOf?.[0]?.$ref) as string | undefined;
    return ref ? doc.components.schemas[ref.split("/").pop() as string] : schema;
  };
  const problems: string[] = [];
  let checked = 0;
  for (const op of declaredOperations(ctx.app).filter((o) => o.hasBody)) {
    const media = reader.operationOf(op.method, op.path).requestBody?.content?.["application/json"];
    const schema = resolve(media?.schema);
    const example = reader.exampleBody(op.method, op.path);
    if (!schema?.properties || !example) continue;
    for (const [name, prop] of Object.entries(schema.properties as Json)) {
      const credential =
        op.auth.kind === "apiKey" ? { apiKey: key } : op.auth.kind === "none" ? {} : { token: await token() };
      const s = resolve(prop as Json) ?? {};
      const max = s.maxLength ?? s.anyOf?.find((a: Json) => a.maxLength !== undefined)?.maxLength;
      if (max === undefined) continue;
      ctx.clock.advance(61_000); // a fresh rate-limit window
      const body = { ...example, [name]: "a".repeat(max + 1) };
      const r = await answerOf(await ctx.request(op.method, reader.exampleUrl(op), { ...credential, body }));
      checked++;
      if (r.status !== 400 || !String(r.error).includes(String(max)))
        problems.push(`${labelOf(op)} ${name} (maxLength ${max}): ${r.status} ${r.error}`);
    }
  }
  // Query and path strings too: one character over, the 400 names the limit.
  for (const op of declaredOperations(ctx.app)) {
    const params = (reader.operationOf(op.method, op.path).parameters ?? []) as Json[];
    const required = params.filter((p) => p.in === "query" && p.required);
    for (const p of params) {
      const max = p.schema?.maxLength;
      if ((p.in !== "query" && p.in !== "path") || max === undefined) continue;
      const credential =
        op.auth.kind === "apiKey" ? { apiKey: key } : op.auth.kind === "none" ? {} : { token: await token() };
      const long = "a".repeat(max + 1);
      const query = new URLSearchParams(
        required.map((q): [string, string] => [q.name, String(q.example ?? q.schema?.example)]),
      );
      if (p.in === "query") query.set(p.name, long);
      const url = `${reader.exampleUrl(op, p.in === "path" ? { [p.name]: long } : {})}${query.size ? `?${query}` : ""}`;
      ctx.clock.advance(61_000);
      const r = await answerOf(await ctx.request(op.method, url, credential));
      if (r.status === 503) continue; // an unconfigured outside source answers before validation
      checked++;
      if (r.status !== 400 || !String(r.error).includes(String(max)))
        problems.push(`${labelOf(op)} ${p.name} (maxLength ${max}): ${r.status} ${r.error}`);
    }
  }
  expect(problems).toEqual([]);
  expect(checked).toBeGreaterThanOrEqual(10);
});

test("a backtest variant's config is the PUT config body's patch, not any", () => {
  const variants = doc.components.schemas.BacktestRequest.properties.variants;
  expect(variants.items.properties.config).toEqual({ allOf: [{ $ref: "#/components/schemas/TradingConfigPatch" }] });
  expect(doc.components.schemas.TradingConfigPatch.properties.stopLoss).toBeDefined();
});

test("Spectral's OpenAPI ruleset reports 0 errors", async () => {
  const bin = join(import.meta.dir, "../../node_modules/.bin/spectral");
  expect(existsSync(bin)).toBe(true);
  const dir = mkdtempSync(join(tmpdir(), "openapi-spectral-"));
  const file = join(dir, "openapi.json");
  writeFileSync(file, JSON.stringify(doc));
  writeFileSync(join(dir, ".spectral.yaml"), 'extends: ["spectral:oas"]\n');
  const proc = Bun.spawn([bin, "lint", file, "-r", join(dir, ".spectral.yaml"), "-f", "json", "--quiet"], {
    stdout: "pipe",
    stderr: "pipe",
    cwd: dir,
  });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const problems = (
    JSON.parse(out || "[]") as Array<{ severity: number; code: string; message: string; path: string[] }>
  )
    .filter((p) => p.severity === 0)
    .map((p) => `${p.code}: ${p.message} at ${p.path.join(".")}`);
  expect(problems).toEqual([]);
}, 60_000);
