import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { DEMO_COPY_WALLETS } from "../../src/market/demo/copy-wallets.ts";
import { CHROMIUM, hasChromium, openServedPage, type ServedPage } from "../helpers/browser.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, createTestContext, json, login, type TestContext } from "../helpers/context.ts";

// The dashboard's Copy trading page (issue "Copy trading" item 4) in a real headless Chromium
// against the real app on a 127.0.0.1 listener, on the demo market (its synthetic wallets trade),
// the watcher driven by the test: a bad address explained next to the field → follow a demo
// wallet → its detected trades with what the automated agent did → pause, resume → remove.

if (!hasChromium && process.env.CI === "true") throw new Error(`${CHROMIUM} not found: apt-get install chromium`);

const STEP_MS = 30_000;
const WALLET = DEMO_COPY_WALLETS[0]!;
let ctx: TestContext;
let served: ServedPage | undefined;
let origin = "";
let page: Page;

beforeAll(async () => {
  if (!hasChromium) return;
  ctx = await createTestContext({ env: { LOG_LEVEL: "warn", DEMO_MARKET: "true" } });
  const { token } = await login(ctx);
  const agent = await json(await ctx.request("POST", "/api/v1/agents", { token, body: { name: "copier" } }));
  await ctx.request("PUT", `/api/v1/agents/${agent.id}`, { token, body: { automatedTradingSimulation: true } });
  served = await openServedPage(ctx, { idleTimeout: 0, viewport: { width: 1280, height: 860 } });
  ({ origin, page } = served);
}, 60_000);

afterAll(async () => {
  await served?.close();
  await ctx?.close();
});

const t = hasChromium ? test : test.skip;

t(
  "follow a demo wallet, see its copied trades and the agent's outcome, pause, resume and remove it",
  async () => {
    await page.goto(`${origin}/`);
    await page.getByLabel("Email").fill(ADMIN_EMAIL);
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Agents", exact: true }).waitFor();
    await page.getByRole("link", { name: "Copy trading" }).click();
    await page.getByText("No wallets followed yet.").waitFor();

    await page.getByLabel("Wallet address").fill("0xnotsolana");
    await page.getByRole("button", { name: "Follow wallet" }).click();
    await expect(page.locator("#ct-address-error").textContent()).resolves.toBe(
      "address must be a base58 Solana public key (32 bytes)",
    );

    await page.getByLabel("Wallet address").fill(WALLET.address);
    await page.getByLabel("Label").fill("Ant");
    await page.getByLabel("Minimum SOL per trade").fill("0.05");
    await page.getByRole("button", { name: "Follow wallet" }).click();
    const card = page.getByRole("article", { name: "Wallet Ant" });
    await card.getByText("No trades detected since it was followed.").waitFor();

    for (let i = 0; i < 40; i++) {
      ctx.clock.advance(15_000);
      await ctx.services.copyTrading.watcher.tick();
    }
    await ctx.services.signalQueue.idle();
    await page.getByRole("button", { name: "Refresh" }).click();
    const table = page.getByRole("table", { name: "Detected trades of Ant" });
    await table.waitFor();
    await table.getByText("copier: traded").first().waitFor();

    await card.getByRole("button", { name: "Pause" }).click();
    await card.getByText("paused", { exact: false }).first().waitFor();
    await card.getByRole("button", { name: "Resume" }).click();
    await card.getByRole("button", { name: "Pause" }).waitFor();

    await card.getByRole("button", { name: "Remove" }).click();
    await card.getByRole("button", { name: "Remove wallet" }).click();
    await page.getByText("No wallets followed yet.").waitFor();
    expect(served!.pageErrors).toEqual([]);
  },
  STEP_MS * 3,
);
