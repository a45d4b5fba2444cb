import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createApiKey, createTestContext, createUser, json, login, type TestContext } from "../helpers/context.ts";

// The CSV export reads signals page by page (SignalService.iterate). Pages are cut at
// (created_at, id), so these tests use pages smaller than the export, ties in created_at that
// straddle a page boundary, and a signal posted while the export is being read.

let ctx: TestContext;
let token: string;
let userId: string;
let key: string;
const MINT = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
const OTHER_MINT = "So11111111111111111111111111111111111111112";

beforeEach(async () => {
  ctx = await createTestContext();
  const session = await login(ctx);
  token = session.token;
  userId = session.user.id;
  key = (await createApiKey(ctx, token, ["signals"])).key;
});
afterEach(() => ctx.close());

async function post(tokenAddress = MINT, apiKey = key): Promise<number> {
  const res = await ctx.request("POST", "/api/v1/trading-signals", {
    apiKey,
    body: { tokenAddress, signalType: "buy", signalStrength: 3 },
  });
  expect(res.status).toBe(201);
  return (await json(res)).id as number;
}

/** Three groups of signals with equal created_at (3, 2 and 2 rows), another user's in between. */
async function seed(): Promise<{ expected: number[]; byMint: number[] }> {
  const other = await createUser(ctx);
  const otherKey = (await createApiKey(ctx, other.token, ["signals"])).key;
  const t0 = [await post(), await post(OTHER_MINT), await post()];
  await post(MINT, otherKey);
  ctx.clock.advance(1000);
  const t1 = [await post(OTHER_MINT), await post()];
  await post(MINT, otherKey);
  ctx.clock.advance(1000);
  const t2 = [await post(), await post()];
  const desc = (ids: number[]) => [...ids].sort((a, b) => b - a);
  const expected = [...desc(t2), ...desc(t1), ...desc(t0)];
  const mintIds = new Set([t0[0], t0[2], t1[1], t2[0], t2[1]]);
  return { expected, byMint: expected.filter((id) => mintIds.has(id)) };
}

const ids = (it: Iterable<{ id: number }>) => [...it].map((s) => s.id);

describe("SignalService.iterate (CSV export pages)", () => {
  test("every row exactly once, newest first (created_at DESC, id DESC), whatever the page size", async () => {
    const { expected } = await seed();
    expect(expected.length).toBe(7);
    expect(ids(ctx.services.signals.list(userId, { limit: 100, offset: 0 }))).toEqual(expected);
    for (const pageSize of [1, 2, 3, 4, 6, 7, 8, 1000]) {
      expect({ pageSize, ids: ids(ctx.services.signals.iterate(userId, {}, pageSize)) }).toEqual({
        pageSize,
        ids: expected,
      });
    }
  });

  test("filters apply on every page", async () => {
    const { byMint } = await seed();
    expect(byMint.length).toBe(5);
    for (const pageSize of [1, 2, 5]) {
      expect(ids(ctx.services.signals.iterate(userId, { tokenAddress: MINT }, pageSize))).toEqual(byMint);
    }
  });

  test("a signal posted while the export is read neither repeats nor skips a row", async () => {
    const { expected } = await seed();
    const it = ctx.services.signals.iterate(userId, {}, 2);
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) seen.push(it.next().value!.id);
    await post();
    for (let r = it.next(); !r.done; r = it.next()) seen.push(r.value.id);
    expect(seen).toEqual(expected);
  });

  test("the export endpoint returns every row once across pages", async () => {
    const { expected } = await seed();
    const text = await (await ctx.request("GET", "/api/v1/trading-signals/export", { token })).text();
    const rows = text.split("\r\n").slice(1).filter(Boolean);
    expect(rows.map((l) => Number(l.split(",")[0]))).toEqual(expected);
  });
});
