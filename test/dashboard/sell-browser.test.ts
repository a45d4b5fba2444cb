import { afterAll, beforeAll, expect, test } from "bun:test";
import { CHROMIUM, hasChromium, logInAsAdmin, openServedPage, type ServedPage } from "../helpers/browser.ts";
import { json } from "../helpers/context.ts";
import { MINT, startTrading, type TradingContext } from "../helpers/trading.ts";

// The sell buttons (issue 44 item 5) in a real headless Chromium against the real app on a
// 127.0.0.1 listener, the market replaced by the local fake: on a simulation position's page,
// "Sell 25 %" then "Sell 50 %" then "Sell 100 %", each after its confirmation; the page says what
// was sold, the remaining amount follows (5000 → 3750 → 1875 → closed) and the trades list shows
// each sale. The tests run in order on one page.

if (!hasChromium && process.env.CI === "true") throw new Error(`${CHROMIUM} not found: apt-get install chromium`);

/** The service with one simulation position of 5000 BONK, and a logged-in page on that position. */
const s = {} as { t: TradingContext; served?: ServedPage; agentId: string; positionId: string };

beforeAll(async () => {
  if (!hasChromium) return;
  s.t = await startTrading({ env: { LOG_LEVEL: "warn" } });
  s.agentId = (await s.t.createAgent()).id;
  await s.t.postSignal({ tokenAddress: MINT, symbol: "BONK" });
  await s.t.settle();
  s.positionId = (await s.t.positions(s.agentId))[0].id;
  s.served = await openServedPage(s.t.ctx, { timeoutMs: 20_000 });
  await logInAsAdmin(s.served);
  await s.served.page.goto(`${s.served.origin}/#/agents/${s.agentId}/positions/${s.positionId}`);
  await s.served.page.getByRole("heading", { name: "Position BONK" }).waitFor();
}, 60_000);

afterAll(async () => {
  await s.served?.close();
  await s.t?.close();
});

const run = hasChromium ? test : test.skip;
const page = () => s.served!.page;
const sells = () =>
  page()
    .getByRole("list", { name: "Trades of this position" })
    .getByText(/▼ Sell/);

async function sellShare(share: number): Promise<void> {
  await page()
    .getByRole("button", { name: `Sell ${share} %`, exact: true })
    .click();
  await page()
    .getByRole("button", { name: `Confirm sell ${share} %` })
    .click();
}

run(
  "Sell 25 %: a confirmation, then the sale is shown, the remaining amount and the trades list follow",
  async () => {
    await page().getByRole("button", { name: "Sell 25 %", exact: true }).click();
    await page().getByText("Sell 25 % of BONK (about 1,250 of 5,000)?").waitFor();
    // Cancel sells nothing.
    await page().getByRole("button", { name: "Cancel" }).click();
    expect(s.t.tokenBalance(s.agentId)).toBe("5000");

    await sellShare(25);
    await page().getByRole("status").getByText("Sold 25 %: 1,250 BONK for 0.125 SOL; 3,750 left").waitFor();
    await page()
      .getByText(/3,750 tokens/)
      .waitFor();
    await sells().first().waitFor();
    expect(await sells().count()).toBe(1);
    const [p] = await s.t.positions(s.agentId);
    expect(p.takeProfit.remainingAmount).toBe(3750);
  },
  30_000,
);

run(
  "Sell 50 % whose answer is lost: Confirm again answers the same sale (its Idempotency-Key), then Sell 100 % closes",
  async () => {
    // The first answer never reaches the page (the server sold; the connection dropped): the
    // page shows the error and keeps the confirmation; Confirm again resends the same key.
    const keys: string[] = [];
    let lost = false;
    await page().route("**/api/v1/agent-positions/*/*/sell", async (route) => {
      keys.push(route.request().headers()["idempotency-key"] ?? "");
      if (lost) return route.continue();
      lost = true;
      await route.fetch();
      await route.abort("connectionreset");
    });
    await sellShare(50);
    await page().getByRole("alert").waitFor();
    await page().getByRole("button", { name: "Confirm sell 50 %" }).click();
    await page().getByRole("status").getByText("Sold 50 %: 1,875 BONK for 0.1875 SOL; 1,875 left").waitFor();
    expect(keys.length).toBe(2);
    expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(keys[1]).toBe(keys[0]!);
    await page().unroute("**/api/v1/agent-positions/*/*/sell");
    await page()
      .getByText(/1,875 tokens/)
      .waitFor();
    for (let i = 0; i < 100 && (await sells().count()) < 2; i++) await Bun.sleep(50);
    expect(await sells().count()).toBe(2);
    const [p] = await s.t.positions(s.agentId);
    expect(p.takeProfit.remainingAmount).toBe(1875);

    await page().getByRole("button", { name: "Sell 100 %", exact: true }).click();
    await page().getByText("Sell all 1,875 BONK and close the position?").waitFor();
    await page().getByRole("button", { name: "Confirm sell 100 %" }).click();
    await page()
      .getByRole("status")
      .getByText(/^BONK closed: P\/L .*SOL/)
      .waitFor();
    await page().getByText("This position is closed or does not exist").waitFor();
    expect(await s.t.positions(s.agentId)).toEqual([]);
    const txs = await json(
      await s.t.ctx.request("GET", `/api/v1/agent-transactions?agentId=${s.agentId}&transactionType=SELL`, {
        token: s.t.token,
      }),
    );
    expect(txs.map((x: any) => x.inputAmount).sort()).toEqual(["1250", "1875", "1875"]);
    expect(txs.every((x: any) => x.isTakeProfit === false)).toBe(true);
    expect(s.served?.pageErrors).toEqual([]);
  },
  30_000,
);
