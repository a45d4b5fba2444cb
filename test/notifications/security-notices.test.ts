import { afterEach, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { type FakeTelegram, startFakeTelegram } from "../fakes/telegram.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../fakes/webhook-receiver.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, createTestContext, json, login, type TestContext } from "../helpers/context.ts";
import { totp } from "../helpers/totp.ts";

// Word of new logins (issue 43 item 4, docs/decisions/box-on-the-internet.md): a login from an
// address none of the account's logins used in the last 30 days, a lockout, and the second
// factor turned off go out as signed webhooks (verified here with the `standardwebhooks` library
// by a receiver on 127.0.0.1) and as Telegram messages (the fake Bot API), through the real login
// and 2FA routes. The address is the audit log's: X-Forwarded-For behind a trusted proxy.

const CHAT = 4242;
const DAY = 86_400_000;
const NOTICES = ["auth.new_login", "auth.locked", "auth.2fa_disabled"];

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

interface Setup {
  ctx: TestContext;
  tg: FakeTelegram;
  receiver: WebhookReceiver;
  token: string;
  secrets: string[];
  /** Delivers what is queued and flushes Telegram; returns the verified payloads received so far. */
  deliver(): Promise<Array<{ type: string; timestamp: string; data: Record<string, unknown> }>>;
  /** The Telegram messages the linked chat got so far. */
  messages(): string[];
}

/** `start`: the clock's time (the webhook receiver checks signatures against the wall clock). */
async function setUp(start = Date.now()): Promise<Setup> {
  const tg = await startFakeTelegram();
  const receiver = await startWebhookReceiver();
  const ctx = await createTestContext({
    clock: new ManualClock(start),
    env: { ...tg.env(), WEBHOOK_ALLOW_PRIVATE_URLS: "true", TRUST_PROXY: "true" },
  });
  cleanups.push(
    () => tg.close(),
    () => receiver.close(),
    () => ctx.close(),
  );
  const { token, refreshToken } = await login(ctx);
  const hook = await ctx.request("POST", "/api/v1/webhooks", {
    token,
    body: { url: receiver.url, events: NOTICES },
  });
  expect(hook.status).toBe(201);
  const { secret } = await json(hook);
  receiver.setSecret(secret);
  const telegram = ctx.services.notifications.telegram!;
  const link = await json(await ctx.request("POST", "/api/v1/notifications/telegram/link", { token }));
  tg.userSends(CHAT, `/start ${link.code}`);
  await telegram.bot.pollOnce(0);
  expect(tg.lastMessageTo(CHAT)?.text).toStartWith("Linked.");
  const linked = tg.messagesTo(CHAT).length;
  return {
    ctx,
    tg,
    receiver,
    token,
    secrets: [ADMIN_PASSWORD, token, refreshToken, secret, link.code],
    async deliver() {
      await telegram.notifier.flush();
      // Signed at send time with the clock's time: the receiver's tolerance is five minutes of wall clock.
      ctx.clock.set(Math.max(ctx.clock.now(), Date.now()));
      await ctx.services.notifications.webhookWorker.tick();
      expect(receiver.received.every((r) => r.verifyError === null)).toBe(true);
      return receiver.verified().map((r) => r.payload!);
    },
    messages: () =>
      tg
        .messagesTo(CHAT)
        .slice(linked)
        .map((m) => m.text),
  };
}

async function loginFrom(ctx: TestContext, ip: string, password = ADMIN_PASSWORD, extra: Record<string, unknown> = {}) {
  return ctx.request("POST", "/api/v1/auth/login", {
    body: { email: ADMIN_EMAIL, password, ...extra },
    headers: { "x-forwarded-for": ip, "user-agent": `browser-from-${ip}` },
  });
}

function expectNoSecret(s: Setup, extra: string[] = []): void {
  const sent = JSON.stringify([s.receiver.received.map((r) => r.body), s.tg.requests]);
  for (const secret of [...s.secrets, ...extra]) expect(sent).not.toContain(secret);
}

test("a login from an address unseen for 30 days is told by webhook and Telegram; the same address again is not", async () => {
  // The clock starts 41 days back and ends near the wall clock, where the webhooks are signed.
  const s = await setUp(Date.now() - 41 * DAY);
  const { ctx } = s;
  // Telegram preferences with nothing chosen and quiet hours all day: a security notice still rings.
  const prefs = await ctx.request("PUT", "/api/v1/notifications/preferences", {
    token: s.token,
    body: { events: [], quietHours: { start: "00:00", end: "23:59", timezone: "UTC" } },
  });
  expect(prefs.status).toBe(200);

  const first = await loginFrom(ctx, "203.0.113.7");
  expect(first.status).toBe(200);
  const firstAt = new Date(ctx.clock.now()).toISOString();
  const session = await json(first);
  s.secrets.push(session.accessToken, session.refreshToken);
  await ctx.services.notifications.telegram!.notifier.flush();
  expect(s.messages()).toHaveLength(1);
  expect(s.messages()[0]).toContain("203.0.113.7");
  expect(s.messages()[0]).toContain("browser-from-203.0.113.7");
  expect(s.tg.messagesTo(CHAT).at(-1)?.disable_notification).toBe(false);

  // Ten days on, the same address: seen within 30 days, nothing said.
  ctx.clock.advance(10 * DAY);
  expect((await loginFrom(ctx, "203.0.113.7")).status).toBe(200);
  await ctx.services.notifications.telegram!.notifier.flush();
  expect(s.messages()).toHaveLength(1);
  // Another address is news at once.
  expect((await loginFrom(ctx, "198.51.100.9")).status).toBe(200);
  const secondAt = new Date(ctx.clock.now()).toISOString();
  // Another user's login is theirs: nothing reaches this owner.
  await ctx.services.accounts.register("other@example.com", "Other!Passw0rd", true);
  const other = await ctx.request("POST", "/api/v1/auth/login", {
    body: { email: "other@example.com", password: "Other!Passw0rd" },
    headers: { "x-forwarded-for": "233.252.0.1" },
  });
  expect(other.status).toBe(200);
  const othersNotice = ctx.services.events
    .since(0)
    .find((e) => e.type === "auth.new_login" && e.data.ip === "233.252.0.1");
  expect(othersNotice?.userId).toBe((await json(other)).user.id);
  await ctx.services.notifications.telegram!.notifier.flush();
  expect(s.messages()).toHaveLength(2);
  expect(s.messages()[1]).toContain("198.51.100.9");

  // 31 days after the last login from it, the first address is unseen again.
  ctx.clock.advance(31 * DAY);
  expect((await loginFrom(ctx, "203.0.113.7")).status).toBe(200);
  const thirdAt = new Date(ctx.clock.now()).toISOString();
  const got = await s.deliver();
  expect(got).toEqual([
    {
      type: "auth.new_login",
      timestamp: firstAt,
      data: { ip: "203.0.113.7", userAgent: "browser-from-203.0.113.7", at: firstAt },
    },
    {
      type: "auth.new_login",
      timestamp: secondAt,
      data: { ip: "198.51.100.9", userAgent: "browser-from-198.51.100.9", at: secondAt },
    },
    {
      type: "auth.new_login",
      timestamp: thirdAt,
      data: { ip: "203.0.113.7", userAgent: "browser-from-203.0.113.7", at: thirdAt },
    },
  ]);
  expect(s.messages()).toHaveLength(3);
  expect(s.messages()[2]).toContain("203.0.113.7");
  // The same news on the event stream's bus (GET /api/v1/events carries the owner's own events).
  // The setup's own login (in process: no socket, so the address is "local") was news too.
  const onBus = ctx.services.events.since(0).filter((e) => e.type === "auth.new_login" && e.userId === session.user.id);
  expect(onBus.map((e) => e.data.ip)).toEqual(["local", "203.0.113.7", "198.51.100.9", "203.0.113.7"]);
  expectNoSecret(s);
});

test("a lockout is told with the address and the end of the lock; the failures before it are not", async () => {
  const s = await setUp();
  const { ctx } = s;
  const wrong = "Wrong!Passw0rd-secret";
  for (let i = 0; i < 4; i++) expect((await loginFrom(ctx, "192.0.2.66", wrong)).status).toBe(401);
  await ctx.services.notifications.telegram!.notifier.flush();
  expect(s.messages()).toEqual([]);
  const locked = await loginFrom(ctx, "192.0.2.66", wrong);
  expect(locked.status).toBe(423);
  const at = ctx.clock.now();
  const got = await s.deliver();
  expect(got).toHaveLength(1);
  expect(got[0]!.type).toBe("auth.locked");
  expect(got[0]!.data).toEqual({
    ip: "192.0.2.66",
    userAgent: "browser-from-192.0.2.66",
    at: new Date(at).toISOString(),
    lockedUntil: new Date(at + 15 * 60_000).toISOString(),
  });
  expect(s.messages()).toHaveLength(1);
  expect(s.messages()[0]).toContain("locked");
  expect(s.messages()[0]).toContain("192.0.2.66");
  expect(s.messages()[0]).toContain("trading-agent unlock");
  expectNoSecret(s, [wrong]);
});

test("turning the second factor off is told with the address it came from; turning it on is not", async () => {
  const s = await setUp();
  const { ctx } = s;
  const req = (path: string, body?: unknown) =>
    ctx.request("POST", path, {
      token: s.token,
      body,
      headers: { "x-forwarded-for": "198.51.100.23", "user-agent": "settings-page" },
    });
  const setup = await json(await req("/api/v1/auth/2fa/setup"));
  const code = totp(setup.secret, ctx.clock.now());
  const enabled = await json(await req("/api/v1/auth/2fa/enable", { code }));
  expect(enabled.recoveryCodes).toHaveLength(10);
  ctx.clock.advance(30_000);
  const off = totp(setup.secret, ctx.clock.now());
  const disabled = await req("/api/v1/auth/2fa/disable", { code: off });
  expect(disabled.status).toBe(200);
  const got = await s.deliver();
  expect(got).toHaveLength(1);
  expect(got[0]!.type).toBe("auth.2fa_disabled");
  expect(got[0]!.data).toEqual({ ip: "198.51.100.23", userAgent: "settings-page", at: expect.any(String) });
  expect(s.messages()).toHaveLength(1);
  expect(s.messages()[0]).toContain("Two-factor");
  expect(s.messages()[0]).toContain("198.51.100.23");
  expectNoSecret(s, [setup.secret, code, off, ...enabled.recoveryCodes]);
});
