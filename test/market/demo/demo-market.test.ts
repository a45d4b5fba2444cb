import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/clock.ts";
import { ConfigError, configSchema, loadConfig } from "../../../src/config.ts";
import { isSolanaAddress } from "../../../src/http/solana-address.ts";
import { DemoMarketState, DemoQuotes, DemoTokenPrices } from "../../../src/market/demo/providers.ts";
import { DEMO_SOL, DEMO_TOKENS } from "../../../src/market/demo/tokens.ts";
import { DemoWhales } from "../../../src/market/demo/whales.ts";
import { Big, SOL_MINT } from "../../../src/money.ts";
import { createApiKey, createTestContext, json, login, type TestContext } from "../../helpers/context.ts";
import { startTrap, type Trap } from "./trap.ts";

// DEMO_MARKET=true (PRODUCT.md §7, issue 13 item 7): the synthetic market's answers, and the real
// service wired to it with every outside URL pointed at a 127.0.0.1 trap that counts connections.

const MOON = DEMO_TOKENS.find((t) => t.symbol === "MOON")!;
const GEM = DEMO_TOKENS.find((t) => t.symbol === "GEM")!;
const HOUR = 3_600_000;

describe("demo catalogue and prices", () => {
  test("a few dozen tokens, each a valid 32-byte base58 address, unique, none of them SOL", () => {
    expect(DEMO_TOKENS.length).toBeGreaterThanOrEqual(24);
    for (const t of DEMO_TOKENS) expect(isSolanaAddress(t.address), t.address).toBe(true);
    expect(new Set(DEMO_TOKENS.map((t) => t.address)).size).toBe(DEMO_TOKENS.length);
    expect(new Set(DEMO_TOKENS.map((t) => t.symbol)).size).toBe(DEMO_TOKENS.length);
    expect(DEMO_TOKENS.some((t) => t.address === SOL_MINT)).toBe(false);
  });

  test("prices are a pure function of the clock: two markets agree, in any order of asking", async () => {
    const c1 = new ManualClock();
    const c2 = new ManualClock();
    const a = new DemoTokenPrices(new DemoMarketState(c1));
    const b = new DemoTokenPrices(new DemoMarketState(c2));
    const mints = [SOL_MINT, MOON.address, GEM.address];
    const first = await a.getPrices(mints);
    // Market a is asked at every step along the way, market b only at the end.
    for (let i = 0; i < 12; i++) {
      c1.advance(5 * 60_000);
      await a.getPrices(mints);
    }
    c2.advance(HOUR);
    const [pa, pb] = [await a.getPrices(mints), await b.getPrices(mints)];
    expect(pa).toEqual(pb);
    // The walk starts at the base price and moves.
    expect(first.get(MOON.address)!.usd).toBe(String(MOON.basePriceUsd));
    expect(pa.get(MOON.address)!.usd).not.toBe(first.get(MOON.address)!.usd);
    expect(pa.get(SOL_MINT)).toMatchObject({ decimals: 9, liquidityUsd: null });
    expect(pa.get(MOON.address)).toMatchObject({ mint: MOON.address, decimals: MOON.decimals });
    // An unknown mint is absent, never zero.
    expect((await a.getPrices(["DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263"])).size).toBe(0);
  });

  test("a day of walking keeps every price positive and within a sane band of its base", async () => {
    const clock = new ManualClock();
    const p = new DemoTokenPrices(new DemoMarketState(clock));
    for (let h = 0; h < 24; h++) {
      clock.advance(HOUR);
      const prices = await p.getPrices([SOL_MINT, ...DEMO_TOKENS.map((t) => t.address)]);
      expect(prices.size).toBe(DEMO_TOKENS.length + 1);
      for (const t of [DEMO_SOL, ...DEMO_TOKENS]) {
        const ratio = Number(prices.get(t.address)!.usd) / t.basePriceUsd;
        expect(ratio, t.symbol).toBeGreaterThan(0.5);
        expect(ratio, t.symbol).toBeLessThan(2);
      }
    }
  });
});

describe("demo quotes", () => {
  const clock = new ManualClock();
  const state = new DemoMarketState(clock);
  const quotes = new DemoQuotes(state);

  test("a buy: Jupiter's quote shape, the output at the pool price less fee and impact", async () => {
    const q = await quotes.quote({
      inputMint: SOL_MINT,
      outputMint: MOON.address,
      amount: "1000000000",
      slippageBps: 300,
    });
    const sol = state.priceUsd(SOL_MINT);
    const moon = state.priceUsd(MOON.address);
    const ideal = new Big(sol).div(moon).times(10 ** MOON.decimals);
    const out = new Big(q.outAmount);
    const impact = new Big(q.priceImpactPct);
    expect(impact.gt(0)).toBe(true);
    // out = ideal × (1 − 0.25 % fee) × (1 − impact), to rounding.
    const expected = ideal.times(0.9975).times(new Big(1).minus(impact));
    expect(out.minus(expected).abs().div(expected).lt(1e-6)).toBe(true);
    expect(q).toMatchObject({
      inputMint: SOL_MINT,
      outputMint: MOON.address,
      inAmount: "1000000000",
      swapMode: "ExactIn",
    });
    expect(q.otherAmountThreshold).toBe(((BigInt(q.outAmount) * 9700n) / 10000n).toString());
    expect(q.routeLabels).toEqual(["Demo AMM"]);
    const raw = q.raw as Record<string, any>;
    expect(raw.outAmount).toBe(q.outAmount);
    expect(raw.priceImpactPct).toBe(q.priceImpactPct);
    expect(raw.routePlan[0].swapInfo).toMatchObject({
      label: "Demo AMM",
      inputMint: SOL_MINT,
      outputMint: MOON.address,
    });
  });

  test("price impact grows with the size of the trade against the pool", async () => {
    const impacts = [];
    for (const amount of ["10000000", "1000000000", "100000000000"]) {
      const q = await quotes.quote({ inputMint: SOL_MINT, outputMint: MOON.address, amount, slippageBps: 300 });
      impacts.push(Number(q.priceImpactPct));
    }
    expect(impacts[0]!).toBeLessThan(impacts[1]!);
    expect(impacts[1]!).toBeLessThan(impacts[2]!);
    // 100 SOL (about 15 k USD) against about 155 k USD of SOL in the pool: net / (reserve + net) ≈ 9 %.
    expect(impacts[2]!).toBeGreaterThan(0.05);
  });

  test("a sell, token to token through SOL, and ExactOut agree with the buy", async () => {
    const buy = await quotes.quote({
      inputMint: SOL_MINT,
      outputMint: MOON.address,
      amount: "500000000",
      slippageBps: 100,
    });
    const sell = await quotes.quote({
      inputMint: MOON.address,
      outputMint: SOL_MINT,
      amount: buy.outAmount,
      slippageBps: 100,
    });
    // A round trip loses the two fees and impacts, nothing more.
    const back = Number(sell.outAmount) / 500_000_000;
    expect(back).toBeLessThan(1);
    expect(back).toBeGreaterThan(0.99);
    const cross = await quotes.quote({
      inputMint: MOON.address,
      outputMint: GEM.address,
      amount: buy.outAmount,
      slippageBps: 100,
    });
    expect((cross.raw as any).routePlan.length).toBe(2);
    const exactOut = await quotes.quote({
      inputMint: SOL_MINT,
      outputMint: MOON.address,
      amount: buy.outAmount,
      slippageBps: 100,
      swapMode: "ExactOut",
    });
    expect(Math.abs(Number(exactOut.inAmount) - 500_000_000)).toBeLessThanOrEqual(2);
  });

  test("an unknown mint is a 502 naming the swap aggregator; bad input 400; no live swaps", async () => {
    const unknown = await quotes
      .quote({
        inputMint: SOL_MINT,
        outputMint: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263",
        amount: "1",
        slippageBps: 1,
      })
      .catch((e) => e);
    expect(unknown).toMatchObject({ code: "EXTERNAL_SERVICE_ERROR", service: "swapAggregator" });
    expect(unknown.message).toContain("not a demo market token");
    const bad = await quotes
      .quote({ inputMint: SOL_MINT, outputMint: MOON.address, amount: "0", slippageBps: 1 })
      .catch((e) => e);
    expect(bad.code).toBe("VALIDATION_ERROR");
    const q = await quotes.quote({ inputMint: SOL_MINT, outputMint: MOON.address, amount: "1000", slippageBps: 1 });
    const live = await quotes.swapTransaction(q, SOL_MINT, "auto").catch((e) => e);
    expect(live.code).toBe("SERVICE_NOT_CONFIGURED");
  });
});

describe("demo whale trades", () => {
  test("the same trades on every read, newest first, filtered by size, new ones as time passes", async () => {
    const clock = new ManualClock();
    const whales = new DemoWhales(new DemoMarketState(clock));
    const all = await whales.getTrades(MOON.address, { limit: 500, minVolumeUsd: 0 });
    expect(all.length).toBeGreaterThan(20); // about 20 % of the 180 two-minute buckets in six hours
    expect(await whales.getTrades(MOON.address, { limit: 500, minVolumeUsd: 0 })).toEqual(all);
    const times = all.map((t) => Date.parse(t.blockTime));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(times.every((t) => t <= clock.now() && t >= clock.now() - 6 * HOUR)).toBe(true);
    for (const t of all) {
      expect(t).toMatchObject({ tokenAddress: MOON.address, side: "buy", source: "Demo AMM" });
      expect(isSolanaAddress(t.owner!)).toBe(true);
      expect(t.tokenAmount! * t.priceUsd!).toBeCloseTo(t.volumeUsd!, -1);
    }
    const big = await whales.getTrades(MOON.address, { minVolumeUsd: 100_000, limit: 3 });
    expect(big.length).toBe(3);
    expect(big.every((t) => t.volumeUsd! >= 100_000)).toBe(true);
    expect(await whales.getTrades("DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263")).toEqual([]);
    clock.advance(HOUR);
    const later = await whales.getTrades(MOON.address, { limit: 500, minVolumeUsd: 0 });
    expect(Date.parse(later[0]!.blockTime)).toBeGreaterThan(times[0]!);
  });
});

describe("configuration", () => {
  test("DEMO_MARKET with live trading or a live wallet is refused, naming both", () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig({ DEMO_MARKET: "true", ...env });
        return [];
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as ConfigError).problems;
      }
    };
    expect(problems({})).toEqual([]);
    expect(problems({ LIVE_TRADING_ENABLED: "true" })).toEqual([
      "DEMO_MARKET: live trading cannot run on the demo market; unset LIVE_TRADING_ENABLED or DEMO_MARKET",
    ]);
    const withWallet = problems({ WALLET_1: "secret-not-echoed", WALLET_2: "x" });
    expect(withWallet).toEqual([
      "DEMO_MARKET: live wallets (WALLET_1, WALLET_2) cannot be used with the demo market; remove them or unset DEMO_MARKET",
    ]);
    expect(loadConfig({ LIVE_TRADING_ENABLED: "true" }).DEMO_MARKET).toBe(false);
  });
});

test("the trap covers every URL variable of the configuration", () => {
  // Not outside sources: EXPLORER_URL is only a link prefix the dashboard shows (never requested
  // by the service); REPLICA_URL is off unless the operator names their own store;
  // PUBLIC_BASE_URL is this service's own address, shown in signal hooks' URLs; the heartbeat
  // URLs are the operator's own monitor, off unless set.
  const notFetched = new Set(["EXPLORER_URL", "REPLICA_URL", "PUBLIC_BASE_URL", "HEARTBEAT_URL", "HEARTBEAT_FAIL_URL"]);
  const urlVariables = Object.keys(configSchema.shape).filter((k) => k.endsWith("_URL") && !notFetched.has(k));
  const env = startTrap();
  try {
    expect(urlVariables.filter((k) => !(k in env.env()))).toEqual([]);
  } finally {
    env.stop();
  }
});

describe("the service on the demo market (in-process, every outside URL at a trap)", () => {
  let trap: Trap;
  let ctx: TestContext;
  let token: string;
  let apiKey: string;

  beforeAll(async () => {
    trap = startTrap();
    ctx = await createTestContext({ env: { ...trap.env(), DEMO_MARKET: "true" } });
    token = (await login(ctx)).token;
    apiKey = (await createApiKey(ctx, token, ["signals"])).key;
  });
  afterAll(async () => {
    await ctx.close();
    trap.stop();
  });

  test("a signal for a demo token opens a simulated position at the demo price", async () => {
    const agent = await json(
      await ctx.request("POST", "/api/v1/agents", { token, body: { name: "demo", tradingMode: "simulation" } }),
    );
    await ctx.request("PUT", `/api/v1/agents/${agent.id}`, { token, body: { automatedTradingSimulation: true } });
    // Market filters need market data: the demo has it.
    const cfg = await ctx.request("PUT", `/api/v1/agents/${agent.id}/config`, {
      token,
      body: { config: { filters: { minMarketCap: 1_000_000, minLiquidity: 100_000 } } },
    });
    expect(cfg.status).toBe(200);
    const signal = await ctx.request("POST", "/api/v1/trading-signals", {
      apiKey,
      body: { tokenAddress: MOON.address, symbol: "MOON", signalType: "buy", signalStrength: 4 },
    });
    expect(signal.status).toBe(201);
    await ctx.services.signalQueue.idle();
    const positions = await json(await ctx.request("GET", `/api/v1/agent-positions/${agent.id}`, { token }));
    expect(positions.length).toBe(1);
    expect(positions[0]).toMatchObject({ tokenAddress: MOON.address });
    expect(trap.connections).toBe(0);
  });

  test("imported old signals queue no history import (GeckoTerminal is an outside source); nothing left the host", async () => {
    const old = new Date(ctx.clock.now() - 2 * 86_400_000).toISOString();
    const csv =
      "id,createdAt,tokenAddress,symbol,signalType,signalStrength,activationReason,source\r\n" +
      `,${old},${MOON.address},MOON,buy,4,,hist\r\n`;
    const res = await ctx.request("POST", "/api/v1/trading-signals/import", {
      token,
      rawBody: csv,
      headers: { "content-type": "text/csv" },
    });
    expect(await json(res)).toEqual({ imported: 1, duplicates: 0, historyQueued: 0 });
    expect(await ctx.services.strategyLab.history.tick()).toBeNull();
    expect(trap.connections).toBe(0);
  });

  test("README's BONK signal under the demo market: refused with 'not a demo market token'", async () => {
    const agent = await json(await ctx.request("POST", "/api/v1/agents", { token, body: { name: "bonk" } }));
    await ctx.request("PUT", `/api/v1/agents/${agent.id}`, { token, body: { automatedTradingSimulation: true } });
    const BONK = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
    const signal = await json(
      await ctx.request("POST", "/api/v1/trading-signals", {
        apiKey,
        body: { tokenAddress: BONK, symbol: "BONK", signalType: "buy", signalStrength: 4 },
      }),
    );
    await ctx.services.signalQueue.idle();
    const detail = await json(await ctx.request("GET", `/api/v1/trading-signals/${signal.id}`, { token }));
    const mine = detail.processing.evaluations.find((e: { agentId: string }) => e.agentId === agent.id);
    expect(mine.reason).toContain(`${BONK} is not a demo market token (see README "Demo market")`);
    expect(mine.reason).not.toContain("decimals unknown");
    expect(trap.connections).toBe(0);
  });

  test("status, SOL price and whale trades answer from the demo; nothing left the host", async () => {
    const status = await json(await ctx.request("GET", "/api/v1/data-sources/status", { token }));
    expect(status).toEqual({
      priceNetwork: { configured: false, reachable: null },
      solPriceFeed: { configured: true, reachable: true },
      swapAggregator: { configured: true, reachable: true },
      marketData: { configured: true, reachable: true },
      liquidityChecks: { configured: true, reachable: true },
      signalGeneration: { configured: true, reachable: true },
      solanaRpc: { configured: false, reachable: null },
      solanaConfirmRpc: { configured: false, reachable: null },
      jitoBlockEngine: { configured: false, reachable: null },
    });
    const sol = await json(await ctx.request("GET", "/api/v1/price-feeds/sol-usd", { token }));
    expect(sol).toMatchObject({ source: "demo", isStale: false });
    expect(Number(sol.price)).toBeGreaterThan(0);
    const whales = await ctx.request("GET", `/v1/whale-trades/${MOON.address}?minVolumeUsd=0`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(whales.status).toBe(200);
    expect((await json(whales)).trades.length).toBeGreaterThan(0);
    expect(ctx.logs.some((l) => l.includes("DEMO_MARKET=true") && l.includes(MOON.address))).toBe(true);
    expect(trap.connections).toBe(0);
  });
});

test("control: without DEMO_MARKET the same environment does reach the trap", async () => {
  const trap = startTrap();
  const ctx = await createTestContext({ env: trap.env(), services: { market: { retry: { maxRetries: 0 } } } });
  try {
    await ctx.services.market.solPrice.refresh().catch(() => {});
    expect(trap.connections).toBeGreaterThan(0);
  } finally {
    await ctx.close();
    trap.stop();
  }
});

test("README lists every demo token's address and shows the demo quick start", async () => {
  const readme = await Bun.file(`${import.meta.dir}/../../../README.md`).text();
  for (const t of DEMO_TOKENS) expect(readme).toContain(`| ${t.symbol} | \`${t.address}\` | ${t.decimals} |`);
  expect(readme).toContain("DEMO_MARKET=true ADMIN_EMAIL=admin@example.com ADMIN_PASSWORD='change-me-Now!1' npm start");
});
