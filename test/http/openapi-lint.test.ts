import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OPERATIONS } from "../../src/http/openapi-operations.ts";
import { createTestContext, json, type TestContext } from "../helpers/context.ts";

// Issue 13 item 8: summaries, operationIds, tags, `security: []` on public routes, servers, no
// duplicate paths, Redocly's recommended rules at 0 errors, and a reference page served entirely
// from the binary.

type Json = Record<string, any>;
let ctx: TestContext;
let doc: Json;
beforeAll(async () => {
  ctx = await createTestContext();
  doc = await json(await ctx.request("GET", "/api/v1/openapi.json"));
});
afterAll(() => ctx.close());

const operations = () =>
  Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op: op as Json })),
  );

test("every operation has a summary, a unique operationId from the table, and tags", () => {
  const ops = operations();
  expect(ops.length).toBeGreaterThanOrEqual(70);
  const ids = new Set<string>();
  for (const { key, op } of ops) {
    expect({ key, summary: typeof op.summary === "string" && op.summary.length > 0 }).toEqual({ key, summary: true });
    expect({ key, operationId: op.operationId }).toEqual({
      key,
      operationId: OPERATIONS[key as keyof typeof OPERATIONS]?.operationId,
    });
    expect(ids.has(op.operationId)).toBe(false);
    ids.add(op.operationId);
    expect(op.tags?.length).toBeGreaterThan(0);
  }
  // No entry of the table is stale (an operation renamed or removed).
  const served = new Set(ops.map((o) => o.key));
  expect(Object.keys(OPERATIONS).filter((k) => !served.has(k))).toEqual([]);
});

test("routes that take no credential say so with security: []; protected ones name a scheme", () => {
  const byKey = new Map(operations().map((o) => [o.key, o.op]));
  for (const open of ["POST /api/v1/auth/login", "GET /api/v1/health", "GET /metrics"]) {
    expect(byKey.get(open)?.security).toEqual([]);
  }
  expect(byKey.get("GET /api/v1/agents")?.security?.length).toBeGreaterThan(0);
  expect(doc.servers).toEqual([{ url: "/", description: "This service" }]);
  expect(Object.keys(doc.paths).filter((p) => p.length > 1 && p.endsWith("/"))).toEqual([]);
});

test("Redocly's recommended rules report 0 errors", async () => {
  const dir = mkdtempSync(join(tmpdir(), "openapi-lint-"));
  const file = join(dir, "openapi.json");
  writeFileSync(file, JSON.stringify(doc));
  const bin = join(import.meta.dir, "../../node_modules/.bin/redocly");
  const proc = Bun.spawn([bin, "lint", file, "--extends", "recommended", "--format", "json"], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const report = JSON.parse(out) as {
    totals: { errors: number };
    problems: Array<{ ruleId: string; severity: string; message: string }>;
  };
  const errors = report.problems.filter((p) => p.severity === "error").map((p) => `${p.ruleId}: ${p.message}`);
  expect(errors).toEqual([]);
  expect(report.totals.errors).toBe(0);
}, 60_000);

test("the reference page is served from the binary: same-origin assets only, CSP without inline scripts", async () => {
  const res = await ctx.request("GET", "/api/v1/docs");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/html");
  const csp = res.headers.get("content-security-policy") ?? "";
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
  const html = await res.text();
  expect(html).not.toMatch(/<script>(?!<)/); // no inline script bodies
  const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((r) => !r.startsWith("data:"));
  expect(refs.length).toBe(3);
  for (const ref of refs) {
    expect(ref.startsWith("/api/v1/docs/")).toBe(true);
    const asset = await ctx.request("GET", ref);
    expect(asset.status).toBe(200);
    expect((await asset.text()).length).toBeGreaterThan(10);
  }
  const init = await (await ctx.request("GET", "/api/v1/docs/init.js")).text();
  expect(init).toContain('"/api/v1/openapi.json"');
  expect(init).not.toMatch(/https?:\/\//);
});
