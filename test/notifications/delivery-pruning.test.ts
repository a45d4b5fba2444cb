import { afterEach, expect, test } from "bun:test";
import { DELIVERY_RETENTION_MS, PRUNE_EVERY_MS } from "../../src/notifications/webhooks/delivery-worker.ts";
import { RETRY_DELAYS_MS } from "../../src/notifications/webhooks/retry-schedule.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../fakes/webhook-receiver.ts";
import { createTestContext, json, login, type TestContext } from "../helpers/context.ts";

// Retention of the delivery log (docs/decisions.md "Notifications"): the delivery worker's own
// tick deletes deliveries finished more than 30 days ago (and their attempts), at most once an
// hour of the injected clock; pending deliveries are never deleted. Driven by explicit ticks on a
// ManualClock; a real receiver on 127.0.0.1 answers the deliveries.

const DAY = 86_400_000;
const MINT = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setUp(): Promise<{ ctx: TestContext; token: string; userId: string; receiver: WebhookReceiver }> {
  const ctx = await createTestContext({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: "true" } });
  const receiver = await startWebhookReceiver();
  cleanups.push(
    () => ctx.close(),
    () => receiver.close(),
  );
  const { token, user } = await login(ctx);
  return { ctx, token, userId: user.id, receiver };
}

/** GET /webhooks/:id/deliveries with a fresh login (the clock has moved past the access token's life). */
async function deliveriesOf(ctx: TestContext, webhookId: string) {
  const { token } = await login(ctx);
  const res = await ctx.request("GET", `/api/v1/webhooks/${webhookId}/deliveries`, { token });
  expect(res.status).toBe(200);
  return (await json(res)) as Array<{ event: string; deliveryStatus: string }>;
}

const rowCount = (ctx: TestContext, table: string) =>
  (ctx.database.sqlite.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

test("finished deliveries older than 30 days are pruned hourly from the worker's tick; pending ones stay", async () => {
  const { ctx, token, userId, receiver } = await setUp();
  expect(DELIVERY_RETENTION_MS).toBe(30 * DAY);
  expect(PRUNE_EVERY_MS).toBe(3_600_000);
  const created = await ctx.request("POST", "/api/v1/webhooks", {
    token,
    body: { url: receiver.url, events: ["position.opened"] },
  });
  expect(created.status).toBe(201);
  const hook = await json(created);
  const worker = ctx.services.notifications.webhookWorker;
  const publish = (n: number) =>
    ctx.services.events.publish("position.opened", userId, {
      positionId: `p${n}`,
      agentId: "a1",
      tokenAddress: MINT,
      tokenSymbol: "BONK",
      amount: "1000",
      entryPriceSol: "0.0000001",
      signalId: n,
    });

  // Day 0: one delivered; a test message (also a finished delivery row) right after.
  publish(1);
  expect(await worker.tick()).toEqual({ attempted: 1, delivered: 1, failed: 0 });
  expect((await ctx.request("POST", `/api/v1/webhooks/${hook.id}/test`, { token })).status).toBe(200);
  // Day 10: the receiver fails; this delivery stays pending (retrying) for the rest of the test.
  ctx.clock.advance(10 * DAY);
  receiver.respondWith(500);
  publish(2);
  expect(await worker.tick()).toEqual({ attempted: 1, delivered: 0, failed: 1 });
  expect(rowCount(ctx, "webhook_deliveries")).toBe(3);
  expect(rowCount(ctx, "webhook_attempts")).toBe(3);

  // From here the prune pass is called alone (tick() would also retry the pending delivery).
  // 30 days after the first ones finished, less one minute: kept.
  ctx.clock.advance(20 * DAY - 60_000);
  expect(worker.pruneIfDue()).toBe(0);
  expect(rowCount(ctx, "webhook_deliveries")).toBe(3);
  // Two minutes later they are past the retention, but the last pass ran under an hour ago.
  ctx.clock.advance(2 * 60_000);
  expect(worker.pruneIfDue()).toBe(0);
  expect(rowCount(ctx, "webhook_deliveries")).toBe(3);
  // The next hourly pass deletes both finished rows and their attempts; the pending one stays.
  ctx.clock.advance(PRUNE_EVERY_MS);
  const pruned = worker.pruneIfDue();
  expect(pruned).toBe(2);
  expect(rowCount(ctx, "webhook_deliveries")).toBe(1);
  const left = await deliveriesOf(ctx, hook.id);
  expect(left.length).toBeGreaterThanOrEqual(1);
  expect(new Set(left.map((d) => d.event))).toEqual(new Set(["position.opened"]));
  expect(left.every((d) => d.deliveryStatus === "pending")).toBe(true);
  expect(rowCount(ctx, "webhook_attempts")).toBe(left.length);
  // Within the hour nothing runs again.
  expect(worker.pruneIfDue()).toBe(0);
});

test("a delivery given up after its last retry is pruned 30 days after it was given up", async () => {
  const { ctx, token, userId, receiver } = await setUp();
  receiver.respondWith(503);
  const hook = await json(
    await ctx.request("POST", "/api/v1/webhooks", { token, body: { url: receiver.url, events: ["trade.failed"] } }),
  );
  const worker = ctx.services.notifications.webhookWorker;
  ctx.services.events.publish("trade.failed", userId, {
    agentId: "a1",
    tokenAddress: MINT,
    side: "buy",
    mode: "simulation",
    reason: "test",
  });
  // Attempt 1, then each retry when due (5 s … 6 h): given up after the seventh.
  await worker.tick();
  for (const delay of RETRY_DELAYS_MS) {
    ctx.clock.advance(delay);
    await worker.tick();
  }
  const attempts = await deliveriesOf(ctx, hook.id);
  expect(attempts).toHaveLength(7);
  expect(attempts.every((a) => a.deliveryStatus === "failed")).toBe(true);
  ctx.clock.advance(DELIVERY_RETENTION_MS - 60_000);
  await worker.tick();
  expect(rowCount(ctx, "webhook_deliveries")).toBe(1);
  ctx.clock.advance(PRUNE_EVERY_MS);
  await worker.tick();
  expect(rowCount(ctx, "webhook_deliveries")).toBe(0);
  expect(rowCount(ctx, "webhook_attempts")).toBe(0);
});
