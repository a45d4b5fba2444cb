import { describe, expect, test } from "bun:test";
import {
  checkBeforeMarketData,
  checkMarketAndBalance,
  ELIGIBILITY_RULES,
  type EligibilityInput,
  type EligibilityRule,
  evaluateEligibility,
  evaluateEligibilityAsync,
  needsMarketData,
  type TokenMarketData,
} from "../../../src/trading/rules/index.ts";

const TOKEN = "TokenMint1111111111111111111111111111111111";
const NOW = Date.parse("2026-01-01T12:00:00.000Z");

/** An input every rule accepts; each case below changes it so exactly one rule fails. */
function base(): EligibilityInput {
  return {
    agent: { tradingMode: "simulation", automatedTradingSimulation: true, automatedTradingLive: false },
    config: {
      filters: {
        minMarketCap: 100_000,
        maxMarketCap: 10_000_000,
        minLiquidity: 50_000,
        maxPositionAgeDays: null,
        allowedTokens: [],
        blockedTokens: ["Blocked111"],
        minSignalStrength: 3,
        // Letter case is ignored: the signal's "BUY" matches.
        signalTypes: ["buy", "dip"],
        // The signal's key is listed by its name.
        sources: ["momentum-bot", `wallet:${TOKEN}`],
      },
      timing: { minTimeBetweenTradesSeconds: 60 },
      minimumAgentBalance: 0.5,
      risk: { maxOpenPositions: 3 },
    },
    signal: {
      tokenAddress: TOKEN,
      signalStrength: 3,
      signalType: "BUY",
      apiKeyId: "key-1",
      apiKeyName: "momentum-bot",
      source: "free text a bot wrote",
    },
    liveTradingEnabled: false,
    paused: false,
    hasWallet: true,
    hasOpenPositionOnToken: false,
    lastTradeAtMs: NOW - 60_000,
    nowMs: NOW,
    marketData: { marketCap: "1000000", liquidity: "60000" },
    solBalance: "1",
    tradeSizeSol: "0.05",
    risk: {
      limits: { maxOpenPositions: 10, maxExposureSol: "2", dailyLossLimitSol: "1" },
      tripped: null,
      openPositions: 9,
      agentOpenPositions: 2,
      exposureSol: "1.95",
      dailyLossSol: "1",
    },
  };
}

type Tweak = (i: EligibilityInput) => void;
const failing: [EligibilityRule, string, Tweak][] = [
  [
    "automation",
    "Automated trading is disabled for simulation mode",
    (i) => (i.agent.automatedTradingSimulation = false),
  ],
  [
    "automation",
    "Automated trading is disabled for live mode",
    (i) => {
      i.agent.tradingMode = "live";
      i.liveTradingEnabled = true;
    },
  ],
  [
    "live_trading",
    "Live trading is disabled on this service (LIVE_TRADING_ENABLED is false)",
    (i) => {
      i.agent.tradingMode = "live";
      i.agent.automatedTradingLive = true;
    },
  ],
  ["paused", "Trading is paused for simulation mode; POST /api/v1/trading/resume resumes it", (i) => (i.paused = true)],
  ["wallet", "Agent has no simulation wallet", (i) => (i.hasWallet = false)],
  [
    "source",
    `Signal source API key "other-bot" is not in filters.sources (momentum-bot, wallet:${TOKEN})`,
    (i) => (i.signal.apiKeyName = "other-bot"),
  ],
  [
    "source",
    `Signal source a deleted API key is not in filters.sources (momentum-bot, wallet:${TOKEN})`,
    (i) => (i.signal.apiKeyName = null),
  ],
  [
    // A key named like a built-in source is still a key: "wallet:" entries match only copied signals.
    "source",
    `Signal source API key "wallet:${TOKEN}" is not in filters.sources (momentum-bot, wallet:${TOKEN})`,
    (i) => (i.signal.apiKeyName = `wallet:${TOKEN}`),
  ],
  [
    "source",
    `Signal source wallet:Other111 is not in filters.sources (momentum-bot, wallet:${TOKEN})`,
    (i) => {
      i.signal.apiKeyId = null;
      i.signal.apiKeyName = null;
      i.signal.source = "wallet:Other111";
    },
  ],
  ["signal_strength", "Signal strength 2 is below the minimum 3", (i) => (i.signal.signalStrength = 2)],
  ["signal_type", 'Signal type "hold" is not in signalTypes', (i) => (i.signal.signalType = "hold")],
  ["signal_type", 'Signal type "buy " is not in signalTypes', (i) => (i.signal.signalType = "buy ")],
  [
    "signal_type",
    'Signal type "hold" is not an entry type (buy, long, entry); list it in filters.signalTypes to buy on it',
    (i) => {
      i.config.filters.signalTypes = [];
      i.signal.signalType = "hold";
    },
  ],
  ["allowed_tokens", `Token ${TOKEN} is not in allowedTokens`, (i) => (i.config.filters.allowedTokens = ["Other111"])],
  [
    "allowed_tokens",
    `Token ${TOKEN} is not in allowedTokens`,
    (i) => (i.config.filters.allowedTokens = [TOKEN.toLowerCase()]),
  ],
  ["blocked_tokens", `Token ${TOKEN} is in blockedTokens`, (i) => (i.config.filters.blockedTokens = [TOKEN])],
  ["open_position", `Agent already holds an open position on token ${TOKEN}`, (i) => (i.hasOpenPositionOnToken = true)],
  [
    "trade_interval",
    "Only 59.999s since the last trade; minTimeBetweenTradesSeconds is 60",
    (i) => (i.lastTradeAtMs = NOW - 59_999),
  ],
  ["market_data", `Market data unavailable for token ${TOKEN}; market filters are set`, (i) => (i.marketData = null)],
  [
    "market_data",
    `Market cap unavailable for token ${TOKEN}; a market cap filter is set`,
    (i) => (i.marketData = { marketCap: null, liquidity: "60000" }),
  ],
  [
    "market_data",
    `Liquidity unavailable for token ${TOKEN}; minLiquidity is set`,
    (i) => (i.marketData = { marketCap: "1000000", liquidity: null }),
  ],
  [
    "min_market_cap",
    "Market cap 99999.99 is below minMarketCap 100000",
    (i) => (i.marketData = { marketCap: "99999.99", liquidity: "60000" }),
  ],
  [
    "max_market_cap",
    "Market cap 10000000.01 is above maxMarketCap 10000000",
    (i) => (i.marketData = { marketCap: "10000000.01", liquidity: "60000" }),
  ],
  [
    "min_liquidity",
    "Liquidity 49999 is below minLiquidity 50000",
    (i) => (i.marketData = { marketCap: "1000000", liquidity: 49999 }),
  ],
  [
    "minimum_balance",
    "SOL balance 0.499999999 is below minimumAgentBalance 0.5",
    (i) => (i.solBalance = "0.499999999"),
  ],
  [
    "trade_size",
    "SOL balance 0.6 is below the trade size 0.600000001",
    (i) => {
      i.solBalance = "0.6";
      i.tradeSizeSol = "0.600000001";
    },
  ],
  ["trade_size", "Trade size 0 SOL is not positive", (i) => (i.tradeSizeSol = "0")],
  [
    "risk_limit",
    "dailyLossLimitSol: the daily loss breaker tripped at 2026-01-01T11:00:00.000Z (loss 1.5 SOL over the limit 1 SOL); POST /api/v1/trading/resume resumes",
    (i) => (i.risk.tripped = { reason: "loss 1.5 SOL over the limit 1 SOL", at: "2026-01-01T11:00:00.000Z" }),
  ],
  [
    "risk_limit",
    "dailyLossLimitSol: the loss of the last 24 h, 1.000000001 SOL, is over the limit of 1 SOL",
    (i) => (i.risk.dailyLossSol = "1.000000001"),
  ],
  [
    "risk_limit",
    "risk.maxOpenPositions: the agent holds 3 open positions; its limit is 3",
    (i) => (i.risk.agentOpenPositions = 3),
  ],
  ["risk_limit", "maxOpenPositions: 10 positions are open; the limit is 10", (i) => (i.risk.openPositions = 10)],
  [
    "risk_limit",
    "maxExposureSol: 1.95 SOL open plus this trade's 0.050000001 SOL is over the limit of 2 SOL",
    (i) => (i.tradeSizeSol = "0.050000001"),
  ],
];

describe("evaluateEligibility", () => {
  test("the base input is eligible", () => {
    expect(evaluateEligibility(base())).toEqual({ eligible: true });
  });

  test.each(failing)("fails only %s: %s", (rule, reason, tweak) => {
    const input = base();
    tweak(input);
    expect(evaluateEligibility(input)).toEqual({ eligible: false, rule, reason });
  });

  const passing: [string, Tweak][] = [
    [
      "live agent with live automation and live trading enabled",
      (i) => {
        i.agent = { tradingMode: "live", automatedTradingSimulation: false, automatedTradingLive: true };
        i.liveTradingEnabled = true;
      },
    ],
    ["simulation agent ignores LIVE_TRADING_ENABLED and the live flag", (i) => (i.liveTradingEnabled = false)],
    ["strength exactly at the minimum", (i) => (i.signal.signalStrength = 3)],
    ["token in a non-empty allowedTokens", (i) => (i.config.filters.allowedTokens = ["Other111", TOKEN])],
    ["interval exactly elapsed", (i) => (i.lastTradeAtMs = NOW - 60_000)],
    ["never traded", (i) => (i.lastTradeAtMs = null)],
    [
      "no interval configured",
      (i) => {
        i.config.timing.minTimeBetweenTradesSeconds = 0;
        i.lastTradeAtMs = NOW;
      },
    ],
    ["market cap exactly at minMarketCap", (i) => (i.marketData = { marketCap: 100_000, liquidity: 60_000 })],
    ["market cap exactly at maxMarketCap", (i) => (i.marketData = { marketCap: "10000000", liquidity: 60_000 })],
    ["liquidity exactly at minLiquidity", (i) => (i.marketData = { marketCap: "1000000", liquidity: "50000" })],
    [
      "no market filter and no market data",
      (i) => {
        i.config.filters.minMarketCap = null;
        i.config.filters.maxMarketCap = null;
        i.config.filters.minLiquidity = null;
        i.marketData = null;
      },
    ],
    [
      "only minLiquidity set: a missing market cap does not matter",
      (i) => {
        i.config.filters.minMarketCap = null;
        i.config.filters.maxMarketCap = null;
        i.marketData = { marketCap: null, liquidity: "50000" };
      },
    ],
    [
      "balance exactly at minimumAgentBalance",
      (i) => {
        i.solBalance = "0.5";
        i.tradeSizeSol = "0.025";
      },
    ],
    [
      "exposure exactly at maxExposureSol, 9 of 10 open, daily loss exactly the limit",
      (i) => (i.risk.openPositions = 9),
    ],
    [
      "every limit off",
      (i) => {
        i.config.risk.maxOpenPositions = null;
        i.risk = {
          limits: { maxOpenPositions: null, maxExposureSol: null, dailyLossLimitSol: null },
          tripped: null,
          openPositions: 1000,
          agentOpenPositions: 1000,
          exposureSol: "1000000",
          dailyLossSol: "1000000",
        };
      },
    ],
    ["a gain of the day", (i) => (i.risk.dailyLossSol = "-5")],
    [
      "balance exactly the trade size",
      (i) => {
        i.solBalance = "0.75";
        i.tradeSizeSol = "0.75";
        i.risk.exposureSol = "0";
      },
    ],
  ];
  test.each(passing)("eligible: %s", (_name, tweak) => {
    const input = base();
    tweak(input);
    expect(evaluateEligibility(input)).toEqual({ eligible: true });
  });

  // Every pair of failing rules reports the one that comes first in ELIGIBILITY_RULES.
  const pairs: [EligibilityRule, EligibilityRule][] = [];
  const distinct = failing.filter(([rule], idx) => failing.findIndex(([r]) => r === rule) === idx);
  for (const [a, , ta] of distinct) {
    for (const [b, , tb] of distinct) {
      if (ELIGIBILITY_RULES.indexOf(a) >= ELIGIBILITY_RULES.indexOf(b)) continue;
      // Tweaks that touch the same fields do not compose (e.g. two market-data cases): keep the
      // pairs whose tweaks commute, i.e. touch independent fields.
      const ab = base();
      ta(ab);
      tb(ab);
      const ba = base();
      tb(ba);
      ta(ba);
      if (JSON.stringify(ab) !== JSON.stringify(ba)) continue;
      // The live_trading case switches the agent to live mode, which makes the simulation flag
      // of the automation case irrelevant: that pair has its own test below.
      if (a === "automation" && b === "live_trading") continue;
      pairs.push([a, b]);
    }
  }
  test("a live agent with live automation off and live trading disabled reports automation", () => {
    const input = base();
    input.agent = { tradingMode: "live", automatedTradingSimulation: true, automatedTradingLive: false };
    input.liveTradingEnabled = false;
    expect(evaluateEligibility(input)).toEqual({
      eligible: false,
      rule: "automation",
      reason: "Automated trading is disabled for live mode",
    });
  });
  test("there are many rule pairs to check", () => {
    expect(pairs.length).toBeGreaterThan(60);
  });
  test.each(pairs)("failing %s and %s reports the first", (a, b) => {
    const tweakA = distinct.find(([r]) => r === a)![2];
    const tweakB = distinct.find(([r]) => r === b)![2];
    const input = base();
    tweakB(input);
    tweakA(input);
    expect(evaluateEligibility(input)).toMatchObject({ eligible: false, rule: a });
  });
});

// Issue 34 item 3: with no list, only buy, long and entry (any case) open positions; a list overrides.
describe("default entry types", () => {
  const cases: [readonly string[], string, boolean][] = [
    [[], "buy", true],
    [[], "BUY", true],
    [[], "Long", true],
    [[], "entry", true],
    [[], "ENTRY", true],
    [[], "hold", false],
    [[], "buyy", false],
    [[], " buy", false],
    [[], "short", false],
    [[], "", false],
    [["hold"], "hold", true],
    [["hold"], "buy", false],
    [["HOLD", "dip"], "Dip", true],
  ];
  test.each(cases)("signalTypes %p, type %p: eligible %p", (signalTypes, signalType, eligible) => {
    const input = base();
    input.config.filters.signalTypes = signalTypes;
    input.signal.signalType = signalType;
    expect(evaluateEligibility(input).eligible).toBe(eligible);
  });
});

describe("split and lazy forms", () => {
  test("checkBeforeMarketData stops before market data", () => {
    const input = base();
    input.marketData = null; // would fail market_data, but that is the second half
    expect(checkBeforeMarketData(input)).toEqual({ eligible: true });
  });

  test("checkMarketAndBalance alone", () => {
    const i = base();
    expect(
      checkMarketAndBalance({
        config: i.config,
        tokenAddress: TOKEN,
        marketData: { marketCap: 1, liquidity: 60_000 },
        solBalance: "1",
        tradeSizeSol: "0.1",
        risk: i.risk,
      }),
    ).toEqual({ eligible: false, rule: "min_market_cap", reason: "Market cap 1 is below minMarketCap 100000" });
  });

  test.each([
    [{ minMarketCap: null, maxMarketCap: null, minLiquidity: null }, false],
    [{ minMarketCap: 0, maxMarketCap: null, minLiquidity: null }, true],
    [{ minMarketCap: null, maxMarketCap: 5, minLiquidity: null }, true],
    [{ minMarketCap: null, maxMarketCap: null, minLiquidity: 1 }, true],
  ])("needsMarketData(%o) = %p", (filters, expected) => {
    expect(needsMarketData(filters)).toBe(expected);
  });

  test("the loader is not called when a cheap rule fails", async () => {
    let calls = 0;
    const input = base();
    input.hasWallet = false;
    const result = await evaluateEligibilityAsync(input, () => {
      calls++;
      return { marketCap: 1, liquidity: 1 };
    });
    expect(result).toEqual({ eligible: false, rule: "wallet", reason: "Agent has no simulation wallet" });
    expect(calls).toBe(0);
  });

  test("the loader is not called when no market filter is set", async () => {
    let calls = 0;
    const input = base();
    input.config.filters.minMarketCap = null;
    input.config.filters.maxMarketCap = null;
    input.config.filters.minLiquidity = null;
    const result = await evaluateEligibilityAsync(input, () => {
      calls++;
      return null;
    });
    expect(result).toEqual({ eligible: true });
    expect(calls).toBe(0);
  });

  test.each<[string, () => Promise<TokenMarketData | null> | TokenMarketData | null, unknown]>([
    ["async data inside the filters", async () => ({ marketCap: "1000000", liquidity: "60000" }), { eligible: true }],
    [
      "null",
      () => null,
      {
        eligible: false,
        rule: "market_data",
        reason: `Market data unavailable for token ${TOKEN}; market filters are set`,
      },
    ],
    [
      "a throwing loader",
      async () => {
        throw new Error("marketData timed out");
      },
      {
        eligible: false,
        rule: "market_data",
        reason: `Market data unavailable for token ${TOKEN}; market filters are set (marketData timed out)`,
      },
    ],
    [
      "data below minLiquidity",
      () => ({ marketCap: "1000000", liquidity: "1" }),
      { eligible: false, rule: "min_liquidity", reason: "Liquidity 1 is below minLiquidity 50000" },
    ],
  ])("lazy loader returning %s", async (_name, loader, expected) => {
    let calls = 0;
    const result = await evaluateEligibilityAsync(base(), () => {
      calls++;
      return loader();
    });
    expect(result).toEqual(expected as never);
    expect(calls).toBe(1);
  });

  test("a failing balance after a passing market check still reports the balance", async () => {
    const input = base();
    input.solBalance = "0.1";
    expect(await evaluateEligibilityAsync(input, () => input.marketData)).toEqual({
      eligible: false,
      rule: "minimum_balance",
      reason: "SOL balance 0.1 is below minimumAgentBalance 0.5",
    });
  });
});
