import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { TRADINGVIEW_ADDRESSES } from "../../src/ip-ranges.ts";
import { CHROMIUM, hasChromium, openServedPage, type ServedPage } from "../helpers/browser.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, createTestContext, type TestContext } from "../helpers/context.ts";

// The dashboard's Signal hooks page (issue 42 item 5) in a real headless Chromium against the real
// app on a 127.0.0.1 listener: create a hook → its URL shown once and copied, the TradingView
// message copied → that message delivered to that URL as TradingView sends it → the delivery in
// the hook's last deliveries → revoke, after which the URL answers 404.

if (!hasChromium && process.env.CI === "true") throw new Error(`${CHROMIUM} not found: apt-get install chromium`);

const STEP_MS = 30_000;
const BONK = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
let ctx: TestContext;
let served: ServedPage | undefined;
let origin = "";
let page: Page;

beforeAll(async () => {
  if (!hasChromium) return;
  ctx = await createTestContext({ env: { LOG_LEVEL: "warn", TRUST_PROXY: "true" } });
  served = await openServedPage(ctx, {
    idleTimeout: 0,
    viewport: { width: 1280, height: 860 },
    prepare: async (browserContext, servedOrigin) => {
      await browserContext.grantPermissions(["clipboard-read", "clipboard-write"], { origin: servedOrigin });
    },
  });
  ({ origin, page } = served);
}, 60_000);

afterAll(async () => {
  await served?.close();
  await ctx?.close();
});

const t = hasChromium ? test : test.skip;
const fromTradingView = { "content-type": "text/plain", "x-forwarded-for": TRADINGVIEW_ADDRESSES[0] };
const clipboard = () => page.evaluate("navigator.clipboard.readText()") as Promise<string>;

t(
  "create a hook, copy its URL and the TradingView message, see a delivery, revoke it",
  async () => {
    await page.goto(`${origin}/`);
    await page.getByLabel("Email").fill(ADMIN_EMAIL);
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Agents", exact: true }).waitFor();
    await page.getByRole("link", { name: "Signal hooks" }).click();
    await page.getByText("No signal hooks yet.").waitFor();

    await page.getByLabel("Hook name").fill("tv-rsi");
    await page.getByLabel(/^Tokens/).fill(`BONKUSDT=${BONK}`);
    await page.getByRole("button", { name: "Create hook" }).click();
    const urlField = page.getByLabel("Hook URL");
    await urlField.waitFor();
    const url = await urlField.inputValue();
    expect(url).toMatch(new RegExp(`^${origin}/api/v1/hooks/whk_[A-Za-z0-9_-]{43}$`));
    await page.getByRole("button", { name: "Copy URL" }).click();
    await page.getByRole("button", { name: "Copied" }).waitFor();
    expect(await clipboard()).toBe(url);
    await page.getByRole("button", { name: "Copy message" }).click();
    const message = await clipboard();
    expect(JSON.parse(message)).toMatchObject({ symbol: "{{ticker}}", timestamp: "{{timenow}}", signalStrength: "4" });

    // TradingView fills the placeholders and posts the message as text/plain, with no header; the
    // hook takes TradingView's addresses by default (here forwarded by a proxy on this machine).
    const filled = message
      .replace("{{ticker}}", "BONKUSDT")
      .replace("{{timenow}}", new Date(ctx.clock.now()).toISOString())
      .replace("{{strategy.order.comment}}", "RSI under 30");
    const path = new URL(url).pathname;
    const delivered = await ctx.request("POST", path, { rawBody: filled, headers: fromTradingView });
    expect(delivered.status).toBe(201);

    // Done forgets the URL; the card shows the delivery once refreshed.
    await page.getByRole("button", { name: "Done" }).click();
    expect(await page.getByLabel("Hook URL").count()).toBe(0);
    const card = page.getByRole("article", { name: "Hook tv-rsi" });
    await card.getByRole("button", { name: "Refresh deliveries" }).click();
    await card.getByRole("cell", { name: "201", exact: true }).waitFor();
    await card.getByRole("link", { name: "buy BONKUSDT strength 4" }).waitFor();

    await card.getByRole("button", { name: "Revoke" }).click();
    await card.getByRole("button", { name: "Confirm revoke" }).click();
    await page.getByText("No signal hooks yet.").waitFor();
    const after = await ctx.request("POST", path, { rawBody: filled, headers: fromTradingView });
    expect(after.status).toBe(404);
  },
  STEP_MS * 2,
);
