import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Big } from "../../src/money.ts";
import { createUser, json } from "../helpers/context.ts";
import { MINT, startTrading, type TradingContext } from "../helpers/trading.ts";

// The close endpoints (SPEC "Position endpoints", "States and transitions"; PRODUCT.md §4):
// POST /agent-positions/:agentId/:positionId/close and the short form /agent-positions/:id/close.
// Every number below is worked out by hand from the fake market's prices: SOL at $100, the token
// bought at $0.01 (0.0001 SOL), 5 % of 10 SOL = 0.5 SOL swapped for 5000 tokens, and every swap
// charged 0.000005 + 0.0001 = 0.000105 SOL of fees. The opening buy also pays the token account's
// rent, 0.00203928 SOL, recorded apart (rentDepositSol): the position's cost is 0.500105 SOL. The
// close returns the rent to the wallet's SOL (rentRefundSol): not into the sale, the cost or the
// P/L; the 0.000005 SOL fee of the transaction that closes the account joins the closing SELL's
// fees (0.00011), so the P/L is exactly what the wallet gained.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SIM_HASH = /^sim_[0-9a-f]{32}$/;
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

let t: TradingContext;
beforeEach(async () => {
  t = await startTrading();
});
afterEach(() => t.close());

const tick = () => t.ctx.services.trading.monitor.tick();
const price = (usd: string) => t.fake.setToken(MINT, { priceUsd: usd });
const closeLong = (agentId: string, positionId: string, body?: unknown, token = t.token) =>
  t.ctx.request("POST", `/api/v1/agent-positions/${agentId}/${positionId}/close`, { token, body });
const closeShort = (positionId: string, body?: unknown, token = t.token) =>
  t.ctx.request("POST", `/api/v1/agent-positions/${positionId}/close`, { token, body });

async function expectError(res: Response, status: number, error: string) {
  const body = await json(res);
  expect({ status: res.status, error: body.error }).toEqual({ status, error });
  return body;
}

/** percent = pl / cost × 100 as the API's number (15 significant digits). */
const pct = (pl: string, cost: string) => Number(new Big(pl).div(cost).times(100).toPrecision(15));

async function openOne(config?: Record<string, unknown>) {
  const agent = await t.createAgent({ config });
  const signal = await t.postSignal();
  await t.settle();
  const [pos] = await t.positions(agent.id);
  expect(pos).toBeDefined();
  return { agent, signal, pos };
}

const txs = async (agentId: string, query = "") =>
  json(await t.ctx.request("GET", `/api/v1/agent-transactions?agentId=${agentId}${query}`, { token: t.token }));
const swaps = async (agentId: string) =>
  json(await t.ctx.request("GET", `/api/v1/agent-historical-swaps?agentId=${agentId}`, { token: t.token }));

describe("close after take-profit sales", () => {
  test("the returned P/L includes the realized take-profit profit; SELL, historical swap and balances agree", async () => {
    const { agent, signal, pos } = await openOne({
      takeProfit: { enabled: true, percentage: 50, sellPercentage: 50, maxLevels: 3 },
    });
    // The opening buy paid 0.000105 in fees and, beside them, 0.00203928 of token account rent
    // (its rentDepositSol): its cost is 0.500105.
    expect(t.solBalance(agent.id)).toBe("9.49785572");

    // Level 1 at 0.0001 × 1.5 = 0.00015 SOL ($0.015): half of 5000 tokens sold for 0.375 SOL.
    // Realized: 0.375 − 0.000105 − 0.500105 × 2500/5000 = 0.1248425.
    price("0.015");
    const report = await tick();
    expect(report).toMatchObject({ positions: 1, priced: 1, actions: 1, closed: 0, failed: 0 });
    const [afterTp] = await t.positions(agent.id);
    expect(afterTp.takeProfit).toEqual({
      remainingAmount: 2500,
      levelsHit: 1,
      realizedProfitSol: 0.1248425,
      moonBagActivated: false,
      moonBagAmount: null,
    });
    expect(t.solBalance(agent.id)).toBe("9.87275072");
    expect(t.tokenBalance(agent.id)).toBe("2500");

    // Close at $0.012: 2500 tokens for 0.3 SOL. P/L = 0.3 − 0.00011 + 0.1248425 − 0.2500525
    // = 0.17468, which is also (0.374895 + 0.29989) − 0.500105: every net proceed minus the
    // cost (the rent and its refund are the wallet's, not the P/L's; the close's fee is).
    price("0.012");
    const res = await closeLong(agent.id, pos.id, {});
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(Object.keys(body).sort()).toEqual([
      "changePercent",
      "historicalSwapId",
      "profitLossSol",
      "profitLossUsd",
      "success",
      "transactionHash",
      "transactionId",
    ]);
    expect(body).toEqual({
      success: true,
      transactionId: expect.stringMatching(UUID),
      historicalSwapId: expect.stringMatching(UUID),
      profitLossSol: 0.17468,
      profitLossUsd: 17.468,
      changePercent: pct("0.17468", "0.500105"),
      transactionHash: expect.stringMatching(SIM_HASH),
    });
    expect(body.changePercent).toBeCloseTo(34.92866498, 7);

    // The SELL of what remained.
    const sell = await json(
      await t.ctx.request("GET", `/api/v1/agent-transactions/${body.transactionId}`, { token: t.token }),
    );
    expect(sell).toMatchObject({
      agentId: agent.id,
      walletAddress: pos.walletAddress,
      transactionType: "SELL",
      signalId: signal.id,
      inputMint: MINT,
      inputAmount: "2500",
      outputMint: "So11111111111111111111111111111111111111112",
      outputAmount: "0.3", // the swap's SOL only: the rent is not part of the sale
      fees: "0.00011", // the swap's and the account close's
      isTakeProfit: false,
      isDca: false,
      transactionHash: body.transactionHash,
      transactionValueUsd: "30",
    });
    // One BUY, the take-profit SELL, the closing SELL.
    const all = await txs(agent.id);
    expect(all.map((x: any) => `${x.transactionType}:${x.isTakeProfit}`).sort()).toEqual([
      "BUY:false",
      "SELL:false",
      "SELL:true",
    ]);

    // The historical swap.
    const swap = await json(
      await t.ctx.request("GET", `/api/v1/agent-historical-swaps/${body.historicalSwapId}`, { token: t.token }),
    );
    expect(swap).toMatchObject({
      id: body.historicalSwapId,
      agentId: agent.id,
      walletAddress: pos.walletAddress,
      tokenAddress: MINT,
      tokenSymbol: "BONK",
      amount: "5000",
      purchasePrice: "0.0001",
      salePrice: "0.00012",
      profitLossSol: "0.17468",
      profitLossUsd: "17.468",
      changePercent: "34.9286",
      purchaseTransactionId: pos.purchase.transaction.id,
      saleTransactionId: body.transactionId,
      signalId: String(signal.id),
      closeReason: "manual",
      purchaseTime: pos.purchase.transaction.time,
    });

    // Balances: 10 − 0.500105 − 0.00203928 + 0.374895 + 0.29989 + the rent back, 0.00203928: 10 + the P/L.
    expect(t.solBalance(agent.id)).toBe("10.17468");
    expect(t.tokenBalance(agent.id)).toBe("0");
    expect(await t.positions(agent.id)).toEqual([]);
    const row = t.ctx.database.sqlite
      .query<{ status: string; close_reason: string; remaining_amount: string }, [string]>(
        "SELECT status, close_reason, remaining_amount FROM positions WHERE id = ?",
      )
      .get(pos.id);
    expect(row).toEqual({ status: "closed", close_reason: "manual", remaining_amount: "0" });

    // Already closed: 404, both forms, nothing more sold.
    await expectError(await closeLong(agent.id, pos.id), 404, "Position not found");
    await expectError(await closeShort(pos.id), 404, "Position not found");
    expect(t.count("agent_transactions", "agent_id = ?", agent.id)).toBe(3);
    expect(t.count("historical_swaps", "agent_id = ?", agent.id)).toBe(1);
  });

  test("after the moon bag: only the moon bag is sold, and the P/L sums every sale", async () => {
    const { agent, pos } = await openOne({
      takeProfit: { enabled: true, percentage: 100, sellPercentage: 50, maxLevels: 1 },
    });
    // Level 1 at 0.0002 SOL ($0.02): 2500 tokens for 0.5 SOL; the other 2500 become the moon bag.
    price("0.02");
    await tick();
    const [bag] = await t.positions(agent.id);
    // Realized: 0.5 − 0.000105 − 0.2500525 (half the cost) = 0.2498425.
    expect(bag.takeProfit).toEqual({
      remainingAmount: 2500,
      levelsHit: 1,
      realizedProfitSol: 0.2498425,
      moonBagActivated: true,
      moonBagAmount: 2500,
    });
    // Closed by the short form at $0.01: 2500 tokens for 0.25 SOL. P/L = (0.499895 + 0.24989)
    // − 0.500105 = 0.24968; the balance: 10 + 0.24968 − 0.00203928 + 0.00203928 (the rent back).
    price("0.01");
    const res = await closeShort(pos.id);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({
      success: true,
      profitLossSol: 0.24968,
      profitLossUsd: 24.968,
      changePercent: pct("0.24968", "0.500105"),
    });
    expect(t.solBalance(agent.id)).toBe("10.24968");
    const [swap] = await swaps(agent.id);
    expect(swap).toMatchObject({
      closeReason: "manual",
      profitLossSol: "0.24968",
      salePrice: "0.0001",
      saleTransactionId: body.transactionId,
    });
  });
});

describe("close requests", () => {
  test("the short form with reason stop_loss closes with closeReason stop_loss", async () => {
    const { agent, pos } = await openOne();
    price("0.02"); // 5000 tokens for 1 SOL: P/L 0.99989 − 0.500105 = 0.499785 (the close's fee in)
    const res = await closeShort(pos.id, { reason: "stop_loss" });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({
      success: true,
      profitLossSol: 0.499785,
      profitLossUsd: 49.9785,
      changePercent: pct("0.499785", "0.500105"),
    });
    const [swap] = await swaps(agent.id);
    expect(swap).toMatchObject({
      id: body.historicalSwapId,
      closeReason: "stop_loss",
      profitLossSol: "0.499785",
      salePrice: "0.0002",
    });
    expect(t.solBalance(agent.id)).toBe("10.499785"); // 10 + the P/L: the rent went out and came back
  });

  test("a manual close bypasses stop-loss and DCA: one SELL at the current price, no DCA buy", async () => {
    const { agent, pos } = await openOne({
      dca: { enabled: true, maxOrders: 3, priceDropTriggerPercentage: 10, amountPercentage: 50 },
      stopLoss: { enabled: true, percentage: 25 },
    });
    // $0.005 is below the stop price (0.000075 SOL) and every DCA trigger; no tick runs before the close.
    price("0.005");
    const res = await closeLong(agent.id, pos.id, { reason: "manual" });
    expect(res.status).toBe(200);
    // 5000 tokens for 0.25 SOL: P/L 0.24989 − 0.500105 = −0.250215.
    expect(await json(res)).toMatchObject({
      success: true,
      profitLossSol: -0.250215,
      profitLossUsd: -25.0215,
      changePercent: pct("-0.250215", "0.500105"),
    });
    expect((await txs(agent.id)).map((x: any) => `${x.transactionType}:${x.isDca}`).sort()).toEqual([
      "BUY:false",
      "SELL:false",
    ]);
    const [swap] = await swaps(agent.id);
    expect(swap.closeReason).toBe("manual");
    // The monitor finds nothing left to do.
    expect(await tick()).toMatchObject({ positions: 0, actions: 0 });
    expect(t.count("agent_transactions", "agent_id = ?", agent.id)).toBe(2);
    expect(t.solBalance(agent.id)).toBe("9.749785"); // 10 + the P/L: the rent went out and came back
  });

  test("404 Position not found: unknown id, another user's position, a position of another agent", async () => {
    const { agent, pos } = await openOne();
    const other = await createUser(t.ctx);
    const theirAgent = await t.createAgent({ token: other.token, name: "theirs" });
    const mySecond = await t.createAgent({ name: "second" });

    await expectError(await closeLong(agent.id, UNKNOWN), 404, "Position not found");
    await expectError(await closeShort(UNKNOWN), 404, "Position not found");
    // Another user: by the short form, through their own agent, and through my agent's id.
    await expectError(await closeShort(pos.id, undefined, other.token), 404, "Position not found");
    await expectError(await closeLong(theirAgent.id, pos.id, undefined, other.token), 404, "Position not found");
    await expectError(await closeLong(agent.id, pos.id, undefined, other.token), 404, "Position not found");
    // My position named under my other agent.
    await expectError(await closeLong(mySecond.id, pos.id), 404, "Position not found");

    // Nothing was sold.
    expect(t.count("agent_transactions", "transaction_type = 'SELL'")).toBe(0);
    expect((await t.positions(agent.id)).map((p) => p.id)).toEqual([pos.id]);
    expect(t.tokenBalance(agent.id)).toBe("5000");
  });

  test("400 Insufficient token balance when the wallet holds less than the position says; nothing changes", async () => {
    const { agent, pos } = await openOne();
    const balances = await json(
      await t.ctx.request("GET", `/api/v1/agent-balances?agentId=${agent.id}`, { token: t.token }),
    );
    const tokenRow = balances.find((b: any) => b.tokenAddress === MINT);
    expect(tokenRow.balance).toBe("5000");
    const put = await t.ctx.request("PUT", `/api/v1/agent-balances/${tokenRow.id}`, {
      token: t.token,
      body: { balance: "4999.999999" },
    });
    expect(put.status).toBe(200);

    const res = await closeLong(agent.id, pos.id);
    const body = await expectError(res, 400, "Insufficient token balance");
    expect(body).toMatchObject({ code: "TRADING_ERROR", details: { required: 5000, available: 4999.999999 } });
    await expectError(await closeShort(pos.id, { reason: "stop_loss" }), 400, "Insufficient token balance");

    expect(t.count("agent_transactions", "agent_id = ? AND transaction_type = 'SELL'", agent.id)).toBe(0);
    expect(t.count("historical_swaps", "agent_id = ?", agent.id)).toBe(0);
    expect(t.solBalance(agent.id)).toBe("9.49785572");
    expect(t.tokenBalance(agent.id)).toBe("4999.999999");
    expect((await t.positions(agent.id)).map((p) => p.id)).toEqual([pos.id]);
    // The sale's quote was never asked for: the balance check comes first (the buy's quote and its
    // screening's reverse quote are the only ones).
    expect(t.fake.requestsTo("jupiter.build").length).toBe(2);

    // Restored, the close goes through.
    await t.ctx.request("PUT", `/api/v1/agent-balances/${tokenRow.id}`, { token: t.token, body: { balance: "5000" } });
    expect((await closeShort(pos.id)).status).toBe(200);
  });

  test("400 for malformed ids and an unknown reason", async () => {
    const { agent, pos } = await openOne();
    await expectError(await closeLong("abc", pos.id), 400, "Invalid agent ID format");
    await expectError(await closeLong(agent.id, "abc"), 400, "Invalid position ID format");
    await expectError(await closeShort("not-a-uuid"), 400, "Invalid position ID format");
    await expectError(
      await closeShort(pos.id, { reason: "take_profit" }),
      400,
      "Reason must be either 'manual' or 'stop_loss'",
    );
    await expectError(
      await closeLong(agent.id, pos.id, { reason: "signal" }),
      400,
      "Reason must be either 'manual' or 'stop_loss'",
    );
    expect(t.count("agent_transactions", "transaction_type = 'SELL'")).toBe(0);
  });

  test("a swap provider failure answers 502 and leaves the position open", async () => {
    const { agent, pos } = await openOne();
    const fail = { status: 500, body: { error: "boom" } };
    t.fake.inject("jupiter.build", fail, fail, fail);
    const res = await closeShort(pos.id);
    const body = await json(res);
    expect(res.status).toBe(502);
    expect(body.code).toBe("EXTERNAL_SERVICE_ERROR");
    expect(t.count("agent_transactions", "transaction_type = 'SELL'")).toBe(0);
    expect(t.tokenBalance(agent.id)).toBe("5000");
    expect((await closeShort(pos.id)).status).toBe(200);
  });
});

describe("auth", () => {
  test("auth matrix of the position routes", async () => {
    const { agent, pos } = await openOne();
    const other = await createUser(t.ctx);
    const theirAgent = await t.createAgent({ token: other.token, name: "theirs" });
    const base = "/api/v1/agent-positions";
    // A positions key reads the open position; another user's list does not show it.
    const key = (
      await json(
        await t.ctx.request("POST", "/api/v1/api-keys", {
          token: t.token,
          body: { name: "pos", scopes: ["positions"] },
        }),
      )
    ).key;
    const list = await json(await t.ctx.request("GET", base, { apiKey: key }));
    expect(list.map((p: any) => p.id)).toEqual([pos.id]);
    expect(await json(await t.ctx.request("GET", base, { token: other.token }))).toEqual([]);
    // Another user cannot close it, neither by its own agent's path nor by the owner's.
    const foreignClose = await t.ctx.request("POST", `${base}/${theirAgent.id}/${pos.id}/close`, {
      token: other.token,
      body: {},
    });
    expect(foreignClose.status).toBe(404);
    const byOwnerPath = await t.ctx.request("POST", `${base}/${agent.id}/${pos.id}/close`, {
      token: other.token,
      body: {},
    });
    expect(byOwnerPath.status).toBe(404);
    expect(t.count("agent_transactions", "transaction_type = 'SELL'")).toBe(0);
  });
});
