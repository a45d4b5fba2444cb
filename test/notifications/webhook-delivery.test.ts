import { afterEach, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from "../../src/notifications/webhooks/retry-schedule.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../fakes/webhook-receiver.ts";
import { json, login, type TestContext } from "../helpers/context.ts";
import { MINT2, startTrading, type TradingContext } from "../helpers/trading.ts";

// Webhook delivery end to end (issue 18 acceptance): a real service trading against the fake
// market, a real receiver on 127.0.0.1 verifying with the `standardwebhooks` library, the
// delivery worker driven by explicit ticks on a ManualClock (set to real time, because the
// library checks webhook-timestamp against the wall clock).

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setUp(): Promise<{ t: TradingContext; receiver: WebhookReceiver }> {
  const t = await startTrading({ clock: new ManualClock(Date.now()), env: { WEBHOOK_ALLOW_PRIVATE_URLS: "true" } });
  const receiver = await startWebhookReceiver();
  cleanups.push(
    () => t.close(),
    () => receiver.close(),
  );
  return { t, receiver };
}

async function createWebhook(ctx: TestContext, token: string, url: string, events: string[]) {
  const res = await ctx.request("POST", "/api/v1/webhooks", { token, body: { url, events, description: "mine" } });
  expect(res.status).toBe(201);
  return json(res);
}

test("a verifying receiver gets position.opened on the first delivery tick after the trade", async () => {
  const { t, receiver } = await setUp();
  const hook = await createWebhook(t.ctx, t.token, receiver.url, ["position.opened"]);
  expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  receiver.setSecret(hook.secret);
  const agent = await t.createAgent();
  await t.postSignal();
  await t.settle();
  const [position] = await t.positions(agent.id);
  expect(position).toBeDefined();

  const report = await t.ctx.services.notifications.webhookWorker.tick();
  expect(report).toEqual({ attempted: 1, delivered: 1, failed: 0 });
  expect(receiver.received).toHaveLength(1);
  const [got] = receiver.verified();
  expect(got?.verifyError ?? null).toBeNull();
  expect(got?.payload?.type).toBe("position.opened");
  expect(got?.payload?.data.positionId).toBe(position.id);
  expect(got?.payload?.data.agentId).toBe(agent.id);
  // The message names the agent and the token, not only their ids (PRODUCT.md §7).
  expect(got?.payload?.data).toMatchObject({ agentName: "agent", tokenSymbol: "BONK" });
  expect(got?.id).toMatch(/^msg_[0-9a-f]{32}$/);
  expect(got?.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  // Events the endpoint did not subscribe to (trade.executed) were not queued.
  expect(t.count("webhook_deliveries")).toBe(1);

  const list = await json(await t.ctx.request("GET", `/api/v1/webhooks/${hook.id}/deliveries`, { token: t.token }));
  expect(list).toEqual([
    expect.objectContaining({
      deliveryId: got?.id,
      event: "position.opened",
      attempt: 1,
      statusCode: 204,
      error: null,
      deliveryStatus: "delivered",
    }),
  ]);
});

test("receiver down across a restart: every event arrives exactly once when it is back, same webhook-id", async () => {
  const { t, receiver } = await setUp();
  const hook = await createWebhook(t.ctx, t.token, receiver.url, ["position.opened", "trade.executed"]);
  receiver.setSecret(hook.secret);
  await receiver.down();
  await t.createAgent({ name: "a1" });
  await t.postSignal();
  await t.settle();
  await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
  await t.settle();
  const queued = t.ctx.database.sqlite
    .query<{ id: string }, []>("SELECT id FROM webhook_deliveries ORDER BY created_at, id")
    .all()
    .map((r) => r.id);
  expect(queued).toHaveLength(4); // two trades, two opened positions

  const first = await t.ctx.services.notifications.webhookWorker.tick();
  expect(first).toEqual({ attempted: 4, delivered: 0, failed: 4 });

  // A restart: new services over the same database file, the same clock.
  const ctx2 = await t.ctx.restart();
  cleanups.push(() => ctx2.close());
  const worker = ctx2.services.notifications.webhookWorker;
  expect(await worker.tick()).toEqual({ attempted: 0, delivered: 0, failed: 0 }); // not due yet
  t.ctx.clock.advance(RETRY_DELAYS_MS[0]);
  expect(await worker.tick()).toEqual({ attempted: 4, delivered: 0, failed: 4 }); // still down

  await receiver.up();
  t.ctx.clock.advance(RETRY_DELAYS_MS[1]);
  expect(await worker.tick()).toEqual({ attempted: 4, delivered: 4, failed: 0 });
  for (let i = 0; i < 5; i++) {
    t.ctx.clock.advance(RETRY_DELAYS_MS[5]);
    expect((await worker.tick()).attempted).toBe(0);
  }
  const ids = receiver.verified().map((r) => r.id);
  expect(receiver.received.every((r) => r.verifyError === null)).toBe(true);
  expect(ids.sort()).toEqual([...queued].sort());
  expect(new Set(ids).size).toBe(4);
  expect(
    receiver
      .verified()
      .map((r) => r.payload?.type)
      .sort(),
  ).toEqual(["position.opened", "position.opened", "trade.executed", "trade.executed"]);
  // The third attempt of each delivery carried the id of the first.
  const attempts = ctx2.database.sqlite
    .query<{ delivery_id: string; n: number }, []>(
      "SELECT delivery_id, count(*) AS n FROM webhook_attempts GROUP BY delivery_id",
    )
    .all();
  expect(attempts.map((a) => a.n)).toEqual([3, 3, 3, 3]);
});

test("retries follow 5 s, 30 s, 2 min, 10 min, 1 h, 6 h and then give up", async () => {
  const { t, receiver } = await setUp();
  const hook = await createWebhook(t.ctx, t.token, receiver.url, ["trade.failed"]);
  receiver.setSecret(hook.secret);
  receiver.respondWith(500);
  const worker = t.ctx.services.notifications.webhookWorker;
  t.ctx.services.events.publish("trade.failed", t.userId, {
    agentId: "agent-1",
    tokenAddress: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263",
    mode: "simulation",
    side: "buy",
    reason: "test",
  });
  const started = t.ctx.clock.now();
  const times: number[] = [];
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    // One second before it is due nothing goes; at the due time it does.
    if (i > 0) {
      t.ctx.clock.advance(RETRY_DELAYS_MS[i - 1]! - 1000);
      expect((await worker.tick()).attempted).toBe(0);
      t.ctx.clock.advance(1000);
    }
    expect(await worker.tick()).toEqual({ attempted: 1, delivered: 0, failed: 1 });
    times.push(t.ctx.clock.now() - started);
  }
  expect(times).toEqual([0, 5_000, 35_000, 155_000, 755_000, 4_355_000, 25_955_000]);
  t.ctx.clock.advance(24 * 3_600_000);
  expect((await worker.tick()).attempted).toBe(0);
  expect(receiver.received.map((r) => r.id).every((id) => id === receiver.received[0]?.id)).toBe(true);
  expect(receiver.received).toHaveLength(MAX_ATTEMPTS);
  const token = (await login(t.ctx)).token; // the clock moved past the first token's expiry
  const rows = await json(await t.ctx.request("GET", `/api/v1/webhooks/${hook.id}/deliveries`, { token }));
  expect(rows.map((r: any) => r.attempt)).toEqual([7, 6, 5, 4, 3, 2, 1]);
  expect(rows.every((r: any) => r.statusCode === 500 && r.error === "HTTP 500" && r.deliveryStatus === "failed")).toBe(
    true,
  );
  // Failing for 7 h is not yet 24 h: the endpoint stays enabled, marked failing.
  const got = await json(await t.ctx.request("GET", `/api/v1/webhooks/${hook.id}`, { token }));
  expect(got).toMatchObject({ enabled: true, status: "failing", disabledAt: null });
});

test("an endpoint failing for 24 h is disabled, its queue dropped, and the user told by an event", async () => {
  const { t, receiver } = await setUp();
  const hook = await createWebhook(t.ctx, t.token, receiver.url, ["trade.failed"]);
  receiver.respondWith(503);
  const told: any[] = [];
  t.ctx.services.events.subscribe((e) => {
    if (e.type === "webhook.disabled") told.push(e);
  });
  const worker = t.ctx.services.notifications.webhookWorker;
  const started = t.ctx.clock.now();
  // One failing event every 4 hours; each gets its first attempt at once.
  while (t.ctx.clock.now() - started < 24 * 3_600_000) {
    t.ctx.services.events.publish("trade.failed", t.userId, {
      agentId: "agent-1",
      tokenAddress: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263",
      mode: "simulation",
      side: "buy",
      reason: "x",
    });
    await worker.tick();
    expect(told).toHaveLength(0);
    t.ctx.clock.advance(4 * 3_600_000);
  }
  t.ctx.services.events.publish("trade.failed", t.userId, {
    agentId: "agent-1",
    tokenAddress: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263",
    mode: "simulation",
    side: "buy",
    reason: "x",
  });
  await worker.tick();
  expect(told).toHaveLength(1);
  expect(told[0].userId).toBe(t.userId);
  expect(told[0].data.webhookId).toBe(hook.id);
  const token = (await login(t.ctx)).token; // the clock moved past the first token's expiry
  const got = await json(await t.ctx.request("GET", `/api/v1/webhooks/${hook.id}`, { token }));
  expect(got).toMatchObject({ enabled: false, status: "disabled" });
  expect(got.disabledReason).toContain("HTTP 503");
  expect(t.count("webhook_deliveries", "status = 'pending'")).toBe(0);
  // Nothing more is queued or sent to it.
  const before = receiver.received.length;
  t.ctx.services.events.publish("trade.failed", t.userId, {
    agentId: "agent-1",
    tokenAddress: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263",
    mode: "simulation",
    side: "buy",
    reason: "x",
  });
  t.ctx.clock.advance(7 * 3_600_000);
  expect((await worker.tick()).attempted).toBe(0);
  expect(receiver.received.length).toBe(before);
  // Re-enabling starts afresh.
  receiver.respondWith(204);
  const res = await t.ctx.request("PATCH", `/api/v1/webhooks/${hook.id}`, {
    token: (await login(t.ctx)).token,
    body: { enabled: true },
  });
  expect(await json(res)).toMatchObject({ enabled: true, status: "active", disabledAt: null, failingSince: null });
});

test("a redirect is not followed and counts as a failure", async () => {
  const { t, receiver } = await setUp();
  const hook = await createWebhook(t.ctx, t.token, receiver.url, ["trade.failed"]);
  receiver.respondWith(302, { location: "http://169.254.169.254/latest/meta-data" });
  t.ctx.services.events.publish("trade.failed", t.userId, {
    agentId: "agent-1",
    tokenAddress: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263",
    mode: "simulation",
    side: "buy",
    reason: "x",
  });
  expect(await t.ctx.services.notifications.webhookWorker.tick()).toEqual({ attempted: 1, delivered: 0, failed: 1 });
  const [row] = await json(await t.ctx.request("GET", `/api/v1/webhooks/${hook.id}/deliveries`, { token: t.token }));
  expect(row).toMatchObject({ statusCode: 302, error: "Redirect (302) not followed", deliveryStatus: "pending" });
  expect(receiver.received).toHaveLength(1);
});

test("at most WEBHOOK_MAX_IN_FLIGHT deliveries are attempted at once", async () => {
  const t = await startTrading({
    clock: new ManualClock(Date.now()),
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: "true", WEBHOOK_MAX_IN_FLIGHT: "2" },
  });
  const receiver = await startWebhookReceiver();
  cleanups.push(
    () => t.close(),
    () => receiver.close(),
  );
  const hook = await createWebhook(t.ctx, t.token, receiver.url, ["trade.failed"]);
  receiver.setSecret(hook.secret);
  for (let i = 0; i < 5; i++)
    t.ctx.services.events.publish("trade.failed", t.userId, {
      agentId: "agent-1",
      tokenAddress: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263",
      mode: "simulation",
      side: "buy",
      reason: `${i}`,
    });
  const worker = t.ctx.services.notifications.webhookWorker;
  expect((await worker.tick()).attempted).toBe(2);
  expect((await worker.tick()).attempted).toBe(2);
  expect((await worker.tick()).attempted).toBe(1);
  expect(receiver.verified()).toHaveLength(5);
});

test("WEBHOOK_TIMEOUT_SECONDS bounds one delivery: a receiver that never answers fails it after that long", async () => {
  const t = await startTrading({
    clock: new ManualClock(Date.now()),
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: "true", WEBHOOK_TIMEOUT_SECONDS: "1" },
  });
  let answer: () => void = () => {};
  const silent = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Promise<Response>((resolve) => (answer = () => resolve(new Response("late")))),
  });
  cleanups.push(
    () => t.close(),
    async () => {
      answer();
      await silent.stop(true);
    },
  );
  await createWebhook(t.ctx, t.token, `http://127.0.0.1:${silent.port}/hook`, ["position.opened"]);
  await t.createAgent();
  await t.postSignal();
  await t.settle();
  const started = performance.now();
  const report = await t.ctx.services.notifications.webhookWorker.tick();
  const took = performance.now() - started;
  expect(report).toEqual({ attempted: 1, delivered: 0, failed: 1 });
  expect(took).toBeGreaterThanOrEqual(990);
  expect(took).toBeLessThan(4_000);
  const row = t.ctx.database.sqlite.query<{ error: string }, []>("SELECT error FROM webhook_attempts").get();
  expect(row?.error).toBe("Timed out after 1000 ms");
});

test("a tripped daily-loss breaker and a pause reach a subscribed endpoint (issue 34)", async () => {
  const { t, receiver } = await setUp();
  const hook = await createWebhook(t.ctx, t.token, receiver.url, ["risk.tripped", "trading.paused"]);
  receiver.setSecret(hook.secret);
  const limits = await t.ctx.request("PUT", "/api/v1/risk-limits", {
    token: t.token,
    body: { simulation: { dailyLossLimitSol: 0.1 } },
  });
  expect(limits.status).toBe(200);
  await t.createAgent();
  await t.postSignal();
  await t.settle();
  t.fake.setToken("DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263", { priceUsd: "0.005" });
  await t.ctx.services.trading.monitor.tick();
  expect(
    (await t.ctx.request("POST", "/api/v1/trading/pause", { token: t.token, body: { mode: "live" } })).status,
  ).toBe(200);
  expect(await t.ctx.services.notifications.webhookWorker.tick()).toEqual({ attempted: 2, delivered: 2, failed: 0 });
  const got = receiver.verified().map((r) => r.payload);
  expect(got.map((p) => p?.type)).toEqual(["risk.tripped", "trading.paused"]);
  expect(got[0]?.data).toMatchObject({ mode: "simulation", dailyLossLimitSol: "0.1" });
  expect(got[1]?.data).toMatchObject({ modes: ["live"] });
});
