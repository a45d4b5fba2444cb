import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { ManualClock } from "../../src/clock.ts";
import { CHROMIUM, hasChromium, openServedPage, type ServedPage } from "../helpers/browser.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD } from "../helpers/context.ts";
import { MINT, startTrading, type TradingContext } from "../helpers/trading.ts";

// Issue 34 item 7 in a real headless Chromium against the real app (in process, the fake market):
// the overview's "Account P/L over time" chart draws the points the snapshotter wrote (driven by
// the test clock: three 5-minute slots, the token's price moving between them).

if (!hasChromium && process.env.CI === "true") throw new Error(`${CHROMIUM} not found: apt-get install chromium`);
const MIN = 60_000;

let t: TradingContext;
let served: ServedPage | undefined;
let page: Page;

beforeAll(async () => {
  if (!hasChromium) return;
  // The service's clock a quarter of an hour behind the browser's, so its points fall in the last 24 h.
  t = await startTrading({ clock: new ManualClock(Date.now() - 15 * MIN) });
  await t.createAgent({ name: "charted" });
  await t.postSignal();
  await t.settle();
  const snap = t.ctx.services.portfolioHistory;
  for (const usd of ["0.01", "0.015", "0.02"]) {
    t.fake.setToken(MINT, { priceUsd: usd });
    await t.ctx.services.trading.monitor.tick();
    expect(await snap.tick()).toBe(1);
    t.ctx.clock.advance(5 * MIN);
  }
  served = await openServedPage(t.ctx, { timeoutMs: 20_000, viewport: { width: 1280, height: 860 } });
  page = served.page;
}, 60_000);

afterAll(async () => {
  await served?.close();
  await t?.close();
});

test.skipIf(!hasChromium)(
  "the overview draws the account's P/L over time from its points, one line per mode that has any",
  async () => {
    const answer = page.waitForResponse((r) => r.url().includes("/portfolio/history?mode=simulation"));
    await page.goto(`${served!.origin}/`);
    await page.getByLabel("Email").fill(ADMIN_EMAIL);
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    const body = (await (await answer).json()) as { points: { profitLossSol: string }[] };
    expect(body.points).toHaveLength(3);
    expect(Number(body.points[2]!.profitLossSol)).toBeGreaterThan(Number(body.points[0]!.profitLossSol));

    const chart = page.getByRole("figure", { name: "Account P/L over time (SOL)" });
    await chart.waitFor();
    expect(await chart.locator("canvas").count()).toBe(1);
    // The legend names the simulation line only: this user has no live wallet.
    const legend = await chart.locator(".u-legend .u-series .u-label").allTextContents();
    expect(legend).toEqual(["Time", "Simulation"]);
    // Total value instead of P/L: the same chart, redrawn.
    await page.getByLabel("Figure").selectOption("totalValueSol");
    await chart.locator("canvas").waitFor();
    expect(served!.pageErrors).toEqual([]);
  },
  60_000,
);
