import { afterEach, expect, test } from "bun:test";
import { systemClock } from "../../src/clock.ts";
import { startFakeTelegram } from "../fakes/telegram.ts";
import { startWebhookReceiver } from "../fakes/webhook-receiver.ts";
import { createTestContext, json, login } from "../helpers/context.ts";
import { until } from "../helpers/until.ts";

// The loops serve() starts (every other test drives ticks itself): the delivery worker wakes when
// something is queued, the bot long-polls the Bot API, and stop() ends both promptly.

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

test("after start(): a queued event is delivered and a command answered without explicit ticks; stop() returns", async () => {
  const tg = await startFakeTelegram();
  const receiver = await startWebhookReceiver();
  const ctx = await createTestContext({
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: "true", ...tg.env() },
    services: { clock: systemClock },
  });
  cleanups.push(
    () => tg.close(),
    () => receiver.close(),
    () => ctx.close(),
  );
  const { token, user } = await login(ctx);
  const hook = await json(
    await ctx.request("POST", "/api/v1/webhooks", { token, body: { url: receiver.url, events: ["trade.failed"] } }),
  );
  receiver.setSecret(hook.secret);
  const link = await json(await ctx.request("POST", "/api/v1/notifications/telegram/link", { token }));

  await ctx.services.start();
  ctx.services.events.publish("trade.failed", user.id, {
    agentId: "agent-1",
    tokenAddress: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263",
    mode: "simulation",
    side: "buy",
    reason: "x",
  });
  tg.userSends(42, `/start ${link.code}`);
  await until(() => receiver.received.length > 0 && tg.messagesTo(42).length > 0, "the delivery and the answer");
  expect(receiver.verified()[0]?.payload?.type).toBe("trade.failed");
  expect(tg.messagesTo(42)[0]?.text).toStartWith("Linked.");

  await until(() => tg.openPolls() === 1, "the next long poll");
  const calls = tg.requests.length;
  await ctx.services.stop();
  // stop() cut the held long poll short (the fake saw its client go away) and asked nothing more:
  // the loop has ended, so no poll can follow.
  await until(() => tg.cancelledPolls() === 1 && tg.openPolls() === 0, "the long poll cancelled");
  expect(tg.requests.length).toBe(calls);
});

test("start() and stop() with a ManualClock: the loops wait on real timers, so they neither spin nor hang", async () => {
  const tg = await startFakeTelegram();
  const ctx = await createTestContext({ env: tg.env() });
  cleanups.push(
    () => tg.close(),
    () => ctx.close(),
  );
  await ctx.services.start();
  // A loop spinning on the ManualClock's sleep would starve the event loop: the poll never arrives.
  await until(() => tg.openPolls() === 1, "the bot's long poll");
  const polls = tg.requests.filter((r) => r.method === "getUpdates");
  expect(polls).toHaveLength(1); // one long poll held open, not a loop of them
  expect(polls[0]!.body.timeout).toBe(30);
  await ctx.services.stop();
  await until(() => tg.cancelledPolls() === 1 && tg.openPolls() === 0, "the long poll cancelled");
  expect(tg.requests.filter((r) => r.method === "getUpdates")).toHaveLength(1);
});
