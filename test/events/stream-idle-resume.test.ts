import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/logger.ts";
import { type ServerHandle, serve } from "../../src/server.ts";
import { loginOver } from "../cli/process-helpers.ts";
import { login, offlineEnv } from "../helpers/context.ts";
import { startTrading } from "../helpers/trading.ts";
import { openSse, type SseFrame } from "./sse-client.ts";

// The event stream stays up (issue 13 item 1): an idle EventSource-like client over a real
// listener with the default settings outlives Bun's default idle timeout (10 s) without being cut,
// and a client whose access token expired resumes with a fresh token and its last event id
// without losing what happened in between.

describe("an idle stream with the default settings", () => {
  let handle: ServerHandle;
  const dir = mkdtempSync(join(tmpdir(), "events-idle-"));
  afterAll(async () => {
    await handle?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("stays connected for 15 s of silence: heartbeats arrive, the server never closes it", async () => {
    // Defaults: EVENTS_HEARTBEAT_SECONDS and HTTP_IDLE_TIMEOUT_SECONDS are not set.
    const config = loadConfig({ ...offlineEnv, PORT: "0", DATABASE_PATH: join(dir, "trading.db") });
    handle = await serve(config, {
      services: { logger: createLogger({ level: "silent" }), passwordCost: { memoryCost: 1024, timeCost: 1 } },
    });
    const accessToken = await loginOver(handle.url);
    // As EventSource connects: the token in the query, no Authorization header.
    const stream = await openSse(`${handle.url}/api/v1/events?access_token=${accessToken}`);
    expect(stream.status).toBe(200);
    expect(await stream.next()).toMatchObject({ comments: ["connected"] });

    // Real idle time, once in the suite: 15 s is past Bun's default idle timeout of 10 s.
    const frames: SseFrame[] = [];
    const until = performance.now() + 15_000;
    let ended = false;
    while (performance.now() < until && !ended) {
      try {
        frames.push(await stream.next(Math.max(1, until - performance.now())));
      } catch (err) {
        // A timeout is the quiet we wait for; an end is the failure.
        ended = (err as Error).message === "event stream ended";
      }
    }
    expect(ended).toBe(false);
    expect(frames.filter((f) => f.comments.includes("keep-alive")).length).toBeGreaterThanOrEqual(1);
    // Still the same open connection: the next heartbeat arrives on it.
    expect((await stream.next(12_000)).comments).toEqual(["keep-alive"]);
    await stream.close();
  }, 40_000);
});

test("an expired token ends the stream with token.expired; a fresh token and the last id resume with nothing lost", async () => {
  const t = await startTrading();
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req, srv) => t.ctx.app.fetch(req, { server: srv }),
  });
  try {
    await t.createAgent();
    const url = `http://127.0.0.1:${server.port}/api/v1/events`;
    // The token has 15 minutes; move the clock to one second before its end: the stream then
    // closes after a second of real time.
    t.ctx.clock.advance(15 * 60_000 - 1_000);
    const first = await openSse(`${url}?access_token=${t.token}`);
    expect(first.status).toBe(200);
    t.ctx.services.events.publish("price.sol", null, {
      price: "101.00000000",
      lastUpdated: "2026-01-01T00:00:00.000Z",
      isStale: false,
      source: "solPriceFeed",
    });
    const seen = await first.until((f) => f.event === "price.sol");
    const expired = await first.until((f) => f.event !== undefined);
    expect(expired.frame.event).toBe("token.expired");
    expect(expired.frame.id).toBeUndefined(); // Last-Event-ID stays that of the last real event
    expect(await first.endsWithin(5_000)).toBe(true);

    // The old token no longer opens a stream (EventSource's own retry would stop here).
    t.ctx.clock.advance(1_000);
    expect((await openSse(`${url}?access_token=${t.token}`)).status).toBe(401);

    // While away: a signal trades.
    const missed = await t.postSignal();
    await t.settle();

    const fresh = (await login(t.ctx)).token;
    const again = await openSse(`${url}?access_token=${fresh}&lastEventId=${seen.frame.id}`);
    expect(again.status).toBe(200);
    const replay = await again.until((f) => f.event === "position.opened");
    const types = [...replay.before, replay.frame]
      .filter((f) => f.event && f.event !== "price.sol")
      .map((f) => f.event);
    expect(types).toEqual(["signal.created", "trade.executed", "position.opened"]);
    expect(JSON.parse(replay.before.find((f) => f.event === "signal.created")!.data!).data.signal.id).toBe(missed.id);
    await again.close();
  } finally {
    server.stop(true);
    await t.close();
  }
});
