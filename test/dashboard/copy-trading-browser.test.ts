import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { DEMO_COPY_WALLETS } from "../../src/market/demo/copy-wallets.ts";
import { CHROMIUM, hasChromium, openServedPage, type ServedPage } from "../helpers/browser.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, createTestContext, json, login, type TestContext } from "../helpers/context.ts";

// The dashboard's Copy trading page (issue "Copy trading" item 4) in a real headless Chromium
// against the real app on a 127.0.0.1 listener, on the demo market (its synthetic wallets trade),
// the watcher driven by the test: a bad address explained next to the field → follow a demo
// wallet with its limits → its detected trades with what the automated agent did, and an ignored
// one with its reason → a group created and deleted → pause, resume → remove.

if (!hasChromium && process.env.CI === "true") throw new Error(`${CHROMIUM} not found: apt-get install chromium`);

const STEP_MS = 30_000;
const WALLET = DEMO_COPY_WALLETS[0]!;
let ctx: TestContext;
let served: ServedPage | undefined;
let origin = "";
let page: Page;
let userId = "";

beforeAll(async () => {
  if (!hasChromium) return;
  ctx = await createTestContext({ env: { LOG_LEVEL: "warn", DEMO_MARKET: "true" } });
  const { token, user } = await login(ctx);
  userId = user.id;
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
    // Limits: a bad one is explained, then the ones the user picks are shown on the card.
    await page.getByLabel("Max open copied positions").fill("0");
    await page.getByRole("button", { name: "Follow wallet" }).click();
    await page.getByText("maxOpenPositions must be a whole number from 1 to 100").waitFor();
    await page.getByLabel("Max open copied positions").fill("3");
    await page.getByLabel("Max SOL per copied buy").fill("0.05");
    await page.getByLabel("Daily SOL budget").fill("2");
    await page.getByRole("button", { name: "Follow wallet" }).click();
    const card = page.getByRole("article", { name: "Wallet Ant" });
    await card.getByText("No trades detected since it was followed.").waitFor();
    await card.getByText("at most 0.05 SOL a copied buy · 3 open copied positions · 2 SOL a day").waitFor();

    // A trade-shaped transaction the wallet did not sign, as the watcher records it: shown ignored.
    const watch = ctx.services.copyTrading.watches.list(userId)[0]!;
    ctx.services.copyTrading.watches.rows.claimTrade({
      watchId: watch.id,
      signature: "5igned8yAn0ther11111111111111111111111111111111111111111111111111111111111111111111",
      side: "sell",
      mint: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263",
      solLamports: "200000000",
      tokenAmount: "1000",
      blockTime: new Date(ctx.clock.now()).toISOString(),
      detectedAt: new Date(ctx.clock.now()).toISOString(),
      ignoredReason: "not_signed",
    });

    // Each tick's signals are decided before the clock jumps again: a copied buy decided more than
    // SIGNAL_MAX_AGE_SECONDS after it arrived is stale and opens nothing.
    for (let i = 0; i < 40; i++) {
      ctx.clock.advance(15_000);
      await ctx.services.copyTrading.watcher.tick();
      await ctx.services.signalQueue.idle();
    }
    await page.getByRole("button", { name: "Refresh" }).click();
    const table = page.getByRole("table", { name: "Detected trades of Ant" });
    await table.waitFor();
    await table.getByText("copier: traded").first().waitFor();
    await table.getByText("ignored: the wallet did not sign it").waitFor();

    // A group of two demo wallets: created, listed, deleted.
    await page.getByLabel("Group name").fill("ants-and-bees");
    await page
      .getByLabel("Group members (one address per line)")
      .fill(`${WALLET.address}\n${DEMO_COPY_WALLETS[1]!.address}`);
    await page.getByRole("button", { name: "Create group" }).click();
    const group = page.getByRole("listitem", { name: "Group ants-and-bees" });
    await group.getByText("2 of 2 wallets within 600 s").waitFor();
    await group.getByRole("button", { name: "Delete" }).click();
    await group.getByRole("button", { name: "Delete group" }).click();
    await page.getByText("No groups yet.").waitFor();

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
