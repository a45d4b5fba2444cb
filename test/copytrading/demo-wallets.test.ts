import { describe, expect, test } from "bun:test";
import { DEMO_COPY_WALLETS, DemoCopyWallets } from "../../src/market/demo/copy-wallets.ts";
import { DEMO_TOKENS } from "../../src/market/demo/tokens.ts";
import { contextsClosedAfterEach, json, login } from "../helpers/context.ts";

// Copy trading offline (issue "Copy trading" item 5): with DEMO_MARKET=true a few synthetic
// wallets trade demo tokens, served in the node's terms, so a watch copies them with no chain.

const context = contextsClosedAfterEach();
const demoMints = new Set(DEMO_TOKENS.map((t) => t.address));

describe("demo copy wallets", () => {
  test("the synthetic wallets' history is the same on every read and grows as the clock moves", async () => {
    let now = Date.parse("2026-01-01T00:00:00.000Z");
    const source = new DemoCopyWallets({ now: () => now });
    const first = await source.signatures(DEMO_COPY_WALLETS[0]!.address, { until: null, before: null, limit: 1000 });
    expect(first.length).toBeGreaterThan(10);
    expect(await source.signatures(DEMO_COPY_WALLETS[0]!.address, { until: null, before: null, limit: 1000 })).toEqual(
      first,
    );
    now += 600_000;
    const later = await source.signatures(DEMO_COPY_WALLETS[0]!.address, {
      until: first[0]!.signature,
      before: null,
      limit: 1000,
    });
    expect(later.length).toBeGreaterThan(0);
    expect(later.map((s) => s.signature)).not.toContain(first[0]!.signature);
    const tx = await source.transaction(later[0]!.signature);
    expect(tx?.accountKeys[0]).toBe(DEMO_COPY_WALLETS[0]!.address);
    expect(tx?.blockTime).toBe(later[0]!.blockTime);
    expect(
      await source.signatures("7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU", { until: null, before: null, limit: 10 }),
    ).toEqual([]);
  });

  test("a watch on a demo wallet copies its buys into signals an agent trades, with DEMO_MARKET=true", async () => {
    const ctx = await context({ DEMO_MARKET: "true" });
    const { token } = await login(ctx);
    const agent = await json(await ctx.request("POST", "/api/v1/agents", { token, body: { name: "copier" } }));
    await ctx.request("PUT", `/api/v1/agents/${agent.id}`, { token, body: { automatedTradingSimulation: true } });
    const wallet = DEMO_COPY_WALLETS[0]!.address;
    const res = await ctx.request("POST", "/api/v1/wallet-watches", {
      token,
      body: { address: wallet, minSolAmount: 0.05, copySells: true },
    });
    expect(res.status).toBe(201);
    for (let i = 0; i < 80; i++) {
      ctx.clock.advance(15_000);
      await ctx.services.copyTrading.watcher.tick();
      // Decided before the clock jumps again: 15 s steps would otherwise age a signal still queued
      // past SIGNAL_MAX_AGE_SECONDS, and a late buy opens nothing (issue 35).
      await ctx.services.signalQueue.idle();
    }
    const fresh = (await login(ctx)).token; // 20 minutes of demo time outlive the access token
    const signals = await json(await ctx.request("GET", "/api/v1/trading-signals?limit=1000", { token: fresh }));
    expect(signals.length).toBeGreaterThan(0);
    for (const s of signals) {
      expect(s.source).toBe(`wallet:${wallet}`);
      expect(demoMints.has(s.tokenAddress)).toBe(true);
      expect(s.symbol).not.toBeNull();
    }
    expect(signals.some((s: any) => s.signalType === "buy")).toBe(true);
    // Never twice: one signal per detected trade.
    const rows = ctx.database.sqlite
      .query(
        "SELECT count(*) AS n, count(DISTINCT signature) AS d FROM wallet_watch_trades WHERE signal_id IS NOT NULL",
      )
      .get() as { n: number; d: number };
    expect(rows.n).toBe(signals.length);
    expect(rows.d).toBe(rows.n);
    const positions = ctx.database.sqlite.query("SELECT count(*) AS n FROM positions").get() as { n: number };
    expect(positions.n).toBeGreaterThan(0);
    const w = await json(await ctx.request("GET", "/api/v1/wallet-watches", { token: fresh }));
    expect(w[0].lastError).toBeNull();
    expect(w[0].lagSeconds).toBeLessThanOrEqual(120);
  });
});
