import { afterEach, describe, expect, test } from "bun:test";
import { DEFAULT_QUOTE_TAKER, loadConfig } from "../../src/config.ts";
import { SOL_MINT } from "../../src/money.ts";
import {
  flatSimulationPriorityFeeSol,
  type SimulationFeeConfig,
  simulatedPriorityLamports,
  simulationFeeModel,
} from "../../src/trading/rules/simulation-fees.ts";
import { json } from "../helpers/context.ts";
import { MINT, startTrading, type TradingContext } from "../helpers/trading.ts";

// Simulation on Swap API v2 (docs/decisions.md "Simulation on Swap API v2"): with Jupiter's v1
// retired (404), a simulation agent trades a signal through the whole service over HTTP, quoting
// through /swap/v2/build by default and /swap/v2/order with SWAP_API=order, and pays the priority
// fee a live swap could pay at most. Figures: SOL $100, the
// token at $0.01, 5 % of 10 SOL = 0.5 SOL per buy → 5000 tokens before any Jupiter fee.

let t: TradingContext | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const txs = async (agentId: string) =>
  json(await t!.ctx.request("GET", `/api/v1/agent-transactions?agentId=${agentId}`, { token: t!.token }));

/** A service whose fake market has retired v1, the simulation fee left to the live model. */
async function start(env: Record<string, string> = {}): Promise<TradingContext> {
  const ctx = await startTrading({ env: { SIMULATION_PRIORITY_FEE_SOL: "", ...env } });
  ctx.fake.v2.v1Retired = true;
  return ctx;
}

/** Buys on a signal, then closes the position by hand: both through the aggregator. */
async function buyThenClose(ctx: TradingContext) {
  const agent = await ctx.createAgent();
  await ctx.postSignal();
  await ctx.settle();
  const [position] = await ctx.positions(agent.id);
  expect(position?.tokenAddress).toBe(MINT);
  const res = await ctx.ctx.request("POST", `/api/v1/agent-positions/${position.id}/close`, { token: ctx.token });
  expect(res.status).toBe(200);
  const all = await txs(agent.id);
  const buy = all.find((x: { transactionType: string }) => x.transactionType === "BUY");
  const sell = all.find((x: { transactionType: string }) => x.transactionType === "SELL");
  return { agent, buy, sell };
}

const v1Requests = (ctx: TradingContext) => ctx.fake.requests.filter((r) => r.path.startsWith("/swap/v1/"));

describe("SWAP_API=build (the default)", () => {
  test("a signal's buy and the close quote through /build for the quote taker; nothing asks v1; the fee is LIVE_PRIORITY_FEE_MAX", async () => {
    t = await start({ LIVE_PRIORITY_FEE_MAX: "300000" });
    expect(t.ctx.config.SWAP_API).toBe("build");
    const { buy, sell } = await buyThenClose(t);
    expect(buy).toMatchObject({ inputAmount: "0.5", outputAmount: "5000", routes: ["Raydium"], fees: "0.000305" });
    // The closing sale's fees also carry the token account close's 0.000005 (pnl-is-wallet-gain.md).
    expect(sell).toMatchObject({ inputAmount: "5000", routes: ["Raydium"], fees: "0.00031" });
    const builds = t.fake.requestsTo("jupiter.build");
    expect(builds.map((r) => [r.query.get("inputMint"), r.query.get("outputMint")])).toContainEqual([SOL_MINT, MINT]);
    expect(builds.map((r) => [r.query.get("inputMint"), r.query.get("outputMint")])).toContainEqual([MINT, SOL_MINT]);
    expect(new Set(builds.map((r) => r.query.get("taker")))).toEqual(new Set([DEFAULT_QUOTE_TAKER]));
    expect(v1Requests(t)).toEqual([]);
    expect(t.fake.requestsTo("jupiter.order")).toEqual([]);
  });

  test("SWAP_QUOTE_TAKER names the taker /build is asked for", async () => {
    const taker = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
    t = await start({ SWAP_QUOTE_TAKER: taker });
    await buyThenClose(t);
    expect(new Set(t.fake.requestsTo("jupiter.build").map((r) => r.query.get("taker")))).toEqual(new Set([taker]));
  });

  test("with Jito bundles on, every simulated swap also pays the live tip", async () => {
    t = await start({
      LIVE_PRIORITY_FEE_MAX: "300000",
      JITO_BLOCK_ENGINE_URL: "http://127.0.0.1:9",
      JITO_TIP_LAMPORTS: "20000",
    });
    const { buy, sell } = await buyThenClose(t);
    // 0.000005 + 0.0003 + 0.00002.
    expect([buy.fees, sell.fees]).toEqual(["0.000325", "0.00033"]); // the sale's with the account close's
  });
});

describe("SWAP_API=build with a Solana RPC: the live estimate for the quoted route", () => {
  /** The service with a fake node whose recent slots all paid `fee` micro-lamports per unit. */
  async function withFees(fee: number, env: Record<string, string> = {}) {
    const ctx = await startTrading({
      rpc: true,
      env: { SIMULATION_PRIORITY_FEE_SOL: "", LIVE_PRIORITY_FEE_MAX: "300000", ...env },
    });
    ctx.fake.v2.v1Retired = true;
    ctx.rpc!.recentFees = Array.from({ length: 20 }, (_, i) => ({ slot: 100 + i, fee }));
    return ctx;
  }
  const feeReads = (ctx: TradingContext) => ctx.rpc!.calls.filter((c) => c.method === "getRecentPrioritizationFees");

  test("a quiet route: the 75th percentile of the node's fees over the route's writable accounts, at the compute-unit limit", async () => {
    // 2,000 micro-lamports × 400,000 units = 800 lamports; + the 5,000-lamport signature.
    t = await withFees(2_000);
    const { buy, sell } = await buyThenClose(t);
    expect([buy.fees, sell.fees]).toEqual(["0.0000058", "0.0000108"]); // the sale's with the account close's
    const asked = feeReads(t);
    expect(asked.length).toBeGreaterThan(0);
    // The accounts asked about are the /build route's write-locked ones, the quote taker's among them.
    const accounts = asked[0]!.params[0] as string[];
    expect(accounts.length).toBeGreaterThan(0);
    expect(accounts).toContain(DEFAULT_QUOTE_TAKER);
  });

  test("a busy route is charged at most LIVE_PRIORITY_FEE_MAX, as live pays", async () => {
    t = await withFees(5_000_000);
    const { buy } = await buyThenClose(t);
    expect(buy.fees).toBe("0.000305");
  });

  test("a node that cannot say: the cap, never less", async () => {
    t = await withFees(2_000);
    for (let i = 0; i < 5; i++)
      t.rpc!.failNext("getRecentPrioritizationFees", { code: -32603, message: "Internal error" });
    const agent = await t.createAgent();
    await t.postSignal();
    await t.settle();
    const [buy] = await txs(agent.id);
    expect(buy.fees).toBe("0.000305");
  });

  test("an explicit SIMULATION_PRIORITY_FEE_SOL wins and the node is not asked", async () => {
    t = await withFees(2_000, { SIMULATION_PRIORITY_FEE_SOL: "0.0002" });
    const { buy } = await buyThenClose(t);
    expect(buy.fees).toBe("0.000205");
    expect(feeReads(t)).toEqual([]);
  });
});

describe("SWAP_API=order", () => {
  test("the fill is the order's outAmount (Jupiter's fee already out), routes lead with the router, the fee is the cap", async () => {
    t = await start({ SWAP_API: "order", LIVE_PRIORITY_FEE_MAX: "300000" });
    t.fake.v2.router = "jupiterz";
    t.fake.v2.feeBps = 50;
    t.fake.v2.prioritizationFeeLamports = 100_000;
    const { buy, sell } = await buyThenClose(t);
    // 5000 tokens less 50 bps = 4975; the order names a lower priority fee than the cap.
    expect(buy).toMatchObject({ inputAmount: "0.5", outputAmount: "4975", routes: ["jupiterz", "Raydium"] });
    expect(buy.fees).toBe("0.000305");
    // 4975 tokens × 0.0001 SOL = 0.4975 SOL, less 50 bps.
    expect(sell).toMatchObject({ inputAmount: "4975", outputAmount: "0.4950125", fees: "0.00031" }); // and the account close's
    const orders = t.fake.requestsTo("jupiter.order");
    expect(orders.length).toBeGreaterThanOrEqual(2);
    expect(orders.every((r) => r.query.get("taker") === null)).toBe(true);
    expect(v1Requests(t)).toEqual([]);
    expect(t.fake.requestsTo("jupiter.build")).toEqual([]);
  });

  test("an order whose own transaction pays more than the cap is charged that", async () => {
    t = await start({ SWAP_API: "order", LIVE_PRIORITY_FEE_MAX: "300000" });
    t.fake.v2.prioritizationFeeLamports = 800_000;
    const { buy, sell } = await buyThenClose(t);
    expect([buy.fees, sell.fees]).toEqual(["0.000805", "0.00081"]); // the sale's with the account close's
  });
});

test("SWAP_API=v1 keeps /swap/v1/quote", async () => {
  t = await startTrading({ env: { SWAP_API: "v1" } });
  await buyThenClose(t);
  expect(t.fake.requestsTo("jupiter.quote").length).toBeGreaterThanOrEqual(2);
  expect(t.fake.requestsTo("jupiter.build")).toEqual([]);
  expect(t.fake.requestsTo("jupiter.order")).toEqual([]);
});

describe("the fee model (never kinder than live)", () => {
  const base: SimulationFeeConfig = {
    SIMULATION_PRIORITY_FEE_SOL: undefined,
    SWAP_API: "build",
    LIVE_PRIORITY_FEE_MAX: 250_000,
    LIVE_PRIORITY_FEE_MAX_BPS: 50,
    JITO_BLOCK_ENGINE_URL: "",
    JITO_TIP_LAMPORTS: 10_000,
  };
  const cases: Array<[string, Partial<SimulationFeeConfig>, { order?: number | null }, number]> = [
    ["build: the cap of the live estimate", {}, {}, 250_000],
    ["build + Jito: the cap and the tip", { JITO_BLOCK_ENGINE_URL: "http://jito" }, {}, 260_000],
    ["order: the cap when the order asks less", { SWAP_API: "order" }, { order: 1_000 }, 250_000],
    ["order: the order's own fee when higher", { SWAP_API: "order" }, { order: 400_000 }, 400_000],
    [
      "order: Jito is not used (Jupiter lands it)",
      { SWAP_API: "order", JITO_BLOCK_ENGINE_URL: "http://jito" },
      {},
      250_000,
    ],
    [
      "v1: the cap of Jupiter's own fee, no tip (no bundle)",
      { SWAP_API: "v1", JITO_BLOCK_ENGINE_URL: "http://jito" },
      {},
      250_000,
    ],
    [
      "explicit: the operator's figure, rounded up to lamports",
      { SIMULATION_PRIORITY_FEE_SOL: 0.0000012345 },
      {},
      1_235,
    ],
    [
      "explicit under order: the operator's figure even when the order asks more",
      { SWAP_API: "order", SIMULATION_PRIORITY_FEE_SOL: 0.0001 },
      { order: 400_000 },
      100_000,
    ],
  ];
  for (const [name, over, q, lamports] of cases) {
    test(name, () => {
      const model = simulationFeeModel({ ...base, ...over });
      const quote =
        q.order === undefined
          ? undefined
          : { order: { router: "iris", feeBps: 0, prioritizationFeeLamports: q.order } };
      expect(simulatedPriorityLamports(model, quote)).toBe(lamports);
    });
  }

  test("backtests charge the same flat fee, in SOL", () => {
    expect(flatSimulationPriorityFeeSol({ ...base, JITO_BLOCK_ENGINE_URL: "http://jito" })).toBe(0.00026);
  });

  test("SWAP_QUOTE_TAKER: a base58 key, default the documented one", () => {
    expect(loadConfig({}).SWAP_QUOTE_TAKER).toBe(DEFAULT_QUOTE_TAKER);
    expect(loadConfig({ SWAP_QUOTE_TAKER: "" }).SWAP_QUOTE_TAKER).toBe(DEFAULT_QUOTE_TAKER);
    expect(() => loadConfig({ SWAP_QUOTE_TAKER: "not a key" })).toThrow("SWAP_QUOTE_TAKER");
  });
});
