import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { ManualClock } from "../../src/clock.ts";
import { CHROMIUM, hasChromium, openServedPage, type ServedPage } from "../helpers/browser.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, json } from "../helpers/context.ts";
import { MINT, MINT2, startTrading, type TradingContext } from "../helpers/trading.ts";

// Issue 44 item 4 in a real headless Chromium against the real app (in process, the fake market):
// the Reports page shows the realized P/L by day, week and token with a CSV download, and a
// position's page its holding time and its entry price in USD.

if (!hasChromium && process.env.CI === "true") throw new Error(`${CHROMIUM} not found: apt-get install chromium`);
const HOUR = 3_600_000;

let t: TradingContext;
let served: ServedPage | undefined;
let page: Page;
let agentId: string;
let openPositionId: string;

beforeAll(async () => {
  if (!hasChromium) return;
  // The service's clock 5 hours behind the browser's: the open position has been held 5 h.
  t = await startTrading({ clock: new ManualClock(Date.now() - 5 * HOUR) });
  agentId = (await t.createAgent({ name: "reporter" })).id;
  await t.postSignal();
  await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
  await t.settle();
  t.fake.setToken(MINT, { priceUsd: "0.012" });
  const positions = await t.positions(agentId);
  const bonk = positions.find((p: any) => p.tokenAddress === MINT);
  openPositionId = positions.find((p: any) => p.tokenAddress === MINT2).id;
  const res = await t.ctx.request("POST", `/api/v1/agent-positions/${agentId}/${bonk.id}/close`, {
    token: t.token,
    body: { reason: "manual" },
  });
  expect(res.status).toBe(200);
  served = await openServedPage(t.ctx, { timeoutMs: 20_000, viewport: { width: 1280, height: 860 } });
  page = served.page;
}, 60_000);

afterAll(async () => {
  await served?.close();
  await t?.close();
});

test.skipIf(!hasChromium)(
  "Reports: realized P/L by day, week and token, with its CSV; the position page shows the time held and USD prices",
  async () => {
    const day = new Date(t.ctx.clock.now()).toISOString().slice(0, 10);
    const report = await json(await t.ctx.request("GET", "/api/v1/reports/pnl?groupBy=token", { token: t.token }));
    const pl = Number(report.total.realizedProfitLossSol);
    expect(pl).toBeGreaterThan(0);

    await page.goto(`${served!.origin}/`);
    await page.getByLabel("Email").fill(ADMIN_EMAIL);
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("link", { name: "Reports" }).click();
    const table = page.getByRole("table", { name: "P/L report" });
    await table.getByRole("cell", { name: day, exact: true }).waitFor();
    await table.getByRole("columnheader", { name: "Day" }).waitFor();

    await page.getByLabel("Group by").selectOption("token");
    await table.getByRole("cell", { name: "BONK", exact: true }).waitFor();
    expect(await table.locator("tbody tr").count()).toBe(1); // WIF is still open: nothing realized
    await page.getByLabel("Group by").selectOption("week");
    await table.getByRole("columnheader", { name: "Week" }).waitFor();
    await table.getByRole("cell", { name: /^\d{4}-W\d{2} \(from \d{4}-\d{2}-\d{2}\)$/ }).waitFor();
    await page.getByLabel("Agent").selectOption({ label: "reporter" });
    await page.getByLabel("Mode").selectOption("live");
    await page.getByText("No sales yet.").waitFor();
    await page.getByLabel("Mode").selectOption("simulation");
    await table.waitFor();

    const downloading = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export CSV" }).click();
    const file = await downloading;
    expect(file.suggestedFilename()).toBe("pnl-by-week.csv");
    const csv = (await Bun.file((await file.path()) as string).text()).split("\r\n");
    expect(csv[0]).toBe("key,periodStart,tokenSymbol,sales,realizedProfitLossSol,realizedProfitLossUsd");
    expect(csv[1]).toEndWith(`,1,${report.total.realizedProfitLossSol},${report.total.realizedProfitLossUsd}`);

    // The open WIF position, bought 5 hours ago (service clock) at $2.
    await page.goto(`${served!.origin}/#/agents/${agentId}/positions/${openPositionId}`);
    const levels = page.getByRole("definition").filter({ hasText: /^5 h \d+ min$/ });
    await levels.waitFor();
    await page.getByRole("term").filter({ hasText: "Held for" }).waitFor();
    await page
      .getByRole("definition")
      .filter({ hasText: /SOL \$2(\.00)?$/ })
      .first()
      .waitFor();
    expect(served!.pageErrors).toEqual([]);
  },
  60_000,
);
