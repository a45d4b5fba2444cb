import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestContext, json, login, type TestContext } from "../helpers/context.ts";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

test("login then me", async () => {
  const { token } = await login(ctx);
  const res = await ctx.request("GET", "/api/v1/auth/me", { token });
  expect(res.status).toBe(200);
  expect((await json(res)).email).toBe("admin@example.com");
  expect(res.headers.get("x-request-id")).toBeTruthy();
});
