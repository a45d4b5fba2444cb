import { expect, test } from "bun:test";
import { contextsClosedAfterEach, json, login } from "../helpers/context.ts";

// GET /trading/status says whether the service runs on the demo market (issue 44 item 6): the
// dashboard shows a "Demo market" badge and offers no explorer links for its made-up tokens.

const context = contextsClosedAfterEach();

test("demoMarket is true with DEMO_MARKET=true, false otherwise", async () => {
  for (const [env, expected] of [
    [{ DEMO_MARKET: "true" }, true],
    [{}, false],
  ] as const) {
    const ctx = await context(env);
    const { token } = await login(ctx);
    const res = await ctx.request("GET", "/api/v1/trading/status", { token });
    expect(res.status).toBe(200);
    expect((await json(res)).demoMarket).toBe(expected);
  }
});
