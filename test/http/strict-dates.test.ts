import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isStrictIsoDateTime } from "../../src/http/schemas.ts";
import { createAgent } from "../agents/fixtures.ts";
import { createTestContext, json, login, type TestContext } from "../helpers/context.ts";

// Strict dates (issue 12; docs/decisions.md "Data layer"): every date query parameter and body
// timestamp goes through isoDateTime. The fields are read from the OpenAPI document (built from
// the same zod schemas that validate), so a new date field is covered without editing this file;
// a field named like a date that is not declared `format: date-time` fails the guard below.

const BAD = [
  "-1",
  "0",
  " 5",
  "a\r\nSet-Cookie: x=1",
  "2026-02-30",
  "2026-13-01",
  "2026-01-31T24:00:00Z",
  "2026-01-31T10:00:00",
  "yesterday",
  "",
];
const GOOD = [
  "2026-01-31",
  "2026-01-31T10:00:00Z",
  "2026-01-31T10:00:00.123Z",
  "2026-01-31T10:00:00+02:00",
  "2024-02-29",
];
const DATE_NAME = /(Date|Time)$/;

interface DateField {
  method: string;
  path: string;
  in: "query" | "body";
  name: string;
  /** A body that is valid apart from the date field (the schema's example). */
  example?: Record<string, unknown>;
}

let ctx: TestContext;
let token: string;
let agentId: string;
let fields: DateField[];

beforeAll(async () => {
  ctx = await createTestContext();
  token = (await login(ctx)).token;
  agentId = (await createAgent(ctx, token)).id;
  const doc = await json(await ctx.request("GET", "/api/v1/openapi.json"));
  fields = [];
  for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      for (const p of op.parameters ?? []) {
        if (p.in === "query" && (DATE_NAME.test(p.name) || p.schema?.format === "date-time")) {
          expect(p.schema?.format, `${method} ${path} ?${p.name}`).toBe("date-time");
          fields.push({ method, path, in: "query", name: p.name });
        }
      }
      const ref: string | undefined = op.requestBody?.content?.["application/json"]?.schema?.$ref;
      if (!ref) continue;
      const schema = doc.components.schemas[ref.split("/").pop() as string];
      for (const [name, prop] of Object.entries<any>(schema.properties ?? {})) {
        if (DATE_NAME.test(name) || prop.format === "date-time") {
          expect(prop.format, `${method} ${path} body ${name}`).toBe("date-time");
          fields.push({ method, path, in: "body", name, example: schema.example });
        }
      }
    }
  }
});
afterAll(() => ctx.close());

function send(f: DateField, value: string) {
  const path = f.path.replace(/\{[^}]+\}/g, agentId);
  if (f.in === "query") {
    const q = new URLSearchParams({ agentId, [f.name]: value });
    return ctx.request(f.method.toUpperCase(), `${path}?${q}`, { token });
  }
  return ctx.request(f.method.toUpperCase(), path, { token, body: { ...f.example, agentId, [f.name]: value } });
}

test("the document lists every date field of the API (queries and bodies)", () => {
  const names = new Set(fields.map((f) => `${f.in}:${f.name}`));
  for (const n of ["query:startDate", "query:endDate", "query:startTime", "query:endTime", "query:startSaleTime"]) {
    expect(names.has(n), n).toBe(true);
  }
  for (const n of ["body:transactionTime", "body:purchaseTime", "body:saleTime"]) expect(names.has(n), n).toBe(true);
  expect(fields.length).toBeGreaterThanOrEqual(20);
});

describe("a bad date answers 400 naming the field", () => {
  test.each(BAD)("%j", async (bad) => {
    for (const f of fields) {
      const res = await send(f, bad);
      const where = `${f.method} ${f.path} ${f.in} ${f.name}=${JSON.stringify(bad)}`;
      expect(res.status, where).toBe(400);
      expect((await json(res)).error, where).toBe(`${f.name} must be an ISO 8601 date`);
    }
  });
});

describe("accepted forms pass validation", () => {
  test.each(GOOD)("%j", async (good) => {
    for (const f of fields) {
      const res = await send(f, good);
      // The date passed; what follows is the route's own (200, 201, 404 for the placeholder id, or
      // a 400 of another rule such as "saleTime must not be before purchaseTime").
      const where = `${f.method} ${f.path} ${f.in} ${f.name}=${good}`;
      expect(res.status, where).toBeLessThan(500);
      if (res.status === 400) expect((await json(res)).error, where).not.toContain(`${f.name} must be an ISO`);
    }
  });
});

test.each([
  ["2026-01-31", true],
  ["2026-01-31T10:00Z", true],
  ["2026-01-31T10:00:00.123456789Z", true],
  ["2026-01-31T10:00:00-05:30", true],
  ["2024-02-29", true],
  ["2025-02-29", false],
  ["2026-04-31", false],
  ["2026-00-10", false],
  ["2026-01-31T10:60:00Z", false],
  ["2026-01-31T10:00:60Z", false],
  ["2026-01-31T10:00:00+24:00", false],
  ["2026-01-31t10:00:00z", false],
  ["2026-01-31 10:00:00Z", false],
  ["2026-01-31T10:00:00Z\n", false],
  ["+002026-01-31", false],
  ["1767225600000", false],
] as const)("isStrictIsoDateTime(%j) is %p", (v, ok) => {
  expect(isStrictIsoDateTime(v)).toBe(ok);
});
