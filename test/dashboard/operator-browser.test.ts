import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { type FakeTelegram, startFakeTelegram } from "../fakes/telegram.ts";
import { CHROMIUM, hasChromium, openServedPage, recordRequests, type ServedPage } from "../helpers/browser.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, createTestContext, json, login, type TestContext } from "../helpers/context.ts";

// Operator experience in a real headless Chromium against the real app on a 127.0.0.1 listener
// (in-process, so the test drives the Telegram poll itself), with the local fake of the Bot API
// holding a different token than the service's: a first visit asks for no refresh (no refused
// request in the log); the Notifications page says the Bot API refused the token and offers no
// link code; the strategy editor edits filters.signalTypes; "Win rate" is "–" without trades.

if (!hasChromium && process.env.CI === "true") throw new Error(`${CHROMIUM} not found: apt-get install chromium`);
const STEP_MS = 30_000;

let tg: FakeTelegram;
let ctx: TestContext;
let served: ServedPage | undefined;
let origin = "";
let page: Page;
let agentId = "";
const failedResponses: string[] = [];
/** Auth responses, navigations and console errors in order, for a failed step's report. */
const trail: string[] = [];
/** Refused auth requests (the offline test context's SOL price answers 503: not the dashboard's). */
const refusedAuth = () => failedResponses.filter((r) => r.includes("/api/v1/auth/"));

beforeAll(async () => {
  if (!hasChromium) return;
  tg = await startFakeTelegram();
  ctx = await createTestContext({
    env: { LOG_LEVEL: "warn", ...tg.env(), TELEGRAM_BOT_TOKEN: "999999:REFUSED-token-abcdefghijklmnop" },
  });
  const { token } = await login(ctx);
  const res = await ctx.request("POST", "/api/v1/agents", { token, body: { name: "Operator" } });
  agentId = (await json(res)).id;
  await ctx.services.notifications.telegram!.bot.pollOnce(0).catch(() => {});
  served = await openServedPage(ctx, { timeoutMs: 20_000 });
  ({ origin, page } = served);
  await recordRequests(page, (r) => {
    if (r.status >= 400) failedResponses.push(`${r.status} ${r.url}`);
    if (r.url.includes("/api/v1/auth/")) trail.push(`${r.status} ${new URL(r.url).pathname}`);
  });
  page.on("framenavigated", (f) => {
    if (f === page.mainFrame()) trail.push(`navigated ${f.url()}`);
  });
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") trail.push(`console ${m.type()}: ${m.text()}`);
  });
}, 60_000);

afterAll(async () => {
  await served?.close();
  await ctx?.close();
  await tg?.close();
});

const t = hasChromium ? test : test.skip;

/** Runs a step; a failure says where the page was (URL, headings, refused requests, page errors). */
async function step<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const headings = await page
      .locator("h1, h2")
      .allTextContents()
      .catch(() => []);
    const state = {
      url: page.url(),
      headings,
      failedResponses,
      pageErrors: served?.pageErrors ?? [],
      trail,
      // The service's own warnings and errors (LOG_LEVEL=warn here), the last ten.
      serviceLog: ctx.logs.slice(-10),
    };
    throw new Error(
      `${what}: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}; page: ${JSON.stringify(state)}`,
    );
  }
}

t(
  "a first visit shows the login form without a refused refresh request",
  async () => {
    await page.goto(`${origin}/`);
    await page.getByRole("button", { name: "Log in" }).waitFor();
    expect(refusedAuth()).toEqual([]);
    await page.getByLabel("Email").fill(ADMIN_EMAIL);
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Agents", exact: true }).waitFor();
    // A reload resumes the session from the cookie (the hint cookie says there is one).
    await page.reload();
    await page.getByRole("heading", { name: "Agents", exact: true }).waitFor();
    expect(refusedAuth()).toEqual([]);
  },
  STEP_MS,
);

t(
  "Notifications: a refused bot token is shown with its error, and no link code is offered",
  async () => {
    await step("open Notifications", () => page.getByRole("link", { name: "Notifications" }).click());
    await page.getByRole("heading", { name: "Telegram" }).waitFor();
    await page.getByText("bot token refused").waitFor();
    await page.getByText("(401 Unauthorized)").waitFor();
    expect(await page.getByRole("button", { name: "Link a chat" }).count()).toBe(0);
    // The webhooks' event list is above the preferences, and the text says so.
    await page.getByText("Webhooks have their own event list, above.").waitFor();
  },
  STEP_MS,
);

t(
  "the strategy editor edits filters.signalTypes, one type per line",
  async () => {
    await page.goto(`${origin}/#/agents/${agentId}/strategy`);
    const field = page.getByLabel("Signal types to buy on");
    expect(await step("read the signal types", () => field.inputValue())).toBe("");
    await page.getByText("empty = buy, long, entry").waitFor();
    await field.fill("buy\ndip");
    await page.getByRole("button", { name: "Save strategy" }).click();
    await page.getByText("Strategy saved.").waitFor();
    expect(ctx.services.agents.getConfig((await login(ctx)).user.id, agentId).filters.signalTypes).toEqual([
      "buy",
      "dip",
    ]);
  },
  STEP_MS,
);

t(
  "performance: 'Win rate' is a dash while no trade closed",
  async () => {
    await page.goto(`${origin}/#/agents/${agentId}/performance`);
    await step("open Performance", () => page.getByRole("heading", { name: "Performance" }).waitFor());
    const rate = page.locator("dt:text-is('Win rate') + dd");
    expect(await rate.textContent()).toBe("–");
    // The session held all along.
    expect(refusedAuth()).toEqual([]);
  },
  STEP_MS,
);
