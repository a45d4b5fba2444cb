import { afterEach, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ManualClock } from "../../src/clock.ts";
import { secretForms } from "../../src/notifications/webhooks/signing.ts";
import { startFakeTelegram } from "../fakes/telegram.ts";
import { startWebhookReceiver } from "../fakes/webhook-receiver.ts";
import { createTestContext, createUser, json, login, type TestContext } from "../helpers/context.ts";

// The webhook and notification API (issue 18): CRUD with the spec's error bodies, the SSRF guard
// (private URLs refused by default), the one-time secret, the test message, auth and tenancy,
// and a scan that no secret reaches the database, the logs or any other response.

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function context(env: Record<string, string> = {}, resolver?: (h: string) => Promise<string[]>) {
  const ctx = await createTestContext({
    clock: new ManualClock(Date.now()),
    env,
    services: resolver ? { notifications: { resolver } } : {},
  });
  cleanups.push(() => ctx.close());
  return { ctx, token: (await login(ctx)).token };
}

const post = (ctx: TestContext, token: string, body: unknown) =>
  ctx.request("POST", "/api/v1/webhooks", { token, body });

test("a private URL is refused by default, a public one accepted, metadata always refused", async () => {
  const names: Record<string, string[]> = {
    "hooks.example.com": ["93.184.216.34"],
    "internal.example.com": ["10.1.2.3"],
    "sneaky.example.com": ["93.184.216.34", "127.0.0.1"],
    "metadata.example.com": ["169.254.169.254"],
  };
  const resolver = async (h: string) => names[h] ?? [];
  const { ctx, token } = await context({}, resolver);
  for (const url of [
    "http://127.0.0.1:8080/hook",
    "http://localhost.localdomain.invalid/hook",
    "http://[::1]/hook",
    "http://[::ffff:192.168.1.10]/hook",
    "https://internal.example.com/hook",
    "https://sneaky.example.com/hook",
    "http://169.254.169.254/latest",
  ]) {
    const res = await post(ctx, token, { url, events: ["position.opened"] });
    expect(res.status, url).toBe(400);
    const body = await json(res);
    expect(body.code, url).toBe("VALIDATION_ERROR");
  }
  const priv = await json(await post(ctx, token, { url: "http://127.0.0.1:8080/x", events: ["position.opened"] }));
  expect(priv.error).toContain("WEBHOOK_ALLOW_PRIVATE_URLS=true");
  const ok = await post(ctx, token, { url: "https://hooks.example.com/x", events: ["position.opened"] });
  expect(ok.status).toBe(201);

  const allowed = await context({ WEBHOOK_ALLOW_PRIVATE_URLS: "true" }, resolver);
  expect(
    (await post(allowed.ctx, allowed.token, { url: "http://127.0.0.1:9/x", events: ["trade.failed"] })).status,
  ).toBe(201);
  const meta = await post(allowed.ctx, allowed.token, {
    url: "https://metadata.example.com/",
    events: ["trade.failed"],
  });
  expect(meta.status).toBe(400);
  expect((await json(meta)).error).toContain("metadata");
});

test("a name re-pointed at a private address after creation is refused at delivery", async () => {
  const names: Record<string, string[]> = { "hooks.example.com": ["93.184.216.34"] };
  const { ctx, token } = await context({}, async (h) => names[h] ?? []);
  const hook = await json(await post(ctx, token, { url: "http://hooks.example.com/x", events: ["trade.failed"] }));
  names["hooks.example.com"] = ["192.168.0.7"];
  const me = (await login(ctx)).user.id;
  ctx.services.events.publish("trade.failed", me, {
    agentId: "agent-1",
    tokenAddress: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263",
    mode: "simulation",
    side: "buy",
    reason: "x",
  });
  expect(await ctx.services.notifications.webhookWorker.tick()).toEqual({ attempted: 1, delivered: 0, failed: 1 });
  const [row] = await json(await ctx.request("GET", `/api/v1/webhooks/${hook.id}/deliveries`, { token }));
  expect(row.error).toStartWith("Refused: URL resolves to a loopback, private or link-local address");
  expect(row.statusCode).toBeNull();
});

test("validation errors are 400 with the spec's body", async () => {
  const { ctx, token } = await context({ WEBHOOK_ALLOW_PRIVATE_URLS: "true" });
  const cases: Array<[unknown, string]> = [
    [{ events: ["position.opened"] }, "url is required"],
    [{ url: "ftp://x.example/", events: ["position.opened"] }, "url must be an absolute http(s) URL"],
    [{ url: "http://127.0.0.1/x", events: [] }, "events must name at least one event type"],
    [{ url: "http://127.0.0.1/x", events: ["price.sol"] }, "events must be among:"],
    [{ url: "http://127.0.0.1/x", events: ["trade.failed"], secret: "mine" }, ""],
  ];
  for (const [body, message] of cases) {
    const res = await post(ctx, token, body);
    expect(res.status, JSON.stringify(body)).toBe(400);
    const b = await json(res);
    expect(b.success).toBe(false);
    expect(b.code).toBe("VALIDATION_ERROR");
    expect(b.error).toContain(message);
  }
  const hook = await json(await post(ctx, token, { url: "http://127.0.0.1/x", events: ["trade.failed"] }));
  const empty = await ctx.request("PATCH", `/api/v1/webhooks/${hook.id}`, { token, body: {} });
  expect(empty.status).toBe(400);
  expect((await json(empty)).error).toBe("At least one field must be provided: url, events, description or enabled");
  const badId = await ctx.request("GET", "/api/v1/webhooks/not-a-uuid", { token });
  expect(badId.status).toBe(400);
  expect((await json(badId)).error).toBe("Invalid webhook ID format");
  const missing = await ctx.request("GET", `/api/v1/webhooks/${crypto.randomUUID()}`, { token });
  expect(missing.status).toBe(404);
  expect((await json(missing)).error).toBe("Webhook not found");
});

test("CRUD, test message and rotation; the secret is shown once; auth matrix and tenancy", async () => {
  const { ctx, token } = await context({ WEBHOOK_ALLOW_PRIVATE_URLS: "true" });
  const receiver = await startWebhookReceiver();
  cleanups.push(() => receiver.close());
  const created = await json(
    await post(ctx, token, { url: receiver.url, events: ["position.opened", "trade.failed"], description: "ci" }),
  );
  expect(created).toMatchObject({
    url: receiver.url,
    events: ["position.opened", "trade.failed"],
    description: "ci",
    enabled: true,
    status: "active",
  });
  receiver.setSecret(created.secret);
  const list = await json(await ctx.request("GET", "/api/v1/webhooks", { token }));
  expect(list).toHaveLength(1);
  expect(list[0].secret).toBeUndefined();
  const got = await json(await ctx.request("GET", `/api/v1/webhooks/${created.id}`, { token }));
  expect(got.secret).toBeUndefined();
  const { secret: _s, ...view } = created;
  expect(got).toEqual(view);

  const tested = await json(await ctx.request("POST", `/api/v1/webhooks/${created.id}/test`, { token }));
  expect(tested).toMatchObject({ success: true, statusCode: 204, error: null });
  expect(receiver.verified()[0]?.payload?.type).toBe("webhook.test");
  expect(receiver.verified()[0]?.id).toBe(tested.deliveryId);

  const rotated = await json(await ctx.request("POST", `/api/v1/webhooks/${created.id}/rotate-secret`, { token }));
  expect(rotated.secret).toMatch(/^whsec_/);
  expect(rotated.secret).not.toBe(created.secret);
  await ctx.request("POST", `/api/v1/webhooks/${created.id}/test`, { token });
  expect(receiver.received.at(-1)?.verifyError).not.toBeNull(); // the old secret no longer verifies
  receiver.setSecret(rotated.secret);
  await ctx.request("POST", `/api/v1/webhooks/${created.id}/test`, { token });
  expect(receiver.received.at(-1)?.verifyError).toBeNull();

  const patched = await json(
    await ctx.request("PATCH", `/api/v1/webhooks/${created.id}`, {
      token,
      body: { events: ["position.closed"], enabled: false },
    }),
  );
  expect(patched).toMatchObject({ events: ["position.closed"], enabled: false, status: "disabled" });

  // Credentials and another user's webhook: test/http/route-security.test.ts, for every route.
  const foreign = `/api/v1/webhooks/${created.id}`;
  const other = await createUser(ctx);
  expect((await ctx.request("DELETE", foreign, { token: other.token })).status).toBe(404);
  expect((await ctx.request("DELETE", foreign, { token })).status).toBe(200);
  expect((await ctx.request("GET", foreign, { token })).status).toBe(404);
});

test("preferences: defaults, partial update, validation", async () => {
  const { ctx, token } = await context();
  const defaults = await json(await ctx.request("GET", "/api/v1/notifications/preferences", { token }));
  expect(defaults).toEqual({
    events: [
      "position.opened",
      "position.take_profit",
      "position.dca",
      "position.closed",
      "trade.failed",
      "webhook.disabled",
      "replication.failing",
      "daily_summary",
    ],
    quietHours: null,
    updatedAt: null,
  });
  const put = (body: unknown) => ctx.request("PUT", "/api/v1/notifications/preferences", { token, body });
  const bad: Array<[unknown, string]> = [
    [{}, "At least one field must be provided: events or quietHours"],
    [{ events: ["position.sold"] }, "events must be among"],
    [{ quietHours: { start: "25:00", end: "07:00" } }, "quietHours.start must be HH:MM"],
    [{ quietHours: { start: "22:00", end: "07:00", timezone: "Mars/Olympus" } }, "quietHours.timezone must be"],
    [{ quietHours: { start: "07:00", end: "07:00" } }, "must differ"],
  ];
  for (const [body, message] of bad) {
    const res = await put(body);
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect((await json(res)).error).toContain(message);
  }
  const a = await json(await put({ quietHours: { start: "22:00", end: "07:00" } }));
  expect(a.quietHours).toEqual({ start: "22:00", end: "07:00", timezone: "UTC" });
  expect(a.events).toHaveLength(8);
  const b = await json(await put({ events: ["trade.failed", "trade.failed"] }));
  expect(b).toMatchObject({ events: ["trade.failed"], quietHours: { start: "22:00" } });
  const c = await json(await put({ quietHours: null }));
  expect(c.quietHours).toBeNull();
  // Without a bot token the link answers 503 naming the variable.
  const link = await ctx.request("POST", "/api/v1/notifications/telegram/link", { token });
  expect(link.status).toBe(503);
  expect((await json(link)).error).toBe("Telegram is not configured: set TELEGRAM_BOT_TOKEN");
});

test("secret scan: webhook secrets and the bot token reach no database file, log line or other response", async () => {
  const tg = await startFakeTelegram();
  const receiver = await startWebhookReceiver();
  const { ctx, token } = await context({ WEBHOOK_ALLOW_PRIVATE_URLS: "true", ...tg.env() });
  cleanups.push(
    () => tg.close(),
    () => receiver.close(),
  );
  const responses: string[] = [];
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await ctx.request(method, path, { token, body });
    const text = await res.text();
    return { status: res.status, text };
  };
  const created = await call("POST", "/api/v1/webhooks", { url: receiver.url, events: ["trade.failed"] });
  const { id, secret } = JSON.parse(created.text);
  const rotated = JSON.parse((await call("POST", `/api/v1/webhooks/${id}/rotate-secret`)).text).secret as string;
  receiver.setSecret(rotated);
  const me = (await login(ctx)).user.id;
  ctx.services.events.publish("trade.failed", me, {
    agentId: "agent-1",
    tokenAddress: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263",
    mode: "simulation",
    side: "buy",
    reason: "x",
  });
  await ctx.services.notifications.webhookWorker.tick();
  receiver.respondWith(500);
  ctx.services.events.publish("trade.failed", me, {
    agentId: "agent-1",
    tokenAddress: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263",
    mode: "simulation",
    side: "buy",
    reason: "y",
  });
  await ctx.services.notifications.webhookWorker.tick();
  for (const [m, p, b] of [
    ["GET", "/api/v1/webhooks"],
    ["GET", `/api/v1/webhooks/${id}`],
    ["PATCH", `/api/v1/webhooks/${id}`, { description: "x" }],
    ["POST", `/api/v1/webhooks/${id}/test`],
    ["GET", `/api/v1/webhooks/${id}/deliveries`],
    ["GET", "/api/v1/notifications/telegram"],
    ["POST", "/api/v1/notifications/telegram/link"],
    ["GET", "/api/v1/openapi.json"],
  ] as Array<[string, string, unknown?]>)
    responses.push((await call(m, p, b)).text);
  // Telegram traffic: link, commands, a failing send (unknown chat is fine for the fake).
  const code = JSON.parse(responses[6]!).code;
  tg.userSends(5, `/start ${code}`);
  tg.userSends(5, "/status");
  await ctx.services.notifications.telegram!.bot.pollOnce(0);
  expect(receiver.verified().length).toBeGreaterThan(0);

  await ctx.services.stop();
  const needles = [...secretForms(secret), ...secretForms(rotated), tg.token, tg.token.split(":")[1]!];
  const files = readdirSync(ctx.dir).filter((f) => f.startsWith("trading.db"));
  expect(files.length).toBeGreaterThan(0);
  const haystacks: Array<[string, string]> = [
    ...files.map((f) => [f, readFileSync(join(ctx.dir, f)).toString("latin1")] as [string, string]),
    ["logs", ctx.logs.join("\n")],
    ["responses", responses.join("\n")],
  ];
  expect(ctx.logs.length).toBeGreaterThan(10);
  for (const [where, text] of haystacks) for (const n of needles) expect(text.includes(n), `${where}`).toBe(false);
});
