import { ManualClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { EventBus, type ServiceEvent } from "../../src/events/bus.ts";
import { createLogger } from "../../src/logger.ts";
import { createMarket, type MarketOptions, type MarketServices } from "../../src/market/index.ts";
import type { FakeMarket } from "../fakes/market.ts";
import { offlineEnv } from "../helpers/context.ts";

// A market wired to the fake the way createServices wires it, with a manual clock, an event bus
// and captured logs, without the rest of the service.

/** A manual clock that counts its reads: a timer that checks the time shows each look in `reads`. */
class ReadCountingClock extends ManualClock {
  reads = 0;
  override now(): number {
    this.reads++;
    return super.now();
  }
}

export interface MarketHarness {
  market: MarketServices;
  clock: ReadCountingClock;
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
  const clock = new ReadCountingClock();
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

export { until } from "../helpers/until.ts";

/** The rejection of a promise (fails when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection");
}
