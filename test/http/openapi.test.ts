import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ZodType } from "zod";
import { createTestContext, json, type TestContext } from "../helpers/context.ts";

// PRODUCT.md §6 / issue "Operations and reach": the OpenAPI 3.1 document at /api/v1/openapi.json
// is generated from the zod schemas that validate requests, covers every route the app serves,
// and its request examples pass those same schemas. Generic on purpose: routes added later are
// checked without touching this file.

const DOC_PATH = "/api/v1/openapi.json";
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;

type Json = Record<string, any>;

let ctx: TestContext;
let doc: Json;
beforeAll(async () => {
  ctx = await createTestContext();
  const res = await ctx.request("GET", DOC_PATH);
  expect(res.status).toBe(200);
  doc = await json(res);
});
afterAll(() => ctx.close());

/** Hono's `/:id` and `/:id{[0-9]+}` → OpenAPI's `/{id}`. */
function toOpenApiPath(honoPath: string): string {
  let out = "";
  for (let i = 0; i < honoPath.length; ) {
    if (honoPath[i] === ":" && honoPath[i - 1] === "/") {
      let j = i + 1;
      while (j < honoPath.length && /[A-Za-z0-9_]/.test(honoPath[j]!)) j++;
      out += `{${honoPath.slice(i + 1, j)}}`;
      if (honoPath[j] === "{") {
        let depth = 0; // skip a regex constraint, nested braces included
        do {
          if (honoPath[j] === "{") depth++;
          else if (honoPath[j] === "}") depth--;
          j++;
        } while (depth > 0 && j < honoPath.length);
      }
      if (honoPath[j] === "?") j++;
      i = j;
    } else {
      out += honoPath[i++];
    }
  }
  return out;
}

/**
 * Handler routes of the app (middleware entries are method ALL), without the document and its
 * reference page; a trailing-slash alias counts as the path it aliases.
 */
function appOperations(): Array<{ method: string; path: string }> {
  const seen = new Set<string>();
  const out: Array<{ method: string; path: string }> = [];
  for (const r of ctx.app.routes) {
    if (r.method === "ALL" || r.path === DOC_PATH || r.path.startsWith("/api/v1/docs")) continue;
    const path = toOpenApiPath(r.path);
    const op = { method: r.method.toLowerCase(), path: path.length > 1 ? path.replace(/\/$/, "") : path };
    const key = `${op.method} ${op.path}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(op);
    }
  }
  return out;
}

function documentOperations(): Array<{ method: string; path: string; op: Json }> {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((m) => (item as Json)[m]).map((method) => ({ method, path, op: (item as Json)[method] as Json })),
  );
}

const resolve = (node: Json | undefined): Json | undefined => {
  let n = node;
  for (let i = 0; n?.$ref && i < 10; i++) {
    const ref = n.$ref as string;
    if (!ref.startsWith("#/")) throw new Error(`external $ref ${ref}`);
    n = ref
      .slice(2)
      .split("/")
      .reduce<Json | undefined>((acc, key) => acc?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
  }
  return n;
};

/** The registry entry (zod schemas) behind one documented operation. */
function registryRoute(method: string, path: string): Json | undefined {
  return ctx.app.openAPIRegistry.definitions
    .filter((d: Json) => d.type === "route")
    .map((d: Json) => d.route as Json)
    .find((r) => r.method === method && r.path === path);
}

function issuesOf(schema: ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
}

test("toOpenApiPath", () => {
  expect(toOpenApiPath("/api/v1/agents/:id")).toBe("/api/v1/agents/{id}");
  expect(toOpenApiPath("/api/v1/agents/:agentId/signals/:signalId")).toBe(
    "/api/v1/agents/{agentId}/signals/{signalId}",
  );
  expect(toOpenApiPath("/api/v1/trading-signals/:id{[0-9]{1,16}}")).toBe("/api/v1/trading-signals/{id}");
  expect(toOpenApiPath("/metrics")).toBe("/metrics");
});

test("is OpenAPI 3.1 with the service's info", () => {
  expect(doc.openapi).toBe("3.1.0");
  expect(doc.info.title).toBe("Trading Agent Service");
  expect(typeof doc.info.version).toBe("string");
});

test("every route the app serves is in the document", () => {
  const ops = appOperations();
  // The health, metrics and auth routes exist at least (guards against walking an empty list).
  for (const expected of [
    "get /api/v1/health",
    "get /api/v1/health/ready",
    "get /api/v1/health/live",
    "get /metrics",
    "post /api/v1/auth/login",
  ]) {
    expect(ops.map((o) => `${o.method} ${o.path}`)).toContain(expected);
  }
  const missing = ops.filter((o) => !doc.paths?.[o.path]?.[o.method]).map((o) => `${o.method.toUpperCase()} ${o.path}`);
  expect(missing).toEqual([]);
});

test("every documented operation is served by the app", () => {
  const served = new Set(appOperations().map((o) => `${o.method} ${o.path}`));
  const phantom = documentOperations()
    .map((o) => `${o.method} ${o.path}`)
    .filter((k) => !served.has(k));
  expect(phantom).toEqual([]);
});

test("every operation declares its responses, and its security schemes exist", () => {
  const schemes = new Set(Object.keys(doc.components?.securitySchemes ?? {}));
  const problems: string[] = [];
  for (const { method, path, op } of documentOperations()) {
    const label = `${method.toUpperCase()} ${path}`;
    const statuses = Object.keys(op.responses ?? {});
    if (!statuses.some((s) => s.startsWith("2"))) problems.push(`${label}: no 2xx response`);
    for (const requirement of op.security ?? []) {
      for (const name of Object.keys(requirement))
        if (!schemes.has(name)) problems.push(`${label}: unknown security scheme ${name}`);
    }
  }
  expect(problems).toEqual([]);
});

// Issue 13: a full_access API key is accepted wherever a JWT is, except /auth/* and /api-keys/*
// (PRODUCT.md §2); the document says so on every such operation (userSecurity).
test("a JWT-only security requirement appears only under /auth and /api-keys", () => {
  const jwtOnly: string[] = [];
  for (const { method, path, op } of documentOperations()) {
    const names = (op.security ?? []).flatMap((r: Json) => Object.keys(r));
    if (!names.includes("bearerAuth") || names.includes("apiKeyHeader")) continue;
    // The audit log too (issue 43): who logged in from where is the account's business, not a key's.
    if (!/^\/api\/v1\/(auth|api-keys|audit-log)(\/|$)/.test(path)) jwtOnly.push(`${method.toUpperCase()} ${path}`);
  }
  expect(jwtOnly).toEqual([]);
  expect(doc.paths["/api/v1/auth/me"].get.security).toEqual([{ bearerAuth: [] }]);
  expect(doc.paths["/api/v1/agents/{id}"].put.security).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }]);
});

describe("request examples validate against the schemas that validate requests", () => {
  test("JSON request bodies: each has an example, and it passes the route's zod schema", () => {
    const problems: string[] = [];
    let checked = 0;
    for (const { method, path, op } of documentOperations()) {
      const label = `${method.toUpperCase()} ${path}`;
      const media = op.requestBody ? resolve(op.requestBody)?.content?.["application/json"] : undefined;
      if (!media) continue;
      const docSchema = resolve(media.schema);
      const example =
        media.example ??
        Object.values((media.examples ?? {}) as Json)[0]?.value ??
        docSchema?.example ??
        docSchema?.examples?.[0];
      if (example === undefined) {
        problems.push(`${label}: request body has no example`);
        continue;
      }
      const zodSchema = registryRoute(method, path)?.request?.body?.content?.["application/json"]?.schema as
        | ZodType
        | undefined;
      if (!zodSchema) {
        problems.push(`${label}: no zod schema in the registry`);
        continue;
      }
      for (const issue of issuesOf(zodSchema, example)) problems.push(`${label}: example fails: ${issue}`);
      checked++;
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(3); // login, register, refresh at least
  });

  test("path and query parameter examples pass the route's zod schemas (as the strings a URL carries)", () => {
    const problems: string[] = [];
    for (const { method, path, op } of documentOperations()) {
      const label = `${method.toUpperCase()} ${path}`;
      const route = registryRoute(method, path);
      for (const [where, key] of [
        ["path", "params"],
        ["query", "query"],
      ] as const) {
        const zodSchema = route?.request?.[key] as ZodType | undefined;
        const params = ((op.parameters ?? []) as Json[]).map((p) => resolve(p)!).filter((p) => p.in === where);
        if (!zodSchema || params.length === 0) continue;
        const values: Record<string, string> = {};
        let complete = true;
        for (const p of params) {
          const example = p.example ?? p.schema?.example ?? p.schema?.examples?.[0];
          if (example === undefined) {
            if (p.required) complete = false;
            continue;
          }
          values[p.name] = String(example);
        }
        if (where === "path" && !complete) {
          problems.push(`${label}: a path parameter has no example`);
          continue;
        }
        if (!complete) continue;
        for (const issue of issuesOf(zodSchema, values)) problems.push(`${label}: ${where} example fails: ${issue}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test("the checks above can fail: a wrong example is reported", () => {
    const login = registryRoute("post", "/api/v1/auth/login")!.request.body.content["application/json"]
      .schema as ZodType;
    expect(issuesOf(login, { email: "a@example.com" })).toEqual(["password: Email and password are required"]);
  });
});
