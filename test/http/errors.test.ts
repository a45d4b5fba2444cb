import { describe, expect, test } from "bun:test";
import { MAX_BODY_BYTES } from "../../src/app.ts";
import { contextsClosedAfterEach, json, login, type TestContext } from "../helpers/context.ts";

// The error model of the foundation (SPEC "Errors"; PRODUCT.md §6): malformed JSON, wrong content
// type, unknown route, oversize body, 500s, `stack` only in development, and X-Request-Id.

const context = contextsClosedAfterEach();

const LOGIN = "/api/v1/auth/login";
const jsonHeaders = { "content-type": "application/json" };

describe("400 for bodies the API cannot read", () => {
  test("malformed JSON", async () => {
    const ctx = await context();
    for (const raw of ["{", '{"email": "a@b.c",}', "not json", "[1, 2"]) {
      const res = await ctx.request("POST", LOGIN, { rawBody: raw, headers: jsonHeaders });
      expect(res.status, raw).toBe(400);
      expect(await json(res), raw).toEqual({
        success: false,
        error: "Malformed JSON in request body",
        code: "VALIDATION_ERROR",
      });
    }
  });

  test("a body in another content type", async () => {
    const ctx = await context();
    const raw = JSON.stringify({ email: "admin@example.com", password: "x" });
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/xml"]) {
      const res = await ctx.request("POST", LOGIN, { rawBody: raw, headers: { "content-type": type } });
      expect(res.status, type).toBe(400);
      expect(await json(res), type).toEqual({
        success: false,
        error: "Content-Type must be application/json",
        code: "VALIDATION_ERROR",
      });
    }
  });

  test("a body without any content type", async () => {
    const ctx = await context();
    const res = await ctx.request("POST", LOGIN, {
      rawBody: JSON.stringify({ email: "admin@example.com", password: "x" }),
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      success: false,
      error: "Content-Type must be application/json",
      code: "VALIDATION_ERROR",
    });
  });

  test("no body and no content type: the route's own required-field message", async () => {
    const ctx = await context();
    const res = await ctx.request("POST", LOGIN);
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error).toBe("Email and password are required");
    expect(body.code).toBe("VALIDATION_ERROR");
  });

  test("JSON with a charset parameter is JSON", async () => {
    const ctx = await context();
    const res = await ctx.request("POST", LOGIN, {
      rawBody: "{}",
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe("Email and password are required");
  });
});

describe("404 for unknown routes", () => {
  test("unknown path 404, known path with another method 405 with Allow, in the spec's shape", async () => {
    const ctx = await context();
    let res = await ctx.request("GET", "/api/v1/does-not-exist");
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({
      success: false,
      error: "Route not found: GET /api/v1/does-not-exist",
      code: "NOT_FOUND",
    });
    // A known path with a method it does not take: 405 naming the methods it does take.
    res = await ctx.request("DELETE", LOGIN);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(await json(res)).toEqual({
      success: false,
      error: "Method not allowed: DELETE /api/v1/auth/login",
      code: "METHOD_NOT_ALLOWED",
    });
    res = await ctx.request("POST", "/api/v1/agents/0b5e2a4c-7a1d-4d8e-9a51-2f6a3c1d9e10");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, PUT, DELETE, HEAD");
  });
});

describe("413 for bodies over 64 KiB", () => {
  const TOO_LARGE = {
    success: false,
    error: `Request body exceeds the ${MAX_BODY_BYTES} byte limit`,
    code: "PAYLOAD_TOO_LARGE",
  };
  /** A login body of exactly `bytes` bytes, padded with a field the schema ignores. */
  const bodyOf = (bytes: number) => {
    const shell = JSON.stringify({ email: "nobody@example.com", password: "x", pad: "" });
    return JSON.stringify({ email: "nobody@example.com", password: "x", pad: "x".repeat(bytes - shell.length) });
  };

  test("the limit is 64 KiB", () => {
    expect(MAX_BODY_BYTES).toBe(65_536);
    expect(Buffer.byteLength(bodyOf(MAX_BODY_BYTES + 1))).toBe(65_537);
  });

  test("declared by Content-Length: one byte over is 413, exactly at the limit is read", async () => {
    const ctx = await context();
    const over = await ctx.request("POST", LOGIN, { rawBody: bodyOf(MAX_BODY_BYTES + 1), headers: jsonHeaders });
    expect(over.status).toBe(413);
    expect(await json(over)).toEqual(TOO_LARGE);
    expect(over.headers.get("x-content-type-options")).toBe("nosniff");
    const at = await ctx.request("POST", LOGIN, { rawBody: bodyOf(MAX_BODY_BYTES), headers: jsonHeaders });
    expect(at.status).toBe(401); // read and handled: unknown email
  });

  test("streamed without Content-Length (chunked): counted while read", async () => {
    const ctx = await context();
    const stream = (bytes: number) => {
      const data = new TextEncoder().encode(bodyOf(bytes));
      return new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < data.length; i += 8192) controller.enqueue(data.subarray(i, i + 8192));
          controller.close();
        },
      });
    };
    const send = (bytes: number) =>
      ctx.app.request(LOGIN, {
        method: "POST",
        headers: jsonHeaders,
        body: stream(bytes),
        duplex: "half",
      } as RequestInit);
    const over = await send(MAX_BODY_BYTES + 1);
    expect(over.status).toBe(413);
    expect(await json(over)).toEqual(TOO_LARGE);
    const at = await send(MAX_BODY_BYTES);
    expect(at.status).toBe(401);
  });

  test("over a real socket, with and without Content-Length", async () => {
    const ctx = await context();
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req, srv) => ctx.app.fetch(req, { server: srv }),
    });
    try {
      const url = `http://127.0.0.1:${server.port}${LOGIN}`;
      const big = bodyOf(200 * 1024);
      const declared = await fetch(url, { method: "POST", headers: jsonHeaders, body: big });
      expect(declared.status).toBe(413);
      expect(await declared.json()).toEqual(TOO_LARGE);
      const chunks = new TextEncoder().encode(big);
      const chunked = await fetch(url, {
        method: "POST",
        headers: jsonHeaders,
        body: new ReadableStream<Uint8Array>({
          start(controller) {
            for (let i = 0; i < chunks.length; i += 16_384) controller.enqueue(chunks.subarray(i, i + 16_384));
            controller.close();
          },
        }),
        duplex: "half",
      } as RequestInit);
      expect(chunked.status).toBe(413);
      expect(await chunked.json()).toEqual(TOO_LARGE);
    } finally {
      server.stop(true);
    }
  });
});

describe("500 and the stack field", () => {
  async function withThrowingRoute(env?: Record<string, string>) {
    const ctx = await context(env);
    ctx.app.get("/test/boom", () => {
      throw new Error("secret internal detail");
    });
    return ctx;
  }

  test("an unexpected error is a 500 that says nothing about its cause", async () => {
    const ctx = await withThrowingRoute();
    const res = await ctx.request("GET", "/test/boom", { headers: { "x-request-id": "boom-1" } });
    expect(res.status).toBe(500);
    expect(await json(res)).toEqual({ success: false, error: "Internal server error", code: "INTERNAL_ERROR" });
    // ...but the log has it, tied to the request.
    const line = ctx.logs.map((l) => JSON.parse(l)).find((l) => l.msg === "unhandled error");
    expect(line).toMatchObject({ level: "error", requestId: "boom-1", method: "GET", path: "/test/boom" });
    expect(JSON.stringify(line)).toContain("secret internal detail");
  });

  test("`stack` appears only when NODE_ENV=development", async () => {
    const dev = await withThrowingRoute({ NODE_ENV: "development" });
    const devBodies = [
      await json(await dev.request("GET", "/test/boom")),
      await json(await dev.request("POST", LOGIN, { rawBody: "{", headers: jsonHeaders })),
      await json(await dev.request("GET", "/api/v1/auth/me")),
      await json(await dev.request("POST", LOGIN, { rawBody: "x", headers: { "content-type": "text/plain" } })),
    ];
    for (const body of devBodies) {
      expect(typeof body.stack, JSON.stringify(body).slice(0, 80)).toBe("string");
      expect(body.stack.length).toBeGreaterThan(0);
    }
    expect(devBodies[0].error).toBe("Internal server error");

    for (const NODE_ENV of ["test", "production"]) {
      const ctx = await withThrowingRoute({ NODE_ENV });
      const bodies = [
        await json(await ctx.request("GET", "/test/boom")),
        await json(await ctx.request("POST", LOGIN, { rawBody: "{", headers: jsonHeaders })),
        await json(await ctx.request("GET", "/api/v1/auth/me")),
        await json(await ctx.request("GET", "/api/v1/nowhere")),
      ];
      for (const body of bodies) expect(body.stack, NODE_ENV).toBeUndefined();
    }
  });
});

describe("X-Request-Id", () => {
  const logsOf = (ctx: TestContext, id: string) => ctx.logs.map((l) => JSON.parse(l)).filter((l) => l.requestId === id);

  test("a sane incoming id is echoed and carried by the request's log lines", async () => {
    const ctx = await context();
    const { token } = await login(ctx);
    const res = await ctx.request("GET", "/api/v1/auth/me", { token, headers: { "x-request-id": "req-abc.123_X" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe("req-abc.123_X");
    const lines = logsOf(ctx, "req-abc.123_X");
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.find((l) => l.msg === "request")).toMatchObject({
      method: "GET",
      path: "/api/v1/auth/me",
      status: 200,
    });
  });

  test("generated when absent, and different for each request", async () => {
    const ctx = await context();
    const a = (await ctx.request("GET", "/api/v1/health/live")).headers.get("x-request-id")!;
    const b = (await ctx.request("GET", "/api/v1/health/live")).headers.get("x-request-id")!;
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    expect(a).toMatch(uuid);
    expect(b).toMatch(uuid);
    expect(a).not.toBe(b);
    expect(logsOf(ctx, a).find((l) => l.msg === "request")).toMatchObject({ path: "/api/v1/health/live", status: 200 });
  });

  test("an unsafe incoming id (spaces, control characters, too long) is replaced, never echoed", async () => {
    const ctx = await context();
    for (const bad of ["has space", "x".repeat(129), 'a"b', "<script>"]) {
      const res = await ctx.request("GET", "/api/v1/health/live", { headers: { "x-request-id": bad } });
      const id = res.headers.get("x-request-id")!;
      expect(id, bad).not.toBe(bad);
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  test("present on error responses too (400, 401, 404, 413)", async () => {
    const ctx = await context();
    const responses = [
      await ctx.request("POST", LOGIN, { rawBody: "{", headers: { ...jsonHeaders, "x-request-id": "e-400" } }),
      await ctx.request("GET", "/api/v1/auth/me", { headers: { "x-request-id": "e-401" } }),
      await ctx.request("GET", "/api/v1/nowhere", { headers: { "x-request-id": "e-404" } }),
      await ctx.request("POST", LOGIN, {
        rawBody: "x".repeat(MAX_BODY_BYTES + 10),
        headers: { ...jsonHeaders, "x-request-id": "e-413" },
      }),
    ];
    expect(responses.map((r) => r.status)).toEqual([400, 401, 404, 413]);
    expect(responses.map((r) => r.headers.get("x-request-id"))).toEqual(["e-400", "e-401", "e-404", "e-413"]);
    for (const id of ["e-400", "e-401", "e-404", "e-413"])
      expect(
        logsOf(ctx, id).some((l) => l.msg === "request"),
        id,
      ).toBe(true);
  });
});
