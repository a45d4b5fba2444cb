import { describe, expect, test } from "bun:test";
import { recordBalanceSnapshot } from "../../src/ledgers/balance-snapshots.ts";
import { json } from "../helpers/context.ts";
import { contextPerFile, expectError } from "../helpers/file-context.ts";
import { createAgent, insertPosition, simulationWalletOf } from "./fixtures.ts";

// GET /agents/:id/positions (SPEC Position table, read from the positions table until the trading
// engine plugs in its market-priced source), /performance and /balance-history (PRODUCT.md §3).

const { ctx, token, other } = await contextPerFile();

const openFixture = (agentId: string, walletAddress: string) =>
  insertPosition(ctx, {
    agentId,
    walletAddress,
    tokenAddress: "MintPos",
    tokenSymbol: "POS",
    entryPriceSol: "0.001",
    entryPriceUsd: "0.15",
    purchaseAmount: "1000",
    costSol: "1",
    lastPriceSol: "0.0015",
    lastPriceUsd: "0.2",
    openedAt: "2026-01-01T00:00:00.000Z",
  });

describe("GET /agents/:id/positions", () => {
  test("[] for an agent without positions", async () => {
    const agent = await createAgent(ctx, token);
    const res = await ctx.request("GET", `/api/v1/agents/${agent.id}/positions`, { token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual([]);
  });

  test("open positions in the spec's shape; closed ones and other agents' excluded", async () => {
    const agent = await createAgent(ctx, token);
    const sim = simulationWalletOf(ctx, agent.id);
    await ctx.request("PUT", `/api/v1/agents/${agent.id}/config`, {
      token,
      body: { config: { stopLoss: { percentage: 10 } } },
    });
    const id = openFixture(agent.id, sim);
    insertPosition(ctx, { agentId: agent.id, walletAddress: sim, status: "closed" });
    const another = await createAgent(ctx, token);
    insertPosition(ctx, { agentId: another.id, walletAddress: simulationWalletOf(ctx, another.id) });
    const purchaseTx = ctx.database.sqlite
      .query<{ t: string }, [string]>("SELECT purchase_transaction_id AS t FROM positions WHERE id = ?")
      .get(id)!.t;

    const res = await ctx.request("GET", `/api/v1/agents/${agent.id}/positions`, { token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual([
      {
        id,
        agentId: agent.id,
        walletAddress: sim,
        tokenAddress: "MintPos",
        tokenSymbol: "POS",
        purchase: {
          priceNative: 0.001,
          priceUsd: 0.15,
          amount: 1000,
          transaction: { id: purchaseTx, hash: "sim-hash", time: "2026-01-01T00:00:00.000Z" },
        },
        current: { priceNative: 0.0015, priceUsd: 0.2, valueNative: 1.5, valueUsd: 200 },
        // One P/L (rules/pnl.ts positionPnl, issue 12): 0.5 SOL at the SOL/USD price implied by the
        // stored prices (0.2 / 0.0015 = 133.33…), as every position view shows it.
        profitLoss: { native: 0.5, usd: 66.6666666666666, percent: 50, priceChangePercent: 50 },
        stopLoss: { percentage: 10, peakPrice: 0.001 },
        takeProfit: {
          remainingAmount: 1000,
          levelsHit: 0,
          realizedProfitSol: 0,
          moonBagActivated: false,
          moonBagAmount: null,
        },
        // Stop 10 % below the peak (the entry); take-profit and DCA are off by default.
        levels: { stopLossPrice: 0.0009, takeProfit: [], dca: [], dcaOrdersFilled: 0 },
        // Inserted without exit rules of its own (as positions opened before they were kept): the agent's.
        exitConfig: {
          source: "agent",
          since: null,
          stopLoss: { enabled: true, percentage: 10 },
          takeProfit: { enabled: false, percentage: 50, sellPercentage: 50, maxLevels: 3 },
          dca: { enabled: false, maxOrders: 3, priceDropTriggerPercentage: 10, amountPercentage: 50 },
          maxPositionAgeDays: null,
        },
        createdAt: "2026-01-01T00:00:00.000Z",
        waitingReason: null,
        updatedAt: "2026-01-01T00:00:00.000Z",
      },
    ]);
  });

  test("404 for another user's agent, 400 for a malformed id", async () => {
    const theirs = await createAgent(ctx, other.token);
    await expectError(
      await ctx.request("GET", `/api/v1/agents/${theirs.id}/positions`, { token }),
      404,
      "Agent not found",
    );
    await expectError(
      await ctx.request("GET", "/api/v1/agents/x/positions", { token }),
      400,
      "Invalid agent ID format",
    );
  });
});

describe("GET /agents/:id/performance", () => {
  test("trade statistics from historical swaps, unrealized P/L from open positions", async () => {
    const agent = await createAgent(ctx, token);
    const sim = simulationWalletOf(ctx, agent.id);
    const swap = async (saleTime: string, profitLossSol: string, profitLossUsd: string, closeReason = "manual") =>
      json(
        await ctx.request("POST", "/api/v1/agent-historical-swaps", {
          token,
          body: {
            agentId: agent.id,
            walletAddress: sim,
            tokenAddress: "MintT",
            tokenSymbol: "T",
            amount: "10",
            purchasePrice: "1",
            salePrice: "1",
            changePercent: "0",
            profitLossSol,
            profitLossUsd,
            purchaseTime: "2026-01-01T00:00:00.000Z",
            saleTime,
            closeReason,
          },
        }),
      );
    const win = await swap("2026-01-02T00:00:00.000Z", "0.5", "75.1");
    const loss = await swap("2026-01-03T00:00:00.000Z", "-0.2", "-30.05", "stop_loss");
    await swap("2026-01-04T00:00:00.000Z", "0", "0");
    await swap("2026-02-01T00:00:00.000Z", "0.1", "15"); // outside the range below
    openFixture(agent.id, sim);

    const res = await ctx.request("GET", `/api/v1/agents/${agent.id}/performance`, { token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      agentId: agent.id,
      startDate: null,
      endDate: null,
      totalTrades: 4,
      wins: 2,
      losses: 1,
      winRate: 50,
      realizedProfitLossSol: "0.4",
      realizedProfitLossUsd: "60.05",
      bestTrade: {
        id: win.id,
        tokenAddress: "MintT",
        tokenSymbol: "T",
        profitLossSol: "0.5",
        profitLossUsd: "75.1",
        changePercent: "0",
        closeReason: "manual",
        saleTime: "2026-01-02T00:00:00.000Z",
      },
      worstTrade: {
        id: loss.id,
        tokenAddress: "MintT",
        tokenSymbol: "T",
        profitLossSol: "-0.2",
        profitLossUsd: "-30.05",
        changePercent: "0",
        closeReason: "stop_loss",
        saleTime: "2026-01-03T00:00:00.000Z",
      },
      openPositions: 1,
      unrealizedProfitLossSol: "0.5",
      // The position endpoints' P/L (see "GET /agents/:id/positions" above): 0.5 SOL × 133.33… USD.
      unrealizedProfitLossUsd: "66.666666666666666666",
    });

    const ranged = await json(
      await ctx.request(
        "GET",
        `/api/v1/agents/${agent.id}/performance?startDate=2026-01-02T12:00:00Z&endDate=2026-01-31T00:00:00Z`,
        { token },
      ),
    );
    expect(ranged).toMatchObject({
      startDate: "2026-01-02T12:00:00.000Z",
      endDate: "2026-01-31T00:00:00.000Z",
      totalTrades: 2,
      wins: 0,
      losses: 1,
      winRate: 0,
      realizedProfitLossSol: "-0.2",
      realizedProfitLossUsd: "-30.05",
    });
    expect(ranged.bestTrade.profitLossSol).toBe("0");
  });

  test("an agent without trades", async () => {
    const agent = await createAgent(ctx, token);
    expect(await json(await ctx.request("GET", `/api/v1/agents/${agent.id}/performance`, { token }))).toEqual({
      agentId: agent.id,
      startDate: null,
      endDate: null,
      totalTrades: 0,
      wins: 0,
      losses: 0,
      winRate: 0,
      realizedProfitLossSol: "0",
      realizedProfitLossUsd: "0",
      bestTrade: null,
      worstTrade: null,
      openPositions: 0,
      unrealizedProfitLossSol: "0",
      unrealizedProfitLossUsd: "0",
    });
  });

  test("errors", async () => {
    const agent = await createAgent(ctx, token);
    await expectError(
      await ctx.request("GET", `/api/v1/agents/${agent.id}/performance?startDate=never`, { token }),
      400,
      "startDate must be an ISO 8601 date",
    );
    await expectError(
      await ctx.request("GET", `/api/v1/agents/${agent.id}/performance?endDate=x`, { token }),
      400,
      "endDate must be an ISO 8601 date",
    );
    const theirs = await createAgent(ctx, other.token);
    await expectError(
      await ctx.request("GET", `/api/v1/agents/${theirs.id}/performance`, { token }),
      404,
      "Agent not found",
    );
  });
});

describe("GET /agents/:id/balance-history", () => {
  test("snapshots oldest first; range and limit (the most recent N)", async () => {
    const agent = await createAgent(ctx, token);
    const sim = simulationWalletOf(ctx, agent.id);
    const created = new Date(ctx.clock.now()).toISOString();
    const snap = (hour: number, sol: string) =>
      recordBalanceSnapshot(ctx.database, {
        agentId: agent.id,
        walletAddress: sim,
        solBalance: sol,
        totalValueSol: sol,
        totalValueUsd: "1500",
        reason: "hourly",
        now: new Date(Date.parse(created) + hour * 3_600_000).toISOString(),
      });
    snap(1, "9.5");
    snap(2, "9");
    snap(3, "8.5");
    const all = await json(await ctx.request("GET", `/api/v1/agents/${agent.id}/balance-history`, { token }));
    expect(all).toEqual([
      {
        timestamp: created,
        walletAddress: sim,
        solBalance: "10",
        totalValueSol: "10",
        totalValueUsd: null,
        reason: "initial",
      },
      ...[1, 2, 3].map((h, i) => ({
        timestamp: new Date(Date.parse(created) + h * 3_600_000).toISOString(),
        walletAddress: sim,
        solBalance: ["9.5", "9", "8.5"][i],
        totalValueSol: ["9.5", "9", "8.5"][i],
        totalValueUsd: "1500",
        reason: "hourly",
      })),
    ]);
    const at = (h: number) => new Date(Date.parse(created) + h * 3_600_000).toISOString();
    const solOf = (list: Array<{ solBalance: string }>) => list.map((s) => s.solBalance);
    expect(
      solOf(
        await json(
          await ctx.request("GET", `/api/v1/agents/${agent.id}/balance-history?startDate=${at(2)}`, { token }),
        ),
      ),
    ).toEqual(["9", "8.5"]);
    expect(
      solOf(
        await json(await ctx.request("GET", `/api/v1/agents/${agent.id}/balance-history?endDate=${at(1)}`, { token })),
      ),
    ).toEqual(["10", "9.5"]);
    expect(
      solOf(await json(await ctx.request("GET", `/api/v1/agents/${agent.id}/balance-history?limit=2`, { token }))),
    ).toEqual(["9", "8.5"]);
    await expectError(
      await ctx.request("GET", `/api/v1/agents/${agent.id}/balance-history?limit=1001`, { token }),
      400,
      "limit must be at most 1000",
    );
    await expectError(
      await ctx.request("GET", `/api/v1/agents/${agent.id}/balance-history?startDate=abc`, { token }),
      400,
      "startDate must be an ISO 8601 date",
    );
  });

  test("another user's agent is 404", async () => {
    const theirs = await createAgent(ctx, other.token);
    await expectError(
      await ctx.request("GET", `/api/v1/agents/${theirs.id}/balance-history`, { token }),
      404,
      "Agent not found",
    );
  });
});
