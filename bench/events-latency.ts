import { Keypair } from "@solana/web3.js";
import { createLogger } from "../src/logger.ts";
import { openSse, type SseClient } from "../test/events/sse-client.ts";
import { startFakeMarket } from "../test/fakes/market.ts";
import { createApiKey, createTestContext, login } from "../test/helpers/context.ts";
import type { BenchOptions, ServiceUnderTest } from "./lib/context.ts";
import { type BenchRow, row, summarize } from "./lib/stats.ts";

// SSE commit-to-write latency (PRODUCT.md §6: under 10 ms). Real trades: a buy signal per token,
// processed by the real engine against the fake market, its trade.executed and position.opened
// events read from GET /api/v1/events over a real listener on 127.0.0.1 by a fetch client.
//
// Per event: (time the client read the frame) − (time the bus delivered it). The engine publishes
// right after its SQLite transaction commits, with only the trade's log line and metric counters
// between; a bus subscriber registered before the stream's records the delivery time. Service and
// client share this process (one clock, sub-millisecond resolution), so the client's own reading
// work counts against us. The service under test of bench/run.ts is a child process whose events
// carry millisecond timestamps only, so this benchmark runs its own service in-process.
//
// Baseline: the machine's floor for the same delivery, a bare Bun.serve streaming response whose
// chunk is enqueued by hand and read by the same client.
//
//   node_modules/.bin/bun bench/events-latency.ts [--quick]

const TARGET_MS = 10;

export interface EventsLatencyResult {
  ours: ReturnType<typeof summarize>;
  baseline: ReturnType<typeof summarize>;
}

/** Called by bench/run.ts (the service argument is not used: see above). */
export async function eventsLatency(o: Partial<BenchOptions> = {}, _s?: ServiceUnderTest): Promise<BenchRow[]> {
  const signals = o.quick ? 50 : 300;
  const { ours, baseline } = await measure(signals);
  o.log?.(
    `  ${ours.n} events from ${signals} trades: p50 ${ours.p50.toFixed(3)} ms, p99 ${ours.p99.toFixed(3)} ms, max ${ours.max.toFixed(3)} ms`,
  );
  const common = {
    unit: "ms",
    baselineName: "bare Bun.serve stream",
    target: `< ${TARGET_MS} ms`,
    check: (_r: number, v: number) => v < TARGET_MS,
  };
  return [
    row({
      id: "events.latency.p50",
      name: "SSE commit-to-write latency p50",
      value: ours.p50,
      baselineValue: baseline.p50,
      ...common,
      details: { ...ours },
    }),
    row({
      id: "events.latency.p99",
      name: "SSE commit-to-write latency p99",
      value: ours.p99,
      baselineValue: baseline.p99,
      ...common,
      details: { baseline },
    }),
  ];
}

export async function measure(signals: number): Promise<EventsLatencyResult> {
  const fake = await startFakeMarket();
  fake.setSolPrice(100);
  const mints = Array.from({ length: signals }, () => Keypair.generate().publicKey.toBase58());
  for (const [i, mint] of mints.entries())
    fake.setToken(mint, {
      symbol: `T${i}`,
      priceUsd: "0.01",
      decimals: 6,
      liquidityUsd: 250_000,
      marketCapUsd: 3_000_000,
    });
  // Production's log format and level, written nowhere.
  const logger = createLogger({ level: "info", write: () => {} });
  const ctx = await createTestContext({
    env: { ...fake.env(), LOG_LEVEL: "info", SIGNAL_RATE_LIMIT_PER_MINUTE: "1000000" },
    services: { ...fake.serviceOptions(), logger },
  });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req, srv) => ctx.app.fetch(req, { server: srv }),
  });
  let client: SseClient | undefined;
  try {
    const { token } = await login(ctx);
    const key = (await createApiKey(ctx, token, ["signals"])).key;
    const agent = (await (await ctx.request("POST", "/api/v1/agents", { token, body: { name: "bench" } })).json()) as {
      id: string;
    };
    await ctx.request("PUT", `/api/v1/agents/${agent.id}`, { token, body: { automatedTradingSimulation: true } });
    await ctx.request("PUT", `/api/v1/agents/${agent.id}/config`, {
      token,
      body: { config: { positionSizing: { type: "fixed", fixedAmountSol: 0.01 } } },
    });

    // Registered before the stream's subscription, so it runs first within publish().
    const deliveredAt = new Map<number, number>();
    ctx.services.events.subscribe((e) => deliveredAt.set(e.id, performance.now()));
    client = await openSse(`http://127.0.0.1:${server.port}/api/v1/events`, { authorization: `Bearer ${token}` });
    await client.next(); // the opening frame

    const samples: number[] = [];
    for (const mint of mints) {
      const res = await ctx.request("POST", "/api/v1/trading-signals", {
        apiKey: key,
        body: { tokenAddress: mint, signalType: "buy", signalStrength: 4 },
      });
      if (res.status !== 201) throw new Error(`signal answered ${res.status}: ${await res.text()}`);
      for (;;) {
        const f = await client.next(10_000);
        if (f.id === undefined || f.event === "price.sol") continue;
        const at = deliveredAt.get(Number(f.id));
        if (at !== undefined && f.event !== "signal.created") samples.push(f.receivedAt - at);
        if (f.event === "position.opened") break;
        if (f.event === "trade.failed") throw new Error(`trade failed: ${f.data}`);
      }
      await ctx.services.signalQueue.idle();
    }
    return { ours: summarize(samples), baseline: summarize(await bareStreamLatency(samples.length)) };
  } finally {
    await client?.close();
    server.stop(true);
    await ctx.close();
    await fake.stop();
  }
}

/** The floor: enqueue a chunk on a bare streaming response and time until the client reads it. */
async function bareStreamLatency(n: number): Promise<number[]> {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(c) {
            controller = c;
            c.enqueue(new TextEncoder().encode(": connected\n\n"));
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      ),
  });
  const client = await openSse(`http://127.0.0.1:${server.port}/`);
  try {
    await client.next();
    const samples: number[] = [];
    const frame = new TextEncoder().encode(
      `id: 1\nevent: position.opened\ndata: ${JSON.stringify({ id: 1, type: "position.opened", data: { pad: "x".repeat(200) } })}\n\n`,
    );
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      controller.enqueue(frame);
      const f = await client.next(10_000);
      samples.push(f.receivedAt - t0);
    }
    return samples;
  } finally {
    await client.close();
    server.stop(true);
  }
}

if (import.meta.main) {
  const quick = process.argv.includes("--quick");
  const rows = await eventsLatency({ quick, log: (l) => console.log(l) });
  const [p50, p99] = rows;
  console.log(
    `SSE commit-to-write latency: p50 ${p50!.value.toFixed(3)} ms, p99 ${p99!.value.toFixed(3)} ms (target < ${TARGET_MS} ms: ${p50!.met && p99!.met ? "met" : "MISSED"})`,
  );
  console.log(
    `bare stream floor:           p50 ${p50!.baselineValue.toFixed(3)} ms, p99 ${p99!.baselineValue.toFixed(3)} ms`,
  );
  // fetch's idle keep-alive sockets would hold the process for seconds more.
  process.exit(0);
}
