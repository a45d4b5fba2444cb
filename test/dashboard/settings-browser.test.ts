import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { ManualClock } from "../../src/clock.ts";
import { type FakeTelegram, startFakeTelegram } from "../fakes/telegram.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../fakes/webhook-receiver.ts";
import {
  CHROMIUM,
  hasChromium,
  openServedPage,
  recordRequests,
  type SeenRequest,
  type ServedPage,
} from "../helpers/browser.ts";
import { ROOT } from "../helpers/child-service.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, createTestContext, json, login, type TestContext } from "../helpers/context.ts";

// The dashboard's Notifications page (issue 18 item 3) in a real headless Chromium against the real
// app on a 127.0.0.1 listener (in-process, so the test drives the delivery worker, the Telegram
// poll and the clock itself), a local webhook receiver that verifies with `standardwebhooks`,
// and the local fake of the Telegram Bot API. In order, sharing one page: log in → a refused URL
// explained next to its field → create a webhook, its secret shown once and copied → send a test
// and see its delivery row → preferences with a bad time zone explained next to the field, then
// saved → link a Telegram chat with the one-time code, unlink it → a webhook failing for 24 h is
// disabled: the overview warns, the Notifications page shows the reason, Enable restores it → delete
// with confirmation. Every request the page makes stays on the service's origin.

if (!hasChromium && process.env.CI === "true") throw new Error(`${CHROMIUM} not found: apt-get install chromium`);

const SHOTS = join(ROOT, "test-output/screenshots");
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };
const STEP_MS = 20_000;
const CHAT = 555_001;

// Real time: the receiver's library checks webhook-timestamp against the wall clock.
const clock = new ManualClock(Date.now());
let receiver: WebhookReceiver;
let failing: WebhookReceiver;
let tg: FakeTelegram;
let ctx: TestContext;
let served: ServedPage | undefined;
let origin = "";
let page: Page;
/** Every request the page made (Chromium's network log). */
let seen: SeenRequest[] = [];
let userId = "";

beforeAll(async () => {
  if (!hasChromium) return;
  mkdirSync(SHOTS, { recursive: true });
  [receiver, failing, tg] = await Promise.all([
    startWebhookReceiver(),
    startWebhookReceiver("/down"),
    startFakeTelegram(),
  ]);
  failing.respondWith(500);
  ctx = await createTestContext({ clock, env: { LOG_LEVEL: "warn", WEBHOOK_ALLOW_PRIVATE_URLS: "true", ...tg.env() } });
  userId = (await login(ctx)).user.id;
  served = await openServedPage(ctx, {
    idleTimeout: 0,
    viewport: DESKTOP,
    prepare: async (browserContext, servedOrigin) => {
      await browserContext.grantPermissions(["clipboard-read", "clipboard-write"], { origin: servedOrigin });
    },
  });
  ({ origin, page } = served);
  seen = await recordRequests(page);
}, 60_000);

afterAll(async () => {
  await served?.close();
  await ctx?.close();
  await Promise.all([receiver?.close(), failing?.close(), tg?.close()]);
});

/** Desktop and phone screenshots; at phone width nothing may stick out sideways. */
async function shoot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(PHONE.width);
  await page.screenshot({ path: join(SHOTS, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
}

const card = (url: string) => page.getByRole("article", { name: `Webhook ${url}` });
const t = hasChromium ? test : test.skip;

t(
  "log in and open Notifications: webhooks, Telegram (configured) and preferences",
  async () => {
    await page.goto(`${origin}/`);
    await page.getByLabel("Email").fill(ADMIN_EMAIL);
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    // Remember me: the session outlives the day the clock is moved forward later.
    await page.getByLabel("Remember me").check();
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Agents", exact: true }).waitFor();
    // No webhook is disabled: the overview has no warning.
    await expect(page.getByRole("alert", { name: "Disabled webhooks" }).count()).resolves.toBe(0);
    await page.getByRole("link", { name: "Notifications" }).click();
    await page.getByRole("heading", { name: "Webhooks" }).waitFor();
    await page.getByRole("heading", { name: "Telegram" }).waitFor();
    await page.getByRole("heading", { name: "Notification preferences" }).waitFor();
    await page.getByText("bot configured").waitFor();
    await page.getByText("No webhooks yet.").waitFor();
  },
  STEP_MS,
);

t(
  "a webhook URL the API refuses is explained next to the field",
  async () => {
    await page.getByLabel("Endpoint URL").fill("ftp://example.com/hooks");
    await page.getByRole("button", { name: "Create webhook" }).click();
    const message = page.locator("#wh-url-error");
    await expect(message.textContent()).resolves.toBe("url must be an absolute http(s) URL");
    await expect(page.getByLabel("Endpoint URL").getAttribute("aria-invalid")).resolves.toBe("true");
    expect(ctx.services.notifications.webhooks.list(userId)).toEqual([]);
  },
  STEP_MS,
);

t(
  "create a webhook with the keyboard: the secret is shown once, copied, then gone",
  async () => {
    await page.getByLabel("Description").fill("My journal");
    await page.getByRole("checkbox", { name: "signal.created" }).check();
    const url = page.getByLabel("Endpoint URL");
    await url.fill(receiver.url);
    await url.press("Enter"); // submits the form
    const secretField = page.getByLabel("Signing secret");
    await secretField.waitFor();
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^whsec_/);
    receiver.setSecret(secret);
    await page.getByRole("button", { name: "Copy secret" }).click();
    await page.getByRole("button", { name: "Copied" }).waitFor();
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe(secret);
    await card(receiver.url).getByText("active", { exact: true }).waitFor();
    const events =
      (await card(receiver.url)
        .locator("p", { hasText: /^Events:/ })
        .textContent()) ?? "";
    expect(events.replace("Events: ", "").split(", ").sort()).toEqual([
      "position.closed",
      "position.opened",
      "signal.created",
      "trade.failed",
    ]);
    await page.getByRole("button", { name: "Done" }).click();
    await expect(secretField.count()).resolves.toBe(0);
    expect(await page.content()).not.toContain(secret);
    // Nothing the page can load again carries it.
    const { token } = await login(ctx);
    expect(await (await ctx.request("GET", "/api/v1/webhooks", { token })).text()).not.toContain(secret);
  },
  STEP_MS,
);

t(
  "send a test: the receiver verifies it and the delivery row appears",
  async () => {
    const hook = card(receiver.url);
    await hook.getByRole("button", { name: "Send test" }).click();
    await hook.getByText(/^Test delivered: 204 in \d+ ms\.$/).waitFor();
    expect(receiver.verified().map((r) => r.payload?.type)).toEqual(["webhook.test"]);
    const row = hook.getByRole("table", { name: "Recent deliveries" }).locator("tbody tr");
    await row.first().waitFor();
    await expect(row.count()).resolves.toBe(1);
    const cells = await row.locator("td").allTextContents();
    expect(cells.slice(1, 5)).toEqual(["webhook.test", "204", "1", "delivered"]);
    expect(cells[6]).toMatch(/^\d+ ms$/);
    await shoot("notifications");
  },
  STEP_MS,
);

t(
  "preferences: a bad time zone is explained next to the field, then the fixed form is saved",
  async () => {
    const form = page.getByRole("form", { name: "Notification preferences" });
    await form.getByRole("checkbox", { name: "Daily summary (08:00 UTC)" }).uncheck();
    await form.getByRole("checkbox", { name: "Send silently during quiet hours" }).check();
    await form.getByLabel("Quiet from").fill("22:00");
    await form.getByLabel("Quiet until").fill("07:00");
    await form.getByLabel("Time zone").fill("Mars/Olympus");
    await form.getByRole("button", { name: "Save preferences" }).click();
    await expect(page.locator("#pref-quiet-zone-error").textContent()).resolves.toBe(
      "quietHours.timezone must be an IANA time zone such as Europe/Berlin",
    );
    await expect(form.getByLabel("Time zone").getAttribute("aria-invalid")).resolves.toBe("true");
    expect(ctx.services.notifications.preferences.get(userId).updatedAt).toBeNull();

    await form.getByLabel("Time zone").fill("Europe/Berlin");
    await form.getByRole("button", { name: "Save preferences" }).click();
    await form.getByText("Preferences saved.").waitFor();
    await expect(page.locator("#pref-quiet-zone-error").count()).resolves.toBe(0);
    const saved = ctx.services.notifications.preferences.get(userId);
    expect(saved.events).not.toContain("daily_summary");
    expect(saved.events).toContain("position.closed");
    expect(saved.quietHours).toEqual({ start: "22:00", end: "07:00", timezone: "Europe/Berlin" });
  },
  STEP_MS,
);

t(
  "Telegram: link a chat with the one-time code, then unlink it",
  async () => {
    await page.getByRole("button", { name: "Link a chat" }).click();
    const box = page.getByRole("status", { name: "Link code" });
    const text = (await box.textContent()) ?? "";
    const code = /^\/start (\S+)$/.exec((await box.locator("code").textContent()) ?? "")?.[1];
    expect(code).toHaveLength(10);
    expect(text).toContain("Send this message to your bot before");
    await shoot("notifications-telegram-code");
    tg.userSends(CHAT, `/start ${code}`);
    await ctx.services.notifications.telegram?.bot.pollOnce(0);
    expect(tg.lastMessageTo(CHAT)?.text).toStartWith("Linked.");
    // The page polls while the code is shown; the new chat appears without a click.
    const chat = page.getByRole("listitem", { name: `Chat ${CHAT}` });
    await chat.waitFor();
    await expect(box.count()).resolves.toBe(0);
    await chat.getByRole("button", { name: "Unlink" }).click();
    await chat.getByRole("button", { name: "Confirm unlink" }).click();
    await page.getByText("No chat linked yet.").waitFor();
    expect(ctx.services.notifications.telegram?.links.links(userId)).toEqual([]);
  },
  STEP_MS,
);

t(
  "a webhook failing for 24 hours is disabled: the overview warns, the Notifications page shows the reason, Enable restores it",
  async () => {
    const { token } = await login(ctx);
    const res = await ctx.request("POST", "/api/v1/webhooks", {
      token,
      body: { url: failing.url, events: ["position.updated"] },
    });
    expect(res.status).toBe(201);
    const hook = await json(res);
    const worker = ctx.services.notifications.webhookWorker;
    const peak = () =>
      ctx.services.events.publish("position.updated", userId, {
        positionId: crypto.randomUUID(),
        agentId: crypto.randomUUID(),
        change: "peak",
        peakPriceSol: "0.001",
      });
    peak();
    expect(await worker.tick()).toEqual({ attempted: 1, delivered: 0, failed: 1 });
    clock.advance(25 * 3_600_000);
    peak();
    await worker.tick();
    expect(ctx.services.notifications.webhooks.get(userId, hook.id).status).toBe("disabled");

    // The access token has expired on the moved clock: the page refreshes it from the cookie.
    await page.getByRole("link", { name: "Overview" }).click();
    const warning = page.getByRole("alert", { name: "Disabled webhooks" });
    await page.getByRole("heading", { name: "Agents", exact: true }).waitFor();
    await warning.waitFor();
    const said = (await warning.textContent()) ?? "";
    expect(said).toContain(failing.url);
    expect(said).toContain("Failing since");
    expect(said).toContain("HTTP 500");
    await shoot("overview-webhook-disabled");

    await warning.getByRole("link", { name: "Open notification settings" }).click();
    const disabled = card(failing.url);
    await disabled.getByText("disabled", { exact: true }).waitFor();
    await expect(disabled.getByRole("alert").textContent()).resolves.toContain("Failing since");
    await page.getByText("1 webhook is disabled").waitFor();
    await shoot("notifications-webhook-disabled");
    await disabled.getByRole("button", { name: "Enable" }).click();
    await disabled.getByText("active", { exact: true }).waitFor();
    expect(ctx.services.notifications.webhooks.get(userId, hook.id).enabled).toBe(true);
  },
  STEP_MS,
);

t(
  "delete asks first; then the webhook is gone and the page made no request to another origin",
  async () => {
    const doomed = card(failing.url);
    await doomed.getByRole("button", { name: "Delete" }).click();
    await doomed.getByRole("button", { name: "Cancel" }).click();
    await doomed.getByRole("button", { name: "Delete" }).click();
    await doomed.getByRole("button", { name: "Confirm delete" }).click();
    await expect(doomed.waitFor({ state: "detached" })).resolves.toBeUndefined();
    const left = ctx.services.notifications.webhooks.list(userId);
    expect(left.map((w) => w.url)).toEqual([receiver.url]);

    const requested = seen.map((r) => r.url);
    expect(requested.filter((u) => u.includes("/api/v1/webhooks")).length).toBeGreaterThan(0);
    expect(requested.filter((u) => !u.startsWith(`${origin}/`))).toEqual([]);
    expect(served!.pageErrors).toEqual([]);
  },
  STEP_MS,
);
