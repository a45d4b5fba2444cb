import { afterEach, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { resolveStoredConfig } from "../../src/agents/trading-config.ts";
import { Big } from "../../src/money.ts";
import { type CopyContext, landBuy, MINT, MINT2, startCopy, W } from "../copytrading/copy-context.ts";
import { createApiKey, json } from "../helpers/context.ts";

// Issue 41 item 2 acceptance: every buy path passes ONE gate (src/trading/guard-rails.ts
// admitBuy). Two ways of holding that:
// - the source: executors are asked for a swap in two files only (the engine's sales and the buy
//   path), every BUY swap goes through BuyPath.swapBuy, which refuses a pass the gate did not hand
//   out — so a buy path added anywhere else, or a swap with side "BUY" outside swapBuy, fails here;
// - the service: with the gate closed (maxExposureSol below any trade), each buy path there is
//   today — an API key's signal, a copied wallet's buy, a watch group's signal, a DCA order, and
//   the engine's openPosition asked directly (what a manual buy route would call) — buys nothing.

const SRC = join(import.meta.dir, "../../src");
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
const sources = files(SRC).map((f) => ({ path: relative(SRC, f), text: readFileSync(f, "utf8") }));

/** The argument text of each `.swap(` call in `text` (up to its closing parenthesis). */
function swapCalls(text: string): string[] {
  const calls: string[] = [];
  for (const m of text.matchAll(/\.swap\(/g)) {
    let depth = 1;
    let i = m.index! + m[0].length;
    const start = i;
    while (depth > 0 && i < text.length) {
      if (text[i] === "(") depth++;
      else if (text[i] === ")") depth--;
      i++;
    }
    calls.push(text.slice(start, i - 1));
  }
  return calls;
}

describe("the buy paths, in the source", () => {
  test("executors swap from the engine's sales and from swapBuy only; every BUY is swapBuy's, behind the gate's pass", () => {
    const callers = sources.filter((s) => swapCalls(s.text).length > 0).map((s) => s.path);
    expect(callers.sort()).toEqual(["trading/buy-path.ts", "trading/trading-engine.ts"]);

    // The engine's own swaps all sell.
    const engine = sources.find((s) => s.path === "trading/trading-engine.ts")!.text;
    expect(swapCalls(engine).length).toBeGreaterThan(0);
    for (const call of swapCalls(engine)) expect(call).toContain('side: "SELL"');
    expect(engine).not.toContain('"BUY" as');

    // The buy path's one swap is swapBuy's, after the gate's pass is checked.
    const buys = sources.find((s) => s.path === "trading/buy-path.ts")!.text;
    expect(swapCalls(buys)).toEqual(['{ ...req, side: "BUY" }']);
    const swapBuy = buys.slice(buys.indexOf("private swapBuy("));
    expect(swapBuy.indexOf("this.d.gate.holds(pass)")).toBeGreaterThan(0);
    expect(swapBuy.indexOf("this.d.gate.holds(pass)")).toBeLessThan(swapBuy.indexOf(".swap("));
    // Every method of the buy path that swaps asked the gate first: its callers hold a pass.
    expect(buys.match(/this\.swapBuy\(/g)?.length).toBe(buys.match(/this\.d\.gate\.admitBuy\(/g)?.length);

    // Nobody else names swapBuy or makes a pass.
    for (const s of sources.filter((x) => x.path !== "trading/buy-path.ts")) {
      expect(s.text, s.path).not.toContain("swapBuy(");
      expect(s.text, s.path).not.toMatch(/as (unknown as )?BuyPass/);
    }
  });
});

let c: CopyContext | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

const W2 = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";

describe("the buy paths, through the service, with the gate closed", () => {
  test("an API signal, a copied buy, a group signal, a DCA order, a manual buy and a direct openPosition buy nothing", async () => {
    c = await startCopy();
    const ctx = () => c!.ctx;
    const db = () => ctx().database.sqlite;
    const agentId = await c.agent();
    await c.request("PUT", `/api/v1/agents/${agentId}/config`, {
      config: { stopLoss: { enabled: false }, dca: { enabled: true, maxOrders: 3, priceDropTriggerPercentage: 10 } },
    });
    const key = (await createApiKey(ctx(), c.token, ["signals"])).key;
    const signal = async (body: Record<string, unknown>) => {
      const res = await ctx().request("POST", "/api/v1/trading-signals", {
        apiKey: key,
        body: { symbol: "X", signalType: "buy", signalStrength: 4, ...body },
      });
      expect(res.status).toBe(201);
      return (await json(res)).id as number;
    };
    // A position to average down into, opened while the gate is open.
    await signal({ tokenAddress: MINT });
    await c.settle();
    const buys = () => db().query("SELECT count(*) AS n FROM agent_transactions WHERE transaction_type = 'BUY'").get();
    expect(buys()).toEqual({ n: 1 });

    c.rpc.setSol(W2, 10);
    await c.watch({ signalStrength: 4 });
    await c.watch({ address: W2, label: "two", signalStrength: 4 });
    await c.request("POST", "/api/v1/wallet-watch-groups", { name: "pair", addresses: [W, W2], minWallets: 2 });
    // The gate closes: no trade fits under this exposure.
    expect((await c.request("PUT", "/api/v1/risk-limits", { simulation: { maxExposureSol: 0.000001 } })).status).toBe(
      200,
    );
    const swapsBefore = c.fake.requests.filter((r) => r.route.startsWith("jupiter.") && r.route !== "jupiter.price");

    const apiSignal = await signal({ tokenAddress: MINT2 });
    c.ctx.clock.advance(1_000);
    c.trade({ sol: 1, mint: MINT2 });
    landBuy(c.rpc, W2, MINT2, c.ctx.clock.now());
    c.ctx.clock.advance(1_000);
    await c.tick();
    await c.settle();
    c.fake.setToken(MINT, { priceUsd: "0.008" });
    await ctx().services.trading.monitor.tick();
    const direct = await ctx().services.trading.engine.openPosition({
      agent: { id: agentId, userId: c.userId, name: "copier", tradingMode: "simulation" },
      config: resolveStoredConfig(null),
      walletAddress: db()
        .query<{ a: string }, [string]>("SELECT wallet_address AS a FROM agent_wallets WHERE agent_id = ?")
        .get(agentId)!.a,
      signal: { id: apiSignal, tokenAddress: MINT2, symbol: "WIF" },
      sizeSol: new Big("0.1"),
    });

    // The operator's manual buy (issue 44 item 5) is one more path through openPosition: the gate's refusal.
    const manual = await c.request("POST", `/api/v1/agents/${agentId}/buy`, { tokenAddress: MINT2, amountSol: 0.1 });
    expect(manual.status).toBe(409);
    expect(await json(manual)).toMatchObject({ details: { rule: "risk_limit" } });

    const evaluations = db()
      .query<{ source: string | null; reason: string }, [string]>(
        `SELECT s.source AS source, e.reason AS reason FROM signal_evaluations e JOIN trading_signals s ON s.id = e.signal_id
         WHERE e.agent_id = ? AND s.token_address = '${MINT2}' ORDER BY s.id`,
      )
      .all(agentId);
    const kinds: Array<string | null> = evaluations.map((e) => e.source?.replace(/:.*/, ":") ?? null);
    expect(kinds).toEqual([null, "wallet:", "wallet:", "group:"]);
    for (const e of evaluations) expect(e.reason).toStartWith("risk_limit: maxExposureSol: ");
    const dca = ctx()
      .logs.map((l) => JSON.parse(l))
      .find((l) => l.msg === "DCA order skipped");
    expect(dca).toMatchObject({ agentId, rule: "risk_limit" });
    expect(direct).toMatchObject({ status: "skipped", rule: "risk_limit" });
    expect(buys()).toEqual({ n: 1 });
    const swapsAfter = c.fake.requests.filter((r) => r.route.startsWith("jupiter.") && r.route !== "jupiter.price");
    expect(swapsAfter.length).toBe(swapsBefore.length);
  });
});
