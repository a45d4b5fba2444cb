import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { DEMO_TOKENS } from "../../src/market/demo/tokens.ts";
import {
  CHROMIUM,
  hasChromium,
  offOrigin,
  type SeenRequest,
  type ServicePage,
  startServiceWithPage,
} from "../helpers/browser.ts";
import type { ChildService } from "../helpers/child-service.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD } from "../helpers/context.ts";

// Issue 14 acceptance: the dashboard works with DEMO_MARKET=true too. A real service process on
// the built-in synthetic market (every outside URL empty: nothing may leave the host), driven in
// headless Chromium: log in, create an agent, switch automation on, a demo signal's position shows
// on the agent page without a reload, and the overview shows the demo SOL price.

if (!hasChromium && process.env.CI === "true") throw new Error(`${CHROMIUM} not found: apt-get install chromium`);

let run: ServicePage | undefined;
let service: ChildService;
let page: Page;
let requested: SeenRequest[] = [];

beforeAll(async () => {
  if (!hasChromium) return;
  run = await startServiceWithPage("trading-agent-demo-ui-", { DEMO_MARKET: "true" }, { timeoutMs: 15_000 });
  ({ service, page, requested } = run);
}, 60_000);

afterAll(async () => {
  await run?.close();
});

test.skipIf(!hasChromium)(
  "on the demo market: log in, an agent, a demo signal's position appears live, the overview",
  async () => {
    const token = DEMO_TOKENS[0]!;
    await page.goto(`${service.url}/`);
    await page.getByLabel("Email").fill(ADMIN_EMAIL);
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Agents", exact: true }).waitFor();
    // Issue 44 item 6: demo mode is plain to see, and a new user is walked through the first steps,
    // the signal's curl line naming a demo token.
    await page.locator("header.topbar").getByText("Demo market", { exact: true }).waitFor();
    const steps = page.getByRole("region", { name: "First steps" });
    for (const step of ["Create an API key", "Create an agent", "Switch its automation on", "Post a signal"]) {
      await steps.getByText(step).first().waitFor();
    }
    const curl = (await steps.locator("pre").textContent()) ?? "";
    expect(curl).toContain(`curl -X POST ${service.url}/api/v1/trading-signals`);
    expect(curl).toContain(DEMO_TOKENS[1]!.address);
    await page.getByLabel("Agent name").fill("Demo bot");
    await page.getByRole("button", { name: "Create agent" }).click();
    await page.getByRole("heading", { name: "Demo bot" }).waitFor();
    await page.getByRole("switch", { name: "Simulation automation" }).check();
    await page.getByRole("heading", { name: "Open positions" }).waitFor();

    // A signal with a key of the same user, the way a bot would post it.
    const login = await fetch(`${service.url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }),
    });
    const { accessToken } = (await login.json()) as { accessToken: string };
    const keyRes = await fetch(`${service.url}/api/v1/api-keys`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({ name: "demo bot", scopes: ["signals"] }),
    });
    const { key } = (await keyRes.json()) as { key: string };
    await page.evaluate("window.marker = 7");
    const signal = await fetch(`${service.url}/api/v1/trading-signals`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-API-Key": key },
      body: JSON.stringify({ tokenAddress: token.address, symbol: token.symbol, signalType: "buy", signalStrength: 5 }),
    });
    expect(signal.status).toBe(201);
    const row = page.getByRole("row", { name: `Position ${token.symbol}` });
    await row.waitFor();
    expect(await page.evaluate("window.marker")).toBe(7);
    // The demo token is made up: no explorer link would find it.
    expect(await row.locator("a.explorer").count()).toBe(0);

    await page.getByRole("link", { name: "Overview" }).click();
    await page.getByRole("article", { name: "Agent Demo bot" }).waitFor();
    await page
      .getByText(/\bdemo · /)
      .first()
      .waitFor(); // the SOL price card names its source
    // One SOL price on the overview: the card's, not a second one in the portfolio's header.
    await page
      .getByRole("region", { name: "Portfolio" })
      .getByText(/\d agents?/)
      .waitFor();
    expect(
      await page
        .getByRole("region", { name: "Portfolio" })
        .getByText(/SOL \$/)
        .count(),
    ).toBe(0);
    expect(await page.getByRole("region", { name: "First steps" }).count()).toBe(0);
    expect(offOrigin(requested, service.url)).toEqual([]);
  },
  60_000,
);
