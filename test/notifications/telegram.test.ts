import { afterEach, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { pollBackoffMs } from "../../src/notifications/telegram/bot.ts";
import { NOT_LINKED_TEXT } from "../../src/notifications/telegram/messages.ts";
import { type FakeTelegram, startFakeTelegram } from "../fakes/telegram.ts";
import { json, login } from "../helpers/context.ts";
import { MINT, startTrading, type TradingContext } from "../helpers/trading.ts";

// The Telegram bot end to end (issue 18 acceptance): grammY talking to a local fake of the Bot
// API over HTTP, updates pulled by explicit getUpdates rounds (pollOnce), a real service trading
// against the fake market.

const LINKED = 111;
const STRANGER = 999;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setUp(clock = new ManualClock()) {
  const tg = await startFakeTelegram();
  const t = await startTrading({ clock, env: tg.env() });
  cleanups.push(
    () => tg.close(),
    () => t.close(),
  );
  const telegram = t.ctx.services.notifications.telegram;
  if (!telegram) throw new Error("telegram not configured");
  const poll = async () => {
    await telegram.bot.pollOnce(0);
    await telegram.notifier.flush();
  };
  return { t, tg, telegram, poll };
}

async function link(t: TradingContext, tg: FakeTelegram, poll: () => Promise<void>, chatId = LINKED) {
  const res = await t.ctx.request("POST", "/api/v1/notifications/telegram/link", { token: t.token });
  expect(res.status).toBe(201);
  const { code, expiresAt } = await json(res);
  expect(code).toMatch(/^[A-Z2-9]{10}$/);
  expect(Date.parse(expiresAt) - t.ctx.clock.now()).toBe(10 * 60_000);
  tg.userSends(chatId, `/start ${code}`);
  await poll();
  expect(tg.lastMessageTo(chatId)?.text).toStartWith("Linked.");
  return code as string;
}

test("linking with a one-time code; a non-linked chat gets no data", async () => {
  const { t, tg, poll } = await setUp();
  const agent = await t.createAgent({ name: "alpha" });
  await t.postSignal();
  await t.settle();
  const [position] = await t.positions(agent.id);

  for (const cmd of ["/status", "/positions", "/close", "/pause", "/resume", "hello"]) tg.userSends(STRANGER, cmd);
  await poll();
  const toStranger = tg.messagesTo(STRANGER);
  expect(toStranger).toHaveLength(6);
  expect(toStranger.every((m) => m.text === NOT_LINKED_TEXT && !m.reply_markup)).toBe(true);
  // The agent is still automated: /pause from a stranger changed nothing.
  const a = await json(await t.ctx.request("GET", `/api/v1/agents/${agent.id}`, { token: t.token }));
  expect(a.automatedTradingSimulation).toBe(true);

  const code = await link(t, tg, poll);
  // The code is one-time: another chat cannot reuse it.
  tg.userSends(STRANGER, `/start ${code}`);
  await poll();
  expect(tg.lastMessageTo(STRANGER)?.text).toContain("unknown or has expired");

  tg.userSends(LINKED, "/positions");
  await poll();
  expect(tg.lastMessageTo(LINKED)?.text).toContain("BONK (alpha)");
  // Nothing the stranger ever got names the position, the token or the agent.
  const all = JSON.stringify(tg.requests.filter((r) => String(r.body.chat_id) === String(STRANGER)));
  for (const secret of [position.id, "BONK", "alpha", agent.id]) expect(all).not.toContain(secret);

  const status = await json(await t.ctx.request("GET", "/api/v1/notifications/telegram", { token: t.token }));
  expect(status).toEqual({
    configured: true,
    authorized: true,
    lastError: null,
    chats: [{ chatId: String(LINKED), linkedAt: expect.any(String) }],
  });
});

test("an expired code does not link", async () => {
  const { t, tg, poll } = await setUp();
  const { code } = await json(await t.ctx.request("POST", "/api/v1/notifications/telegram/link", { token: t.token }));
  t.ctx.clock.advance(10 * 60_000 + 1);
  tg.userSends(LINKED, `/start ${code}`);
  await poll();
  expect(tg.lastMessageTo(LINKED)?.text).toContain("unknown or has expired");
  tg.userSends(LINKED, "/status");
  await poll();
  expect(tg.lastMessageTo(LINKED)?.text).toBe(NOT_LINKED_TEXT);
});

test("/close from a linked chat closes with closeReason manual after the confirmation button", async () => {
  const { t, tg, poll } = await setUp();
  await link(t, tg, poll);
  const agent = await t.createAgent({ name: "alpha" });
  await t.postSignal();
  await t.settle();
  const [position] = await t.positions(agent.id);

  tg.userSends(LINKED, "/close");
  await poll();
  const ask = tg.lastMessageTo(LINKED)!;
  expect(ask.text).toBe("Which position should be closed?");
  tg.press(LINKED, ask.message_id, "BONK (alpha)");
  await poll();
  expect(tg.lastMessageTo(LINKED)?.text).toStartWith("Close BONK (alpha)?");
  expect(t.count("positions", "status = 'open'")).toBe(1); // not before confirmation

  // Cancel leaves it open.
  tg.press(LINKED, ask.message_id, "Cancel");
  await poll();
  expect(tg.lastMessageTo(LINKED)?.text).toBe("Cancelled. Nothing was closed.");
  expect(t.count("positions", "status = 'open'")).toBe(1);

  tg.userSends(LINKED, "/close");
  await poll();
  const ask2 = tg.lastMessageTo(LINKED)!;
  tg.press(LINKED, ask2.message_id, "BONK (alpha)");
  await poll();
  tg.press(LINKED, ask2.message_id, "Yes, close it");
  await poll();
  const done = tg.messagesTo(LINKED).find((m) => m.message_id === ask2.message_id);
  expect(done?.text).toStartWith("Closed. P/L");
  expect(t.count("positions", "status = 'open'")).toBe(0);
  expect(t.count("historical_swaps", "position_id = ? AND close_reason = 'manual'", position.id)).toBe(1);
  // The close was also announced, as any close is.
  expect(tg.messagesTo(LINKED).some((m) => m.text.startsWith("🔴 Closed BONK (alpha) by manual close"))).toBe(true);
  expect(tg.answeredCallbacks.length).toBeGreaterThanOrEqual(4);
});

test("/buy <mint> <sol> asks for confirmation naming the mode, then buys through the gate, recorded as manual", async () => {
  const { t, tg, poll } = await setUp();
  await link(t, tg, poll);
  const agent = await t.createAgent({ name: "alpha", automated: false });

  tg.userSends(LINKED, "/buy BONK 0.5");
  await poll();
  expect(tg.lastMessageTo(LINKED)?.text).toBe("Usage: /buy <token mint> <SOL amount> [agent name]");

  tg.userSends(LINKED, `/buy ${MINT} 0.5`);
  await poll();
  const ask = tg.lastMessageTo(LINKED)!;
  expect(ask.text).toBe(
    `Buy 0.5 SOL of ${MINT} with alpha (simulation mode)? The same checks as an automated entry apply.`,
  );
  tg.press(LINKED, ask.message_id, "Cancel");
  await poll();
  expect(tg.lastMessageTo(LINKED)?.text).toBe("Cancelled. Nothing was bought.");
  expect(t.count("positions")).toBe(0);

  // Paused: the confirmed buy is refused by the gate's rule, nothing bought.
  await t.ctx.request("POST", "/api/v1/trading/pause", { token: t.token, body: { mode: "all" } });
  tg.userSends(LINKED, `/buy ${MINT} 0.5 alpha`);
  await poll();
  const paused = tg.lastMessageTo(LINKED)!;
  tg.press(LINKED, paused.message_id, "Yes, buy");
  await poll();
  expect(tg.messagesTo(LINKED).find((m) => m.message_id === paused.message_id)?.text).toBe(
    "Not bought: Trading is paused for simulation mode; POST /api/v1/trading/resume resumes it",
  );
  expect(t.count("positions")).toBe(0);

  await t.ctx.request("POST", "/api/v1/trading/resume", { token: t.token, body: { mode: "all" } });
  tg.userSends(LINKED, `/buy ${MINT} 0.5`);
  await poll();
  const ok = tg.lastMessageTo(LINKED)!;
  tg.press(LINKED, ok.message_id, "Yes, buy");
  await poll();
  expect(tg.messagesTo(LINKED).find((m) => m.message_id === ok.message_id)?.text).toBe(
    `Bought 0.5 SOL of ${MINT} with alpha (simulation mode).`,
  );
  const [pos] = await t.positions(agent.id);
  expect(pos.purchase.amount).toBe(5000);
  expect(
    t.count(
      "agent_transactions tx JOIN trading_signals s ON s.id = tx.signal_id",
      "tx.agent_id = ? AND tx.transaction_type = 'BUY' AND s.source = 'manual'",
      agent.id,
    ),
  ).toBe(1);
  expect(t.count("positions")).toBe(1);
});

test("/pause and /resume toggle automation of one agent or all", async () => {
  const { t, tg, poll } = await setUp();
  await link(t, tg, poll);
  const a1 = await t.createAgent({ name: "alpha" });
  const a2 = await t.createAgent({ name: "beta" });
  const flags = async (id: string) => {
    const a = await json(await t.ctx.request("GET", `/api/v1/agents/${id}`, { token: t.token }));
    return [a.automatedTradingSimulation, a.automatedTradingLive];
  };
  tg.userSends(LINKED, "/pause beta");
  await poll();
  expect(tg.lastMessageTo(LINKED)?.text).toBe("Paused automated trading of beta.");
  expect(await flags(a1.id)).toEqual([true, true]);
  expect(await flags(a2.id)).toEqual([false, false]);
  tg.userSends(LINKED, "/pause");
  await poll();
  expect(tg.lastMessageTo(LINKED)?.text).toBe("Paused automated trading of all agents.");
  expect(await flags(a1.id)).toEqual([false, false]);
  tg.userSends(LINKED, "/resume");
  await poll();
  // Resuming turns on the automation of each agent's current mode (simulation here), not live.
  expect(await flags(a1.id)).toEqual([true, false]);
  expect(await flags(a2.id)).toEqual([true, false]);
  tg.userSends(LINKED, "/status");
  await poll();
  expect(tg.lastMessageTo(LINKED)?.text).toContain("alpha: simulation, automation on");
  tg.userSends(LINKED, "/pause gamma");
  await poll();
  expect(tg.lastMessageTo(LINKED)?.text).toBe('No agent named "gamma".');
});

test("/pauseall and /resumeall switch every mode; a tripped breaker is an alert whatever the preferences (issue 34)", async () => {
  const { t, tg, poll } = await setUp();
  await link(t, tg, poll);
  const agent = await t.createAgent({ name: "alpha" });
  tg.userSends(LINKED, "/pauseall");
  await poll();
  expect(tg.lastMessageTo(LINKED)?.text).toBe(
    "Paused trading in simulation and live mode: no buys until /resumeall — new entries, copied buys and DCA orders are held. Stop-losses, take-profits, exit signals and /close keep working.",
  );
  const status = await json(await t.ctx.request("GET", "/api/v1/trading/status", { token: t.token }));
  expect([status.simulation.paused, status.live.paused]).toEqual([true, true]);
  tg.userSends(LINKED, "/resumeall");
  await poll();
  expect(tg.lastMessageTo(LINKED)?.text).toBe("Resumed trading in simulation and live mode.");

  // Notifications of closes switched off and quiet hours all day: the alert still rings.
  const prefs = await t.ctx.request("PUT", "/api/v1/notifications/preferences", {
    token: t.token,
    body: { events: ["position.opened"], quietHours: { start: "00:00", end: "23:59", timezone: "UTC" } },
  });
  expect(prefs.status).toBe(200);
  await t.ctx.request("PUT", "/api/v1/risk-limits", {
    token: t.token,
    body: { simulation: { dailyLossLimitSol: 0.1 } },
  });
  await t.postSignal();
  await t.settle();
  expect((await t.positions(agent.id)).length).toBe(1);
  t.fake.setToken("DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263", { priceUsd: "0.005" });
  await t.ctx.services.trading.monitor.tick();
  await poll();
  const alert = tg
    .messagesTo(LINKED)
    .filter((m) => m.text.startsWith("🛑 Daily loss limit reached in simulation mode"));
  expect(alert).toHaveLength(1);
  expect(alert[0]?.disable_notification).toBe(false);
  expect(alert[0]?.text).toContain("No new entries in simulation mode until you resume (/resumeall");
  tg.userSends(LINKED, "/resumeall");
  await poll();
  expect(tg.lastMessageTo(LINKED)?.text).toBe(
    "Resumed trading in simulation and live mode. The daily loss breaker of simulation mode was cleared.",
  );
});

test("trade notifications follow the preferences; quiet hours send silently", async () => {
  const { t, tg, poll } = await setUp(new ManualClock(Date.parse("2026-03-02T12:00:00.000Z")));
  await link(t, tg, poll);
  await t.createAgent({ name: "alpha" });
  await t.postSignal();
  await t.settle();
  await poll();
  const opened = tg.messagesTo(LINKED).filter((m) => m.text.startsWith("🟢 Opened BONK (alpha)"));
  expect(opened).toHaveLength(1);
  expect(opened[0]?.disable_notification).toBe(false);

  // Opened positions off; quiet hours around 13:00 in Berlin (12:00 UTC is 13:00 there in early March).
  const res = await t.ctx.request("PUT", "/api/v1/notifications/preferences", {
    token: t.token,
    body: { events: ["position.closed"], quietHours: { start: "12:30", end: "14:00", timezone: "Europe/Berlin" } },
  });
  expect(res.status).toBe(200);
  await t.createAgent({ name: "beta" });
  await t.postSignal({ tokenAddress: "EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm", symbol: "WIF" });
  await t.settle();
  await poll();
  expect(tg.messagesTo(LINKED).filter((m) => m.text.startsWith("🟢 Opened"))).toHaveLength(1);

  const [pos] = await t.positions((await json(await t.ctx.request("GET", "/api/v1/agents", { token: t.token })))[0].id);
  await t.ctx.request("POST", `/api/v1/agent-positions/${pos.id}/close`, {
    token: t.token,
    body: { reason: "manual" },
  });
  await poll();
  const closed = tg.messagesTo(LINKED).filter((m) => m.text.startsWith("🔴 Closed"));
  expect(closed).toHaveLength(1);
  expect(closed[0]?.disable_notification).toBe(true); // 13:00 in Berlin: quiet
});

test("the daily summary goes once a day from 08:00 UTC to each linked chat", async () => {
  const { t, tg, poll, telegram } = await setUp(new ManualClock(Date.parse("2026-03-02T07:00:00.000Z")));
  await link(t, tg, poll);
  const agent = await t.createAgent({ name: "alpha" });
  await t.postSignal();
  await t.settle();
  const [pos] = await t.positions(agent.id);
  await t.ctx.request("POST", `/api/v1/agent-positions/${pos.id}/close`, { token: t.token });
  expect(await telegram.notifier.summaryTick()).toBe(0); // before 08:00
  t.ctx.clock.advance(3_600_000);
  expect(await telegram.notifier.summaryTick()).toBe(1);
  const summary = tg.lastMessageTo(LINKED)!.text;
  expect(summary).toStartWith("📊 Daily summary (2026-03-01 08:00 – 2026-03-02 08:00 UTC)");
  expect(summary).toContain("Closed trades: 1");
  t.ctx.clock.advance(3 * 3_600_000);
  expect(await telegram.notifier.summaryTick()).toBe(0); // once a day
  t.ctx.clock.advance(24 * 3_600_000);
  // Turned off in the preferences: none.
  const token = (await login(t.ctx)).token;
  const put = await t.ctx.request("PUT", "/api/v1/notifications/preferences", {
    token,
    body: { events: ["position.closed"] },
  });
  expect(put.status).toBe(200);
  expect(await telegram.notifier.summaryTick()).toBe(0);
});

test("/unlink stops notifications; DELETE of a chat unlinks it from the API", async () => {
  const { t, tg, poll } = await setUp();
  await link(t, tg, poll);
  tg.userSends(LINKED, "/unlink");
  await poll();
  expect(tg.lastMessageTo(LINKED)?.text).toContain("Unlinked");
  await link(t, tg, poll);
  const res = await t.ctx.request("DELETE", `/api/v1/notifications/telegram/chats/${LINKED}`, { token: t.token });
  expect(res.status).toBe(200);
  const again = await t.ctx.request("DELETE", `/api/v1/notifications/telegram/chats/${LINKED}`, { token: t.token });
  expect(again.status).toBe(404);
  await t.createAgent();
  await t.postSignal();
  await t.settle();
  await poll();
  expect(tg.messagesTo(LINKED).some((m) => m.text.startsWith("🟢"))).toBe(false);
});

test("a token the Bot API refuses: authorized false with the error, no link code, and polling backs off", async () => {
  const tg = await startFakeTelegram();
  const t = await startTrading({ env: { ...tg.env(), TELEGRAM_BOT_TOKEN: "999999:REFUSED-token-abcdefghijklmnop" } });
  cleanups.push(
    () => tg.close(),
    () => t.close(),
  );
  const status = async () => json(await t.ctx.request("GET", "/api/v1/notifications/telegram", { token: t.token }));
  // Before the Bot API answered anything: not known yet.
  expect(await status()).toEqual({ configured: true, authorized: null, lastError: null, chats: [] });

  await expect(t.ctx.services.notifications.telegram!.bot.pollOnce(0)).rejects.toThrow();
  const after = await status();
  expect(after).toEqual({ configured: true, authorized: false, lastError: "401 Unauthorized", chats: [] });
  expect(JSON.stringify(after)).not.toContain("REFUSED");

  const link = await t.ctx.request("POST", "/api/v1/notifications/telegram/link", { token: t.token });
  expect(link.status).toBe(503);
  expect((await json(link)).error).toBe("The Telegram Bot API refused TELEGRAM_BOT_TOKEN; fix it and restart");
});

test("polling backs off: 5 s doubling to 5 minutes, and 5 minutes at once for a refused token", () => {
  expect([1, 2, 3, 4, 5, 6, 7, 20].map((n) => pollBackoffMs(n, false))).toEqual([
    5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000,
  ]);
  expect(pollBackoffMs(1, true)).toBe(300_000);
});
