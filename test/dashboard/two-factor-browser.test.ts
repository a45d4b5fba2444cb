import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { ManualClock } from "../../src/clock.ts";
import {
  CHROMIUM,
  hasChromium,
  offOrigin,
  openServedPage,
  recordRequests,
  type SeenRequest,
  type ServedPage,
} from "../helpers/browser.ts";
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  createApiKey,
  createTestContext,
  login,
  type TestContext,
} from "../helpers/context.ts";
import { totp } from "../helpers/totp.ts";

// Issue 43's dashboard parts in a real headless Chromium against the real app (in process): the
// Security page turns two-factor login on (a QR code drawn in the page, the key as text, a code,
// ten recovery codes shown once) and off; the login form asks for the code; the Audit log page
// lists, filters, pages and exports the user's entries. The codes are computed by the test's own
// TOTP (test/helpers/totp.ts) at the service's clock, which the test moves a step (30 s) whenever
// it needs a code the service has not accepted yet (a code is accepted once). Screenshots of each
// page at desktop and phone width go to test-output/screenshots (as in browser.test.ts).

if (!hasChromium && process.env.CI === "true") throw new Error(`${CHROMIUM} not found: apt-get install chromium`);

const SHOTS = join(import.meta.dir, "../../test-output/screenshots");
const DESKTOP = { width: 1280, height: 900 };

let ctx: TestContext;
let served: ServedPage | undefined;
let page: Page;
let requested: SeenRequest[];

beforeAll(async () => {
  if (!hasChromium) return;
  // The service's clock at real time: the browser's cookies and the tokens agree on "now".
  ctx = await createTestContext({ clock: new ManualClock(Date.now()) });
  // 51 api_key.created entries: one more than a page of the audit log.
  const { token } = await login(ctx);
  for (let i = 0; i < 51; i++) await createApiKey(ctx, token, ["signals"], `key-${i}`);
  served = await openServedPage(ctx, { timeoutMs: 20_000, viewport: DESKTOP });
  page = served.page;
  requested = await recordRequests(page);
}, 60_000);

afterAll(async () => {
  await served?.close();
  await ctx?.close();
});

const nextStep = () => ctx.clock.advance(30_000);

/** Desktop and phone screenshots of what is on screen now. */
async function shoot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(SHOTS, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
}

async function logIn(code?: string) {
  await page.getByLabel("Email").fill(ADMIN_EMAIL);
  await page.getByLabel("Password").fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Log in" }).click();
  if (code === undefined) return;
  await page.getByLabel("Two-factor code").fill(code);
  await page.getByRole("button", { name: "Log in" }).click();
}

async function logOut() {
  await page.getByRole("button", { name: "Log out" }).click();
  await page.getByRole("heading", { name: "Trading agents" }).waitFor();
}

const downloaded = async (click: () => Promise<void>) => {
  const downloading = page.waitForEvent("download");
  await click();
  const file = await downloading;
  return { name: file.suggestedFilename(), text: await Bun.file((await file.path()) as string).text() };
};

test.skipIf(!hasChromium)(
  "two-factor login on with a QR code and ten recovery codes, the login form asks for the code, the audit log lists it, and off again",
  async () => {
    const origin = served!.origin;
    await page.goto(`${origin}/`);
    await logIn();
    await page.getByRole("link", { name: "Security" }).click();
    const section = page.getByRole("region", { name: "Two-factor login" });
    await section.getByText("The password alone logs in.").waitFor();

    // Turn on: the QR code is an SVG drawn in the page, the key is there as text.
    await section.getByRole("button", { name: "Turn on two-factor login" }).click();
    const qr = section.getByRole("img", { name: "QR code for your authenticator app" });
    await qr.waitFor();
    expect(await qr.evaluate((el) => el.tagName.toLowerCase())).toBe("svg");
    expect(await qr.locator("path").getAttribute("d")).toMatch(/^M\d+ \d+h1v1h-1z/);
    expect(await qr.locator("image, use, foreignObject").count()).toBe(0);
    const secret = (await section.getByText(/^[A-Z2-7]{4}( [A-Z2-7]{4}){7}$/).textContent())!.replace(/ /g, "");
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await shoot("security-enrol");

    // A code of another time is refused and nothing changes; the current one turns it on.
    await section.getByLabel("Code from the app").fill(totp(secret, ctx.clock.now() + 5 * 60_000));
    await section.getByRole("button", { name: "Turn on", exact: true }).click();
    await section.getByRole("alert").filter({ hasText: "Invalid two-factor code" }).waitFor();
    await section.getByLabel("Code from the app").fill(totp(secret, ctx.clock.now()));
    await section.getByRole("button", { name: "Turn on", exact: true }).click();

    const list = section.getByRole("list", { name: "Recovery codes" });
    await list.waitFor();
    await section.getByText("Save these recovery codes now.").waitFor();
    const codes = (await list.getByRole("listitem").allInnerTexts()).map((c) => c.trim());
    expect(codes).toHaveLength(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    await shoot("security-recovery-codes");
    const file = await downloaded(() => section.getByRole("button", { name: "Download codes" }).click());
    expect(file.name).toBe("recovery-codes.txt");
    for (const c of codes) expect(file.text).toContain(c);
    await section.getByRole("button", { name: "I have saved them" }).click();
    await list.waitFor({ state: "detached" });
    await section.getByText("Login asks for a code from your authenticator app").waitFor();

    // Log in again: the password alone is not enough; a recovery code works (once).
    await logOut();
    await logIn();
    const codeField = page.getByLabel("Two-factor code");
    await codeField.waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);
    await shoot("login-two-factor");
    await codeField.fill(codes[0]!.toUpperCase());
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("button", { name: "Log out" }).waitFor();

    // And the app's code: a wrong one is said so, the next step's code logs in.
    await logOut();
    await logIn(totp(secret, ctx.clock.now() + 10 * 60_000));
    await page.getByRole("alert").filter({ hasText: "Invalid two-factor code" }).waitFor();
    nextStep();
    await page.getByLabel("Two-factor code").fill(totp(secret, ctx.clock.now()));
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("button", { name: "Log out" }).waitFor();

    // The audit log: the enable and the logins are there; the filter narrows; pages of 50; CSV.
    await page.getByRole("link", { name: "Audit log" }).click();
    const table = page.getByRole("table", { name: "Audit entries" });
    await table.getByRole("cell", { name: "auth.2fa_enabled", exact: true }).waitFor();
    // The newest 50: the three logins in this browser (the set-up login is on the next page, past the keys).
    expect(await table.getByRole("cell", { name: "auth.login", exact: true }).count()).toBe(3);
    expect(await table.getByRole("cell", { name: "auth.login_failed", exact: true }).count()).toBeGreaterThan(0);
    expect(await table.getByRole("cell", { name: "auth.logout", exact: true }).count()).toBe(2);
    await page.getByLabel("Action").selectOption("auth.2fa_enabled");
    await page.getByText("1–1 of 1").waitFor();
    expect(await table.locator("tbody tr").count()).toBe(1);
    await table.getByRole("cell", { name: "user", exact: true }).waitFor();
    const csv = await downloaded(() => page.getByRole("button", { name: "Download CSV" }).click());
    expect(csv.name).toBe("audit-log.csv");
    const lines = csv.text.trim().split("\r\n");
    expect(lines[0]).toBe("id,at,action,actor,ip,userAgent,target,details");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(",auth.2fa_enabled,user,");

    await page.getByLabel("Action").selectOption("api_key.created");
    await page.getByText("1–50 of 51").waitFor();
    expect(await table.locator("tbody tr").count()).toBe(50);
    await shoot("audit-log");
    await table.getByRole("cell", { name: "name: key-50, prefix: svc_", exact: false }).first().waitFor();
    await page.getByRole("button", { name: "Older" }).click();
    await page.getByText("51–51 of 51").waitFor();
    expect(await table.locator("tbody tr").count()).toBe(1);
    await table.getByRole("cell", { name: /^name: key-0, / }).waitFor();
    expect(await page.getByRole("button", { name: "Older" }).isDisabled()).toBe(true);
    await page.getByRole("button", { name: "Newer" }).click();
    await page.getByText("1–50 of 51").waitFor();

    // Off: a current code (not one accepted before).
    await page.getByRole("link", { name: "Security" }).click();
    await section.getByRole("button", { name: "Turn off two-factor login" }).click();
    await section.getByLabel("Current code or a recovery code").fill(totp(secret, ctx.clock.now()));
    await section.getByRole("button", { name: "Turn off", exact: true }).click();
    await section.getByRole("alert").filter({ hasText: "Invalid two-factor code" }).waitFor();
    nextStep();
    await section.getByLabel("Current code or a recovery code").fill(totp(secret, ctx.clock.now()));
    await section.getByRole("button", { name: "Turn off", exact: true }).click();
    await section.getByText("The password alone logs in.").waitFor();
    await logOut();
    await logIn();
    await page.getByRole("button", { name: "Log out" }).waitFor();
    expect(await page.getByLabel("Two-factor code").count()).toBe(0);

    expect(offOrigin(requested, origin)).toEqual([]);
    expect(served!.pageErrors).toEqual([]);
  },
  90_000,
);
