import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { createApiKey, createUser, json } from "../helpers/context.ts";
import { MINT, MINT2, startTrading, type TradingContext } from "../helpers/trading.ts";
import { until } from "../helpers/until.ts";
import { openSse, type SseClient, type SseFrame } from "./sse-client.ts";

// GET /api/v1/events over a real listener on 127.0.0.1 (PRODUCT.md §6): the user's own events
// as Server-Sent Events, read with fetch as a client would. Every wait is bounded.

let t: TradingContext;
let server: Server<undefined>;
let base: string;
const clients: SseClient[] = [];

beforeEach(async () => {
  t = await startTrading({ env: { EVENTS_HEARTBEAT_SECONDS: "0.05" } });
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req, srv) => t.ctx.app.fetch(req, { server: srv }) });
  base = `http://127.0.0.1:${server.port}`;
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  server.stop(true);
  await t.close();
});

async function connect(
  opts: { token?: string; query?: string; headers?: Record<string, string> } = {},
): Promise<SseClient> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const c = await openSse(`${base}/api/v1/events${opts.query ?? ""}`, headers);
  clients.push(c);
  if (c.status === 200) expect(await c.next()).toMatchObject({ retry: "3000", comments: ["connected"] });
  return c;
}

/** Event frames owned by a user (price.sol is global: the engine's price look-ups publish it). */
const ownEvent = (f: SseFrame) => f.event !== undefined && f.event !== "price.sol";
const events = (frames: SseFrame[]) => frames.filter(ownEvent);
const payload = (f: SseFrame) =>
  JSON.parse(f.data!) as { id: number; type: string; time: string; data: Record<string, any> };

describe("GET /api/v1/events", () => {
  test("auth: JWT only (no credential, bad token, API key → 401)", async () => {
    const bad = await t.ctx.request("GET", "/api/v1/events?access_token=not.a.jwt");
    expect(bad.status).toBe(401);
    expect(await json(bad)).toEqual({ success: false, error: "Invalid token", code: "AUTHENTICATION_ERROR" });
    const empty = await t.ctx.request("GET", "/api/v1/events?access_token=");
    expect(await json(empty)).toEqual({ success: false, error: "Invalid token", code: "AUTHENTICATION_ERROR" });
  });

  test("a malformed Last-Event-ID is 400", async () => {
    for (const [query, headers] of [
      ["", { "last-event-id": "abc" }],
      ["?lastEventId=-1", {}],
    ] as const) {
      const res = await t.ctx.request("GET", `/api/v1/events${query}`, { token: t.token, headers });
      expect(res.status).toBe(400);
      expect((await json(res)).error).toBe("Invalid Last-Event-ID");
    }
  });

  test("the response is an unbuffered event stream", async () => {
    const c = await connect({ token: t.token });
    expect(c.status).toBe(200);
    expect(c.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(c.response.headers.get("cache-control")).toBe("no-cache");
    expect(c.response.headers.get("x-accel-buffering")).toBe("no");
  });

  test("a signal's position.opened arrives on the stream, after signal.created and trade.executed", async () => {
    const agent = await t.createAgent();
    const c = await connect({ token: t.token });
    const signal = await t.postSignal();
    const { frame, before } = await c.until((f) => f.event === "position.opened");
    await t.settle();

    const pos = (await t.positions(agent.id))[0];
    const opened = payload(frame);
    expect(opened).toEqual({
      id: Number(frame.id),
      type: "position.opened",
      time: "2026-01-01T00:00:00.000Z",
      data: {
        positionId: pos.id,
        agentId: agent.id,
        agentName: "agent",
        tokenAddress: MINT,
        tokenSymbol: "BONK",
        amount: "5000",
        entryPriceSol: "0.0001",
        signalId: signal.id,
      },
    });
    expect(events(before).map((f) => f.event)).toEqual(["signal.created", "trade.executed"]);
    const [created, executed] = events(before).map(payload);
    expect(created!.data.signal.id).toBe(signal.id);
    expect(executed!.data).toMatchObject({
      agentId: agent.id,
      signalId: signal.id,
      side: "buy",
      mode: "simulation",
      positionId: pos.id,
      amountSol: "0.500105", // swapped and fees (the token account's rent is apart)
      tokens: "5000",
      tokenAddress: MINT,
    });
    // ids increase along the stream
    const ids = [...events(before), frame].map((f) => Number(f.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  test("?access_token= works for clients that cannot send headers (EventSource)", async () => {
    await t.createAgent();
    const c = await connect({ query: `?access_token=${encodeURIComponent(t.token)}` });
    expect(c.status).toBe(200);
    const signal = await t.postSignal();
    const { frame } = await c.until((f) => f.event === "position.opened");
    expect(payload(frame).data.signalId).toBe(signal.id);
    await t.settle();
  });

  test("another user's events never arrive", async () => {
    const bob = await createUser(t.ctx);
    const bobKey = (await createApiKey(t.ctx, bob.token, ["signals"])).key;
    await t.createAgent();
    const alice = await connect({ token: t.token });
    const bobStream = await connect({ token: bob.token });

    await t.postSignal();
    await alice.until((f) => f.event === "position.opened");
    await t.settle();
    // Bob's own signal comes after all of Alice's events on the bus: everything published for
    // Alice before it would have reached Bob's stream first.
    const bobSignal = await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" }, bobKey);
    const { frame, before } = await bobStream.until(ownEvent);
    await t.settle();
    expect(events(before)).toEqual([]);
    expect(frame.event).toBe("signal.created");
    expect(payload(frame).data.signal.id).toBe(bobSignal.id);
    // ... and Alice does not see Bob's signal: her next event is one of her own.
    const marker = t.ctx.services.events.publish("position.updated", t.userId, {
      positionId: "marker",
      agentId: "marker",
      change: "peak",
      peakPriceSol: "0",
    });
    const next = await alice.until(ownEvent);
    expect(next.frame.id).toBe(String(marker.id));
  });

  test("reconnecting with Last-Event-ID replays the events missed while away", async () => {
    await t.createAgent();
    const first = await connect({ token: t.token });
    await t.postSignal();
    const seen = await first.until((f) => f.event === "position.opened");
    await t.settle();
    await first.close();

    // While disconnected: a second signal trades another token, and another user posts.
    const bob = await createUser(t.ctx);
    await t.postSignal({}, (await createApiKey(t.ctx, bob.token, ["signals"])).key);
    const missed = await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
    await t.settle();

    const again = await connect({ token: t.token, headers: { "last-event-id": seen.frame.id! } });
    const replay = await again.until((f) => f.event === "position.opened");
    const got = [...events(replay.before), replay.frame].map(payload);
    expect(got.map((e) => e.type)).toEqual(["signal.created", "trade.executed", "position.opened"]);
    expect(got.every((e) => e.id > Number(seen.frame.id))).toBe(true);
    expect(got[0]!.data.signal.id).toBe(missed.id);
    expect(got[2]!.data).toMatchObject({ tokenAddress: MINT2, signalId: missed.id });

    // The same through the query parameter.
    const viaQuery = await connect({ token: t.token, query: `?lastEventId=${seen.frame.id}` });
    expect(payload((await viaQuery.until(ownEvent)).frame).data.signal.id).toBe(missed.id);
  });

  test("global price.sol events reach every user", async () => {
    const bob = await createUser(t.ctx);
    const a = await connect({ token: t.token });
    const b = await connect({ token: bob.token });
    t.ctx.services.events.publish("price.sol", null, {
      price: "101.00000000",
      lastUpdated: new Date(0).toISOString(),
      isStale: false,
      source: "priceNetwork",
    });
    for (const c of [a, b]) {
      const { frame } = await c.until((f) => f.event !== undefined);
      expect([frame.event, payload(frame).data.price]).toEqual(["price.sol", "101.00000000"]);
    }
  });

  test("idle streams get heartbeat comments", async () => {
    const c = await connect({ token: t.token });
    const f = await c.next(2_000);
    expect(f.comments).toEqual(["keep-alive"]);
    expect(f.event).toBeUndefined();
  });

  test("a disconnecting client releases its subscription; shutdown ends open streams", async () => {
    const bus = t.ctx.services.events;
    const baseline = bus.subscriberCount;
    const c = await connect({ token: t.token });
    expect(bus.subscriberCount).toBe(baseline + 1);
    await c.close();
    await until(() => bus.subscriberCount === baseline, "the server noticing the disconnect");

    const open = await connect({ token: t.token });
    await t.ctx.services.stop();
    expect(await open.endsWithin(2_000)).toBe(true);
    expect(bus.subscriberCount).toBe(baseline);
  });
});
