import { afterEach, expect, test } from "bun:test";
import { startFakeTelegram } from "../fakes/telegram.ts";
import { json } from "../helpers/context.ts";
import { MINT, MINT2, startTrading } from "../helpers/trading.ts";

// Telegram /closeall (issue 41 item 6): asks to confirm, naming the mode and the count; "Yes"
// closes every open position through the same close as POST /trading/close-all; "Pause and close
// all" pauses entries first; Cancel closes nothing.

const LINKED = 111;
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setUp() {
  const tg = await startFakeTelegram();
  const t = await startTrading({ env: tg.env() });
  cleanups.push(
    () => tg.close(),
    () => t.close(),
  );
  const telegram = t.ctx.services.notifications.telegram!;
  const poll = async () => {
    await telegram.bot.pollOnce(0);
    await telegram.notifier.flush();
  };
  const { code } = await json(await t.ctx.request("POST", "/api/v1/notifications/telegram/link", { token: t.token }));
  tg.userSends(LINKED, `/start ${code}`);
  await poll();
  await t.createAgent({ name: "alpha" });
  await t.postSignal({ tokenAddress: MINT });
  await t.postSignal({ tokenAddress: MINT2 });
  await t.settle();
  expect(t.count("positions", "status = 'open'")).toBe(2);
  await poll(); // the "Opened" notifications go out before the commands below
  return { t, tg, poll };
}

test("/closeall asks with the mode and the count; Cancel closes nothing; Yes closes every position", async () => {
  const { t, tg, poll } = await setUp();
  tg.userSends(LINKED, "/closeall");
  await poll();
  const ask = tg.lastMessageTo(LINKED)!;
  expect(ask.text).toBe(
    "Close all 2 open positions (simulation and live)? Each is sold at market through the manual close.",
  );
  tg.press(LINKED, ask.message_id, "Cancel");
  await poll();
  expect(t.count("positions", "status = 'open'")).toBe(2);

  tg.userSends(LINKED, "/closeall simulation");
  await poll();
  const ask2 = tg.lastMessageTo(LINKED)!;
  expect(ask2.text).toStartWith("Close all 2 open positions (simulation)?");
  tg.press(LINKED, ask2.message_id, "Yes, close 2");
  await poll();
  const done = tg.messagesTo(LINKED).find((m) => m.message_id === ask2.message_id);
  expect(done?.text).toStartWith("Closed 2 of 2 positions.");
  expect(t.count("positions", "status = 'open'")).toBe(0);
  expect(t.count("historical_swaps", "close_reason = 'manual'")).toBe(2);

  tg.userSends(LINKED, "/closeall live");
  await poll();
  expect(tg.lastMessageTo(LINKED)?.text).toBe("No open positions in live mode.");
  tg.userSends(LINKED, "/closeall everything");
  await poll();
  expect(tg.lastMessageTo(LINKED)?.text).toBe("Usage: /closeall [simulation|live|all]");
});

test("Pause and close all pauses entries in the mode, then closes", async () => {
  const { t, tg, poll } = await setUp();
  tg.userSends(LINKED, "/closeall");
  await poll();
  const ask = tg.lastMessageTo(LINKED)!;
  tg.press(LINKED, ask.message_id, "Pause and close all");
  await poll();
  const done = tg.messagesTo(LINKED).find((m) => m.message_id === ask.message_id);
  expect(done?.text).toStartWith("Paused entries in simulation and live mode. Closed 2 of 2 positions.");
  expect(t.count("positions", "status = 'open'")).toBe(0);
  const status = await json(await t.ctx.request("GET", "/api/v1/trading/status", { token: t.token }));
  expect([status.simulation.paused, status.live.paused]).toEqual([true, true]);
  // Audited like POST /trading/close-all: no side door around the owner's log.
  const log = await json(await t.ctx.request("GET", "/api/v1/audit-log?action=trading.close_all", { token: t.token }));
  expect(log.entries).toHaveLength(1);
  expect(log.entries[0]).toMatchObject({
    actor: "telegram",
    target: "all",
    details: { mode: "all", pause: true, positions: 2, closed: 2, failed: 0 },
  });
});
