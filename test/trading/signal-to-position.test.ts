import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Big, SOL_MINT } from "../../src/money.ts";
import { json } from "../helpers/context.ts";
import { MINT, MINT2, startTrading, type TradingContext } from "../helpers/trading.ts";

let t: TradingContext;
const buyQuotes = () => t.fake.requestsTo("jupiter.build").filter((r) => r.query.get("inputMint") === SOL_MINT);
beforeEach(async () => {
  t = await startTrading();
});
afterEach(() => t.close());

describe("signal → position", () => {
  test("an eligible agent buys 5% of its SOL at the aggregator's quote; every record is consistent", async () => {
    const agent = await t.createAgent();
    const signal = await t.postSignal();
    await t.settle();

    // 5% of 10 SOL = 0.5 SOL swapped; fees 0.000005 + 0.0001, and the new token account's rent
    // 0.00203928 beside them: 9.5 − 0.000105 − 0.00203928.
    expect(t.solBalance(agent.id)).toBe("9.49785572");
    // 0.5 SOL × $100 / $0.01 = 5000 tokens.
    expect(t.tokenBalance(agent.id)).toBe("5000");

    const [pos, ...rest] = await t.positions(agent.id);
    expect(rest.length).toBe(0);
    expect(pos).toMatchObject({
      agentId: agent.id,
      walletAddress: agent.walletAddress,
      tokenAddress: MINT,
      tokenSymbol: "BONK",
      purchase: { priceNative: 0.0001, priceUsd: 0.01, amount: 5000 },
      current: { priceNative: 0.0001, priceUsd: 0.01, valueNative: 0.5, valueUsd: 50 },
      stopLoss: { percentage: 25, peakPrice: 0.0001 },
      takeProfit: {
        remainingAmount: 5000,
        levelsHit: 0,
        realizedProfitSol: 0,
        moonBagActivated: false,
        moonBagAmount: null,
      },
    });
    // P/L at the entry price is minus the fees (the rent is the BUY's rentDepositSol, not a cost).
    expect(pos.profitLoss.native).toBeCloseTo(-0.000105, 9);
    expect(pos.profitLoss.priceChangePercent).toBe(0);

    const txs = await json(
      await t.ctx.request("GET", `/api/v1/agent-transactions?agentId=${agent.id}`, { token: t.token }),
    );
    expect(txs.length).toBe(1);
    expect(txs[0]).toMatchObject({
      transactionType: "BUY",
      signalId: signal.id,
      inputMint: "So11111111111111111111111111111111111111112",
      inputAmount: "0.5",
      outputMint: MINT,
      outputAmount: "5000",
      fees: "0.000105",
      rentDepositSol: "0.00203928",
      rentRefundSol: "0",
      routes: ["Raydium"],
      slippage: "300",
      priceImpact: "0",
      isDca: false,
      isTakeProfit: false,
    });
    expect(pos.purchase.transaction.id).toBe(txs[0].id);
    expect(t.count("trade_idempotency", "agent_id = ? AND signal_id = ? AND action = 'BUY'", agent.id, signal.id)).toBe(
      1,
    );
    expect(t.count("balance_snapshots", "agent_id = ? AND reason = 'trade'", agent.id)).toBe(1);
    const status = t.ctx.database.sqlite
      .query<{ s: string }, [number]>("SELECT processing_status AS s FROM trading_signals WHERE id = ?")
      .get(signal.id)!.s;
    expect(status).toBe("processed");
  });

  test("signals never cross users: another user's agents do not act", async () => {
    const other = await (await import("../helpers/context.ts")).createUser(t.ctx);
    const theirs = await t.createAgent({ token: other.token });
    const mine = await t.createAgent();
    await t.postSignal();
    await t.settle();
    expect(t.count("positions", "agent_id = ?", theirs.id)).toBe(0);
    expect(t.count("positions", "agent_id = ?", mine.id)).toBe(1);
  });

  test("a signal without a symbol: the position takes the symbol market data gives, not the mint's letters", async () => {
    const agent = await t.createAgent();
    await t.postSignal({ symbol: undefined });
    await t.settle();
    const [pos] = await t.positions(agent.id);
    expect(pos.tokenSymbol).toBe("BONK");
    const [swap] = await json(
      await t.ctx.request("GET", `/api/v1/agent-transactions?agentId=${agent.id}`, { token: t.token }),
    );
    expect(swap.outputSymbol).toBe("BONK");
  });

  test("one position per token: a second signal on the same token buys nothing more", async () => {
    const agent = await t.createAgent();
    await t.postSignal();
    await t.settle();
    const s2 = await t.postSignal({ signalStrength: 5 });
    await t.settle();
    expect(t.count("positions", "agent_id = ?", agent.id)).toBe(1);
    const ev = t.ctx.database.sqlite
      .query<{ reason: string }, [number, string]>(
        "SELECT reason FROM signal_evaluations WHERE signal_id = ? AND agent_id = ?",
      )
      .get(s2.id, agent.id);
    expect(ev?.reason).toStartWith("open_position");
    // Another token is fine.
    await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
    await t.settle();
    expect(t.count("positions", "agent_id = ?", agent.id)).toBe(2);
  });

  test("a failed trade leaves everything unchanged and is logged", async () => {
    const agent = await t.createAgent();
    t.fake.inject(
      "jupiter.build",
      { status: 500, body: { error: "boom" } },
      { status: 500, body: { error: "boom" } },
      { status: 500, body: { error: "boom" } },
    );
    const signal = await t.postSignal();
    await t.settle();
    expect(t.solBalance(agent.id)).toBe("10");
    expect(t.tokenBalance(agent.id)).toBe("0");
    expect(t.count("positions")).toBe(0);
    expect(t.count("agent_transactions")).toBe(0);
    expect(t.count("trade_idempotency")).toBe(0);
    const line = t.ctx.logs.map((l) => JSON.parse(l)).find((l) => l.msg === "trade failed");
    expect(line).toMatchObject({ agentId: agent.id, signalId: signal.id, tokenAddress: MINT, side: "buy" });
    expect(line.reason).toContain("swapAggregator");
    const ev = t.ctx.database.sqlite
      .query<{ outcome: string; reason: string }, [number, string]>(
        "SELECT outcome, reason FROM signal_evaluations WHERE signal_id = ? AND agent_id = ?",
      )
      .get(signal.id, agent.id);
    expect(ev).toEqual({ outcome: "failed", reason: line.reason });
    // The next signal trades normally.
    await t.postSignal({ signalStrength: 5 });
    await t.settle();
    expect(t.count("positions")).toBe(1);
  });

  test("a quote whose price impact exceeds slippage.maxBps is refused; within it, it fills", async () => {
    const strict = await t.createAgent({ config: { slippage: { defaultBps: 50, maxBps: 100 } } });
    const loose = await t.createAgent({ config: { slippage: { defaultBps: 50, maxBps: 1000 } } });
    t.fake.quote.priceImpactPct = "0.05"; // 500 bps
    await t.postSignal();
    await t.settle();
    expect(t.count("positions", "agent_id = ?", strict.id)).toBe(0);
    expect(t.count("positions", "agent_id = ?", loose.id)).toBe(1);
    const failed = t.ctx.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === "trade failed");
    expect(failed.length).toBe(1);
    expect(failed[0]).toMatchObject({
      agentId: strict.id,
      reason: "Slippage exceeds maximum allowed",
      details: { requested: 500, maximum: 100 },
    });
    expect(t.solBalance(strict.id)).toBe("10");
  });

  test("one quote per signal, at the largest size; smaller fills at its average price, impact and route", async () => {
    const same1 = await t.createAgent({ name: "same-1" });
    const same2 = await t.createAgent({ name: "same-2" });
    const other = await t.createAgent({ name: "other", config: { positionSizing: { percentage: 10 } } });
    t.fake.quote.priceImpactPct = "0.01";
    t.fake.quote.routeLabels = ["Orca", "Raydium"];
    await t.postSignal();
    await t.settle();
    const amounts = buyQuotes().map((r) => r.query.get("amount"));
    expect(amounts).toEqual(["1000000000"]);
    // 1 SOL quoted: 10,000 tokens less 1 % impact; half the size gets half of that, at the same
    // average price (never the better price a smaller real quote would give).
    expect(t.tokenBalance(other.id)).toBe("9900");
    expect(t.tokenBalance(same1.id)).toBe("4950");
    expect(t.tokenBalance(same2.id)).toBe("4950");
    const recorded = t.ctx.database.sqlite
      .query<{ price_impact: string; routes: string }, [string]>(
        "SELECT price_impact, routes FROM agent_transactions WHERE agent_id = ?",
      )
      .get(same1.id)!;
    expect(Number(recorded.price_impact)).toBeCloseTo(1, 6);
    expect(JSON.parse(recorded.routes)).toEqual(["Orca", "Raydium"]);
    // The next signal asks again: quotes are shared within one signal only.
    await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
    await t.settle();
    expect(buyQuotes().length).toBe(2);
  });

  test("a failed shared quote fails the agents that waited for it, and is not reused", async () => {
    const a = await t.createAgent({ name: "a" });
    const b = await t.createAgent({ name: "b" });
    // Three 500s exhaust the first request's retries; the second agent's quote succeeds.
    t.fake.inject(
      "jupiter.build",
      { status: 500, body: { error: "x" } },
      { status: 500, body: { error: "x" } },
      { status: 500, body: { error: "x" } },
    );
    await t.postSignal();
    await t.settle();
    // Both waited for the one quote of the signal (its three attempts failed): both failed.
    expect(t.count("positions", "agent_id = ?", a.id) + t.count("positions", "agent_id = ?", b.id)).toBe(0);
    expect(buyQuotes().length).toBe(3);
    expect(t.ctx.logs.filter((l) => JSON.parse(l).msg === "trade failed").length).toBe(2);
    // The next signal asks again and trades.
    await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
    await t.settle();
    expect(t.count("positions", "agent_id = ?", a.id) + t.count("positions", "agent_id = ?", b.id)).toBe(2);
  });

  test("fixed sizing buys fixedAmountSol", async () => {
    const agent = await t.createAgent({ config: { positionSizing: { type: "fixed", fixedAmountSol: 1.25 } } });
    await t.postSignal();
    await t.settle();
    expect(new Big(t.solBalance(agent.id)).toFixed()).toBe("8.74785572"); // fees and rent as above
  });
});
