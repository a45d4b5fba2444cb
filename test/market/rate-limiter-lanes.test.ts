import { describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { LanedRateLimiter, RateLimiter } from "../../src/market/rate-limiter.ts";

// docs/decisions.md "Performance": live trades have the aggregator budget's priority
// lane; the budget itself (one request per interval) holds for both lanes together.

describe("LanedRateLimiter", () => {
  test("a priority caller goes before every shared caller still waiting; the pace is kept", async () => {
    const clock = new ManualClock(0);
    const lanes = new LanedRateLimiter(new RateLimiter({ intervalMs: 1000 }, clock));
    const shared = lanes.lane("shared");
    const priority = lanes.lane("priority");
    const granted: string[] = [];
    const take = (who: string, p: { acquire(): Promise<void> }) => p.acquire().then(() => granted.push(who));
    await take("s1", shared);
    // s2 and s3 queue for the next slots; the live caller arrives after them.
    await Promise.all([take("s2", shared), take("s3", shared), take("live", priority)]);
    expect(granted).toEqual(["s1", "live", "s2", "s3"]);
    // One slot per interval across both lanes: three waits of one interval after the first.
    expect(clock.sleeps).toEqual([1000, 1000, 1000]);
  });

  test("an aborted wait leaves the queue", async () => {
    const clock = new ManualClock(0);
    const lanes = new LanedRateLimiter(new RateLimiter({ intervalMs: 1000 }, clock));
    const lane = lanes.lane("shared");
    const ctl = new AbortController();
    ctl.abort();
    await lane.acquire(ctl.signal);
    await lane.acquire();
    expect(clock.now()).toBe(0);
  });

  test("no pacing configured: no waiting", async () => {
    const clock = new ManualClock(0);
    const lanes = new LanedRateLimiter(new RateLimiter({ intervalMs: 0 }, clock));
    await Promise.all([lanes.lane("shared").acquire(), lanes.lane("priority").acquire()]);
    expect(clock.sleeps).toEqual([]);
  });
});
