import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childEnv, freePort, SOURCE_CLI, startService } from "./process-helpers.ts";

// SIGTERM stops the service promptly even when every outbound request hangs (issue 44 item 6:
// offline, a stop took 7 s, and 20 s when the signal came while the first polls were out). A
// local server takes each connection and the request and never answers; the providers' timeout
// is far above the bound, so only an abort on shutdown can end those requests in time.

const dir = mkdtempSync(join(tmpdir(), "shutdown-hang-"));
const held: Array<{ end(): void }> = [];
let requests = 0;
let sawRequest: () => void = () => {};
const firstRequest = new Promise<void>((r) => (sawRequest = r));
const hanging = Bun.listen({
  hostname: "127.0.0.1",
  port: 0,
  socket: {
    open(s) {
      held.push(s);
    },
    data() {
      requests++;
      sawRequest();
    },
  },
});
afterAll(() => {
  for (const s of held) s.end();
  hanging.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

test("SIGTERM while the market's requests hang: the service stops within 2 s, no shutdown step times out", async () => {
  const url = `http://127.0.0.1:${hanging.port}`;
  const svc = await startService(SOURCE_CLI, {
    cwd: dir,
    env: childEnv({
      PORT: String(await freePort()),
      DATABASE_PATH: join(dir, "t.db"),
      PRICE_NETWORK_URL: url,
      SOL_PRICE_FEED_URL: url,
      SWAP_AGGREGATOR_URL: url,
      MARKET_DATA_URL: url,
      SOLANA_RPC_URL: url,
      HTTP_TIMEOUT_MS: "60000",
    }),
  });
  await firstRequest;
  expect(requests).toBeGreaterThan(0);
  const sent = performance.now();
  const code = await svc.stop("SIGTERM");
  const tookMs = performance.now() - sent;
  console.log(`stopped ${tookMs.toFixed(0)} ms after SIGTERM with ${requests} requests hanging`);
  expect(code).toBe(0);
  expect(svc.logs.filter((l) => l.msg === "shutdown step timed out").map((l) => l.step)).toEqual([]);
  expect(svc.logs.some((l) => l.msg === "stopped")).toBe(true);
  expect(tookMs).toBeLessThan(2_000);
});
