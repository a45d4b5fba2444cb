import { afterAll, expect } from "bun:test";
import { type ContextOptions, createTestContext, createUser, json, login, type TestContext } from "./context.ts";

// The fixture most API test files share: one service (a real database in a temp dir) for the
// file's tests, closed after the last; the admin's token, and another user whose records must
// answer 404 to it.

export interface FileContext {
  ctx: TestContext;
  /** The admin's access token. */
  token: string;
  userId: string;
  other: Awaited<ReturnType<typeof createUser>>;
}

export async function contextPerFile(opts: ContextOptions = {}): Promise<FileContext> {
  const ctx = await createTestContext(opts);
  afterAll(() => ctx.close());
  const admin = await login(ctx);
  return { ctx, token: admin.token, userId: admin.user.id, other: await createUser(ctx) };
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The response is the spec's error shape with this status and text; returns its body. */
export async function expectError(res: Response, status: number, error: string): Promise<any> {
  expect(res.status).toBe(status);
  const body = await json(res);
  expect(body.error).toBe(error);
  expect(body.success).toBe(false);
  return body;
}
