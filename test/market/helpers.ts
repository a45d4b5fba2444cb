import { ManualClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { EventBus, type ServiceEvent } from "../../src/events/bus.ts";
import { createLogger } from "../../src/logger.ts";
import { createMarket, type MarketOptions, type MarketServices } from "../../src/market/index.ts";
import type { FakeMarket } from "../fakes/market.ts";
import { offlineEnv } from "../helpers/context.ts";

// A market wired to the fake the way createServices wires it, with a manual clock, an event bus
// and captured logs, without the rest of the service.

export interface MarketHarness {
  market: MarketServices;
  clock: ManualClock;
  events: EventBus;
  published: ServiceEvent[];
  logs: string[];
  stop(): Promise<void>;
}

export function marketHarness(
  fake: FakeMarket,
  env: Record<string, string> = {},
  opts: MarketOptions = {},
): MarketHarness {
  const config = loadConfig({ ...offlineEnv, DATABASE_PATH: ":memory:", ...fake.env(), ...env });
  const clock = new ManualClock();
  const events = new EventBus(() => clock.now());
  const published: ServiceEvent[] = [];
  events.subscribe((e) => published.push(e));
  const logs: string[] = [];
  const logger = createLogger({ level: "debug", write: (l) => logs.push(l) });
  const base = fake.serviceOptions().market;
  const market = createMarket(
    config,
    { clock, logger, events },
    { ...base, ...opts, solPrice: { ...base.solPrice, ...opts.solPrice } },
  );
  return { market, clock, events, published, logs, stop: () => market.stop() };
}

/** Waits (for I/O, not for time to pass) until `cond` holds; fails after `ms` of real time. */
export async function until(cond: () => boolean, what = "condition", ms = 20_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

/** The rejection of a promise (fails when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection");
}
