import { afterAll, beforeAll, expect, test } from "bun:test";
import { DelayProxy, type ProxiedRequest, serialRounds } from "../../bench/lib/delay-proxy.ts";

// The live latency row's instruments (bench/live-latency.ts): the proxy answers after its delay
// and logs JSON-RPC methods; serialRounds counts parallel requests once.

const r = (name: string, startMs: number, endMs: number): ProxiedRequest => ({
  upstream: "rpc",
  method: "POST",
  path: "/",
  rpcMethod: name,
  startMs,
  endMs,
});

test("serial rounds: overlapping requests share a round, a request after every answer starts one", () => {
  const rounds = serialRounds([r("c", 50, 90), r("a", 0, 40), r("b", 10, 45), r("d", 90, 130), r("e", 129, 170)]);
  expect(rounds.map((x) => x.map((q) => q.rpcMethod))).toEqual([["a", "b"], ["c"], ["d", "e"]]);
  expect(serialRounds([])).toEqual([]);
});

let upstream: ReturnType<typeof Bun.serve>;
let proxy: DelayProxy;
const log: ProxiedRequest[] = [];
beforeAll(() => {
  upstream = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => Response.json({ echoed: req.method === "POST" ? await req.json() : null }),
  });
  proxy = new DelayProxy("rpc", `http://127.0.0.1:${upstream.port}`, 30, log).start();
});
afterAll(async () => {
  await proxy.stop();
  await upstream.stop(true);
});

test("the proxy answers no sooner than its delay, passes the body through and logs the JSON-RPC method", async () => {
  const t0 = performance.now();
  const res = await fetch(`${proxy.url}/rpc`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getSlot" }),
  });
  expect(((await res.json()) as { echoed: { method: string } }).echoed.method).toBe("getSlot");
  expect(performance.now() - t0).toBeGreaterThanOrEqual(30);
  expect(log.map((q) => [q.path, q.rpcMethod])).toEqual([["/rpc", "getSlot"]]);
  expect(log[0]!.endMs - log[0]!.startMs).toBeGreaterThanOrEqual(30);
});
