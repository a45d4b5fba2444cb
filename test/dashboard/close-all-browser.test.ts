import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { CHROMIUM, hasChromium, openServedPage, type ServedPage } from "../helpers/browser.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, createApiKey, json } from "../helpers/context.ts";
import { MINT, MINT2, startTrading, type TradingContext } from "../helpers/trading.ts";

// Issue 41 items 5 and 6 in a real headless Chromium against the real app on a 127.0.0.1 listener
// with the fake market: the agent's strategy page shows and edits its signal sources (a source
// that does not exist is refused with its detail); the header's "Close all positions…" asks with
// the mode and the count, offers "Pause entries first", and closes through POST /trading/close-all.
// The tests run in order and share one page.

if (!hasChromium && process.env.CI === "true") throw new Error(`${CHROMIUM} not found: apt-get install chromium`);
const STEP_MS = 30_000;

let t: TradingContext;
let served: ServedPage | undefined;
let page: Page;
let origin = "";
let agentId = "";

beforeAll(async () => {
  if (!hasChromium) return;
  t = await startTrading({ env: { LOG_LEVEL: "warn" } });
  await createApiKey(t.ctx, t.token, ["signals"], "momentum-bot");
  agentId = (await t.createAgent({ name: "Closer", config: { filters: { sources: ["momentum-bot"] } } })).id;
  served = await openServedPage(t.ctx, { timeoutMs: 20_000 });
  ({ origin, page } = served);
}, 60_000);

afterAll(async () => {
  await served?.close();
  await t?.close();
});

const run = hasChromium ? test : test.skip;

run(
  "the strategy page shows the agent's sources and refuses one that does not exist",
  async () => {
    await page.goto(`${origin}/`);
    await page.getByLabel("Email").fill(ADMIN_EMAIL);
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Agents", exact: true }).waitFor();
    await page.goto(`${origin}/#/agents/${agentId}/strategy`);
    const field = page.getByLabel("Trade signals from");
    expect(await field.inputValue()).toBe("momentum-bot");
    await page.getByText("empty = every source").waitFor();
    await field.fill("momentum-bot\nno-such-bot");
    await page.getByRole("button", { name: "Save strategy" }).click();
    await page.getByText('filters.sources.1: no API key named "no-such-bot"').first().waitFor();
    expect(t.ctx.services.agents.getConfig(t.userId, agentId).filters.sources).toEqual(["momentum-bot"]);
  },
  STEP_MS,
);

run(
  "Close all positions asks with the mode and the count, pauses first when asked, then closes",
  async () => {
    // Two positions, opened by the agent's own source.
    const key = await createApiKey(t.ctx, t.token, ["signals"], "second-key");
    await t.ctx.request("PUT", `/api/v1/agents/${agentId}/config`, {
      token: t.token,
      body: { config: { filters: { sources: [] } } },
    });
    await t.postSignal({ tokenAddress: MINT }, key.key);
    await t.postSignal({ tokenAddress: MINT2 }, key.key);
    await t.settle();
    expect(await t.positions(agentId)).toHaveLength(2);

    await page.goto(`${origin}/#/`);
    await page.locator(".trading-switch summary").click();
    await page.getByRole("button", { name: "Close all positions…" }).click();
    const dialog = page.getByRole("dialog", { name: "Close all positions" });
    await dialog.getByText("Close 2 positions (simulation and live)?").waitFor();
    // Live holds none: nothing to close, the button says so and cannot be pressed.
    await dialog.getByLabel("Live", { exact: true }).check();
    await dialog.getByText("Close 0 positions (live)?").waitFor();
    expect(await dialog.getByRole("button", { name: "Close 0 positions" }).isDisabled()).toBe(true);
    await dialog.getByLabel("All modes").check();
    // Cancel closes nothing.
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect(await t.positions(agentId)).toHaveLength(2);

    await page.getByRole("button", { name: "Close all positions…" }).click();
    await dialog.getByLabel("Pause entries first (no new positions open in simulation and live mode)").check();
    await dialog.getByRole("button", { name: "Close 2 positions" }).click();
    await page
      .getByRole("status", { name: "Close all result" })
      .getByText("Entries paused in simulation and live mode. Closed 2 of 2 positions.")
      .waitFor();
    expect(await t.positions(agentId)).toHaveLength(0);
    expect(t.count("historical_swaps", "close_reason = 'manual'")).toBe(2);
    const status = await json(await t.ctx.request("GET", "/api/v1/trading/status", { token: t.token }));
    expect([status.simulation.paused, status.live.paused]).toEqual([true, true]);
    expect(served?.pageErrors).toEqual([]);
  },
  STEP_MS,
);
