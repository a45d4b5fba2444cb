import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { CHROMIUM, hasChromium, launchChromium, offOrigin, recordRequests } from "../helpers/browser.ts";
import { createTestContext, type TestContext } from "../helpers/context.ts";

// Issue 13 item 8: the API reference page at /api/v1/docs renders in a real browser from what the
// binary serves alone: every request the page makes stays on the service's origin, and the CSP
// (no inline script) blocks nothing the page needs.

if (!hasChromium && process.env.CI === "true") throw new Error(`${CHROMIUM} not found: apt-get install chromium`);

let ctx: TestContext;
let server: ReturnType<typeof Bun.serve>;
let browser: Browser;
beforeAll(async () => {
  if (!hasChromium) return;
  ctx = await createTestContext();
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => ctx.app.fetch(req) });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close().catch(() => {});
  server?.stop(true);
  await ctx?.close();
});

test.skipIf(!hasChromium)(
  "the reference page lists the operations with no request leaving the host",
  async () => {
    const origin = `http://127.0.0.1:${server.port}`;
    const page = await browser.newPage();
    const problems: string[] = [];
    const seen = await recordRequests(page, (r) => {
      if (r.status >= 400) problems.push(`${r.status} ${r.url}`);
    });
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(m.text());
    });
    page.on("pageerror", (e) => problems.push(e.message));
    const res = await page.goto(`${origin}/api/v1/docs`);
    expect(res?.headers()["content-security-policy"]).toContain("script-src 'self'");
    await page.getByText("Log in with email and password").first().waitFor({ timeout: 15_000 });
    // Swagger UI (5.3x) virtualizes a long operation list: only the operations near the viewport are
    // in the page, so it is scrolled down until the signal operation comes into view.
    const signal = page.getByText("Post a trading signal (API key)").first();
    for (let i = 0; i < 200 && !(await signal.isVisible()); i++) await page.mouse.wheel(0, 400);
    await signal.waitFor();
    expect(offOrigin(seen, origin)).toEqual([]);
    expect(seen.map((r) => r.url)).toContain(`${origin}/api/v1/openapi.json`);
    expect(problems).toEqual([]);
  },
  30_000,
);
