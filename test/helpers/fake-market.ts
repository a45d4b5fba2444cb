import { afterAll, beforeEach } from "bun:test";
import { type FakeMarket, type FakeMarketOptions, startFakeMarket } from "../fakes/market.ts";

/**
 * The fake market one test file shares: started when the file loads, stopped after its last
 * test. Before each test its forced answers and request log are cleared and `reset` puts back
 * the file's tokens and prices, so no test sees what another injected.
 */
export async function fakeMarketPerFile(
  reset: (fake: FakeMarket) => void = () => {},
  opts: FakeMarketOptions = {},
): Promise<FakeMarket> {
  const fake = await startFakeMarket(opts);
  afterAll(() => fake.stop());
  beforeEach(() => {
    fake.clearInjected();
    fake.requests.length = 0;
    reset(fake);
  });
  return fake;
}
