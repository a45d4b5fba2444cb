import { afterEach, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import bs58 from "bs58";
import { LiveWalletRegistry } from "../../src/wallets/live-wallet-registry.ts";
import { MINT, MINT2, startTrading, type TradingContext } from "../helpers/trading.ts";

// Eligibility end to end (PRODUCT.md §4, issue 5 acceptance): ONE signal, many agents of the
// signal's owner, each failing exactly one rule, and a control agent that trades. Only the control
// trades; every refusal is recorded in signal_evaluations ("rule: text", outcome skipped) and
// logged as "agent not eligible for signal" naming the rule.

let t: TradingContext;
afterEach(() => t.close());

const evaluation = (signalId: number, agentId: string) =>
  t.ctx.database.sqlite
    .query<{ eligible: number; reason: string | null; outcome: string }, [number, string]>(
      "SELECT eligible, reason, outcome FROM signal_evaluations WHERE signal_id = ? AND agent_id = ?",
    )
    .get(signalId, agentId);

const refusals = (signalId: number) =>
  t.ctx.logs
    .map((l) => JSON.parse(l))
    .filter((l) => l.msg === "agent not eligible for signal" && l.signalId === signalId) as Array<{
    agentId: string;
    rule: string;
    reason: string;
    level: string;
    tokenAddress: string;
  }>;

/** Asserts the agent was refused by exactly `rule`: evaluation row, log line, nothing traded for this signal. */
function expectRefused(signalId: number, agentId: string, rule: string) {
  const ev = evaluation(signalId, agentId);
  expect(ev, `${rule}: evaluation row`).not.toBeNull();
  expect(ev!.eligible, rule).toBe(0);
  expect(ev!.outcome, rule).toBe("skipped");
  expect(ev!.reason, rule).toStartWith(`${rule}: `);
  const lines = refusals(signalId).filter((l) => l.agentId === agentId);
  expect(lines.length, `${rule}: one log line`).toBe(1);
  expect(lines[0]!.rule).toBe(rule);
  expect(lines[0]!.tokenAddress).toBe(MINT);
  expect(ev!.reason).toBe(`${rule}: ${lines[0]!.reason}`);
  expect(t.count("agent_transactions", "agent_id = ? AND signal_id = ?", agentId, signalId), rule).toBe(0);
  expect(t.count("trade_idempotency", "agent_id = ? AND signal_id = ?", agentId, signalId), rule).toBe(0);
}

function expectTraded(signalId: number, agentId: string) {
  expect(evaluation(signalId, agentId)).toEqual({ eligible: 1, reason: null, outcome: "traded" });
  expect(t.count("positions", "agent_id = ? AND signal_id = ? AND status = 'open'", agentId, signalId)).toBe(1);
  expect(
    t.count("agent_transactions", "agent_id = ? AND signal_id = ? AND transaction_type = 'BUY'", agentId, signalId),
  ).toBe(1);
}

describe("eligibility end to end: one signal, one failing rule per agent", () => {
  test("only the control agent trades; every other agent is refused by its one rule", async () => {
    const liveKey = Keypair.generate();
    t = await startTrading({
      services: { liveWallets: LiveWalletRegistry.fromEnv({ WALLET_1: bs58.encode(liveKey.secretKey) }) },
    });

    // Agents that need history first: an open position on MINT, and a trade 60 s ago (on MINT2).
    const openPosition = await t.createAgent({ name: "open-position" });
    const first = await t.postSignal();
    await t.settle();
    expectTraded(first.id, openPosition.id);
    const tradeInterval = await t.createAgent({
      name: "trade-interval",
      config: { timing: { minTimeBetweenTradesSeconds: 3600 } },
    });
    await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
    await t.settle();
    expect(t.count("positions", "agent_id = ? AND token_address = ?", tradeInterval.id, MINT2)).toBe(1);
    t.ctx.clock.advance(60_000);

    // A live agent WITH a live wallet: it fails only the LIVE_TRADING_ENABLED rule.
    const liveAgent = await t.createAgent({ name: "live", tradingMode: "live" });
    const assigned = await t.ctx.request("POST", "/api/v1/wallets/assign", {
      token: t.token,
      body: { agentId: liveAgent.id, walletAddress: liveKey.publicKey.toBase58(), walletType: "live" },
    });
    expect(assigned.status).toBe(201);

    const agents: Record<string, { id: string }> = {
      automation: await t.createAgent({ name: "automation-off", automated: false }),
      live_trading: liveAgent,
      signal_strength: await t.createAgent({ name: "strength", config: { filters: { minSignalStrength: 5 } } }),
      signal_type: await t.createAgent({ name: "types", config: { filters: { signalTypes: ["hold", "dip"] } } }),
      allowed_tokens: await t.createAgent({ name: "allowed", config: { filters: { allowedTokens: [MINT2] } } }),
      blocked_tokens: await t.createAgent({ name: "blocked", config: { filters: { blockedTokens: [MINT2, MINT] } } }),
      open_position: openPosition,
      trade_interval: tradeInterval,
      // The fake lists MINT at a 3,000,000 USD market cap and 250,000 USD liquidity.
      min_market_cap: await t.createAgent({ name: "min-cap", config: { filters: { minMarketCap: 3_000_001 } } }),
      max_market_cap: await t.createAgent({ name: "max-cap", config: { filters: { maxMarketCap: 2_999_999 } } }),
      min_liquidity: await t.createAgent({ name: "min-liq", config: { filters: { minLiquidity: 250_001 } } }),
      minimum_balance: await t.createAgent({ name: "min-balance", config: { minimumAgentBalance: 10.000001 } }),
      trade_size: await t.createAgent({
        name: "trade-size",
        config: { positionSizing: { type: "fixed", fixedAmountSol: 10.000001 } },
      }),
    };
    // The control passes every filter, bounds inclusive: cap exactly 3,000,000, liquidity exactly
    // 250,000, balance exactly the minimum of 10, strength exactly 4, MINT allowed.
    const control = await t.createAgent({
      name: "control",
      config: {
        filters: {
          minSignalStrength: 4,
          signalTypes: ["dip", "Buy"],
          allowedTokens: [MINT],
          blockedTokens: [MINT2],
          minMarketCap: 3_000_000,
          maxMarketCap: 3_000_000,
          minLiquidity: 250_000,
        },
        minimumAgentBalance: 10,
        timing: { minTimeBetweenTradesSeconds: 3600 },
      },
    });

    const signal = await t.postSignal({ signalStrength: 4 });
    await t.settle();

    for (const [rule, agent] of Object.entries(agents)) expectRefused(signal.id, agent.id, rule);
    expectTraded(signal.id, control.id);
    expect(t.count("positions", "signal_id = ?", signal.id)).toBe(1);
    expect(t.count("agent_transactions", "signal_id = ?", signal.id)).toBe(1);
    expect(refusals(signal.id).length).toBe(Object.keys(agents).length);
    // 5 % of 10 SOL swapped, plus 0.000005 + 0.0001 fees and 0.00203928 of token account rent;
    // 0.5 SOL × $100 / $0.01 = 5000 tokens.
    expect(t.solBalance(control.id)).toBe("9.49785572");
    expect(t.tokenBalance(control.id)).toBe("5000");
    // Refused agents' balances are untouched.
    for (const rule of ["automation", "signal_strength", "min_market_cap", "minimum_balance", "trade_size"]) {
      expect(t.solBalance(agents[rule]!.id), rule).toBe("10");
    }

    // The reasons name the numbers involved.
    const reason = (rule: string) => evaluation(signal.id, agents[rule]!.id)!.reason;
    expect(reason("automation")).toBe("automation: Automated trading is disabled for simulation mode");
    expect(reason("signal_strength")).toBe("signal_strength: Signal strength 4 is below the minimum 5");
    expect(reason("signal_type")).toBe('signal_type: Signal type "buy" is not in signalTypes');
    expect(reason("allowed_tokens")).toBe(`allowed_tokens: Token ${MINT} is not in allowedTokens`);
    expect(reason("blocked_tokens")).toBe(`blocked_tokens: Token ${MINT} is in blockedTokens`);
    expect(reason("trade_interval")).toBe(
      "trade_interval: Only 60s since the last trade; minTimeBetweenTradesSeconds is 3600",
    );
    expect(reason("min_market_cap")).toBe("min_market_cap: Market cap 3000000 is below minMarketCap 3000001");
    expect(reason("max_market_cap")).toBe("max_market_cap: Market cap 3000000 is above maxMarketCap 2999999");
    expect(reason("min_liquidity")).toBe("min_liquidity: Liquidity 250000 is below minLiquidity 250001");
    expect(reason("minimum_balance")).toBe("minimum_balance: SOL balance 10 is below minimumAgentBalance 10.000001");
    expect(reason("trade_size")).toBe("trade_size: SOL balance 10 is below the trade size 10.000001");

    // Market data was fetched once for the whole signal, not once per agent.
    expect(t.fake.requestsTo("dexscreener.tokens").length).toBe(1);
  });

  test("a live agent without a live wallet is refused by the wallet rule when live trading is enabled", async () => {
    t = await startTrading({ env: { LIVE_TRADING_ENABLED: "true" } });
    const liveNoWallet = await t.createAgent({ name: "live-no-wallet", tradingMode: "live" });
    const control = await t.createAgent({ name: "control" });
    const signal = await t.postSignal();
    await t.settle();
    expectRefused(signal.id, liveNoWallet.id, "wallet");
    expect(evaluation(signal.id, liveNoWallet.id)!.reason).toBe("wallet: Agent has no live wallet");
    expectTraded(signal.id, control.id);
  });

  test("with LIVE_TRADING_ENABLED=false the same live agent is refused by live_trading, not wallet", async () => {
    t = await startTrading();
    const live = await t.createAgent({ name: "live", tradingMode: "live" });
    const signal = await t.postSignal();
    await t.settle();
    expectRefused(signal.id, live.id, "live_trading");
    expect(evaluation(signal.id, live.id)!.reason).toBe(
      "live_trading: Live trading is disabled on this service (LIVE_TRADING_ENABLED is false)",
    );
  });

  test("the automation flag is the one of the agent's CURRENT mode", async () => {
    t = await startTrading();
    const agent = await t.createAgent({ automated: false });
    // Only the live flag on: a simulation agent is still refused.
    const up = await t.ctx.request("PUT", `/api/v1/agents/${agent.id}`, {
      token: t.token,
      body: { automatedTradingLive: true },
    });
    expect(up.status).toBe(200);
    const signal = await t.postSignal();
    await t.settle();
    expectRefused(signal.id, agent.id, "automation");
  });

  for (const variant of ["market data provider failing", "token not listed at the market data provider"] as const) {
    test(`a market filter set while market data cannot be had: ${variant}`, async () => {
      t = await startTrading();
      const capFilter = await t.createAgent({ name: "cap", config: { filters: { maxMarketCap: 1e12 } } });
      const liqFilter = await t.createAgent({ name: "liq", config: { filters: { minLiquidity: 0 } } });
      const noFilter = await t.createAgent({ name: "no-filter" });
      if (variant === "market data provider failing") {
        // The client tries three times (two retries) before giving up.
        t.fake.inject(
          "dexscreener.tokens",
          { status: 500, body: { error: "down" } },
          { status: 500, body: { error: "down" } },
          { status: 500, body: { error: "down" } },
        );
      } else {
        t.fake.setToken(MINT, { listed: false }); // Jupiter still prices and quotes it
      }
      const signal = await t.postSignal();
      await t.settle();
      expectRefused(signal.id, capFilter.id, "market_data");
      expectRefused(signal.id, liqFilter.id, "market_data");
      expect(evaluation(signal.id, capFilter.id)!.reason).toBe(
        `market_data: Market data unavailable for token ${MINT}; market filters are set`,
      );
      // Without a market filter, missing market data does not matter.
      expectTraded(signal.id, noFilter.id);
    });
  }

  test("a market cap filter while the provider reports no market cap is a market_data refusal", async () => {
    t = await startTrading();
    t.fake.setToken(MINT, { marketCapUsd: null });
    const capFilter = await t.createAgent({ name: "cap", config: { filters: { minMarketCap: 1 } } });
    const liqFilter = await t.createAgent({ name: "liq", config: { filters: { minLiquidity: 1 } } });
    const signal = await t.postSignal();
    await t.settle();
    expectRefused(signal.id, capFilter.id, "market_data");
    expect(evaluation(signal.id, capFilter.id)!.reason).toBe(
      `market_data: Market cap unavailable for token ${MINT}; a market cap filter is set`,
    );
    // Liquidity is known (250,000 ≥ 1): that agent trades.
    expectTraded(signal.id, liqFilter.id);
  });

  test("by default only buy, long and entry open positions; hold is stored and shown but opens nothing", async () => {
    t = await startTrading();
    const plain = await t.createAgent({ name: "default-types" });
    const hold = await t.postSignal({ signalType: "hold" });
    await t.settle();
    expectRefused(hold.id, plain.id, "signal_type");
    const shown = await t.ctx.request("GET", `/api/v1/trading-signals/${hold.id}`, { token: t.token });
    expect(shown.status).toBe(200);
    const body = (await shown.json()) as any;
    expect(body.signalType).toBe("hold");
    expect(body.processing.evaluations[0]).toMatchObject({
      outcome: "ineligible",
      rule: "signal_type",
      reason: 'Signal type "hold" is not an entry type (buy, long, entry); list it in filters.signalTypes to buy on it',
    });
    const long = await t.postSignal({ signalType: "Long" });
    await t.settle();
    expectTraded(long.id, plain.id);
  });
});
