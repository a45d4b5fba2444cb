import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app.ts";
import { createAppDeps } from "../src/http/deps.ts";
import { BENCH_PASSWORD, BONK, inProcessEnv, openServices, seedUser } from "./lib/seed.ts";

// Per-request cost in-process (no sockets): `bun [--cpu-prof-md] bench/profile.ts [read|ingest] [n]`.
// For profiling the request path (docs/decisions.md "Performance"); not part of the run.

const which = process.argv[2] ?? "read";
const n = Number(process.argv[3] ?? 20000);
const dir = mkdtempSync(join(tmpdir(), "trading-agent-profile-"));
// No market at all: the request path only.
const noMarket = {
  PRICE_NETWORK_URL: "",
  SOL_PRICE_FEED_URL: "",
  SWAP_AGGREGATOR_URL: "",
  MARKET_DATA_URL: "",
  WHALE_DATA_URL: "",
};
const env = inProcessEnv(join(dir, "p.db"), noMarket, {
  ADMIN_EMAIL: "admin@bench.local",
  ADMIN_PASSWORD: BENCH_PASSWORD,
  SIGNAL_RATE_LIMIT_PER_MINUTE: "1000000",
});
const { services, database } = openServices(env);
const deps = createAppDeps(services);
const app = createApp(deps);
const reader = await seedUser(services, "reader@bench.local", 20);
const ingest = await seedUser(services, "ingest@bench.local", 0, ["signals"]);
const body = JSON.stringify({
  tokenAddress: BONK,
  symbol: "BONK",
  signalType: "buy",
  signalStrength: 4,
  source: "bench",
});
const req = () =>
  which === "read"
    ? app.request("/api/v1/agents", { headers: { authorization: `Bearer ${reader.token}` } })
    : app.request("/api/v1/trading-signals", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)), // as a client sends it (the service's direct path needs it)
          "x-api-key": ingest.apiKey as string,
        },
        body,
      });
const CONC = 32;
async function run(count: number) {
  let left = count;
  await Promise.all(
    Array.from({ length: CONC }, async () => {
      while (left-- > 0) {
        const r = await req();
        if (r.status >= 300) throw new Error(`${r.status} ${await r.text()}`);
        await r.arrayBuffer();
      }
    }),
  );
}
await run(2000);
// CPU time as well as wall: on a shared machine the wall time includes the time this process
// waited for a core, the CPU time does not (it does include the JIT and GC threads).
const t0 = performance.now();
const cpu0 = process.cpuUsage();
await run(n);
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const cpuUs = (cpu.user + cpu.system) / n;
console.log(
  `${which}: ${n} requests, ${((ms * 1000) / n).toFixed(1)} µs each (CPU ${cpuUs.toFixed(1)} µs), ${Math.round((n / ms) * 1000)} req/s`,
);
await services.signalQueue.idle?.();
await services.stop({ timeoutMs: 5000 });
database.close();
rmSync(dir, { recursive: true, force: true });
