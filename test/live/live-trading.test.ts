import { describe, expect, test } from "bun:test";
import { VersionedTransaction } from "@solana/web3.js";
import { Big, SOL_MINT } from "../../src/money.ts";
import { json } from "../helpers/context.ts";
import { type LiveContext, livePerTest, MINT } from "./live-context.ts";

// Live trading end to end over HTTP (issue: live trading; SPEC "Position close in live mode";
// PRODUCT.md §5 "Live swap"): signal → quote → swap transaction → checked, signed in memory,
// simulated, sent → confirmed by polling → recorded from the chain. Amounts (live-context.ts):
// 2 SOL on chain, 5 % = 0.1 SOL buys 1000 BONK at $0.01 (SOL $100); every swap costs 5000 +
// 50 000 lamports of fees = 0.000055 SOL.

let l: LiveContext;
const live = livePerTest((c) => {
  l = c;
});

const txRows = (agentId: string) =>
  l.ctx.database.sqlite
    .query<Record<string, any>, [string]>(
      "SELECT * FROM agent_transactions WHERE agent_id = ? ORDER BY created_at, rowid",
    )
    .all(agentId);

describe("live buy on a signal", () => {
  test("signs, simulates, sends, confirms, and records the chain's amounts with the signature as hash", async () => {
    const agent = await l.liveAgent();
    expect(l.balance(agent.id)).toBe("2");
    const signal = await l.postSignal();
    await l.settle();

    // Exactly one transaction reached the chain, signed by the wallet (the fake verified it).
    const sent = l.rpc.sentTransactions();
    expect(sent.length).toBe(1);
    expect(sent[0]).toMatchObject({ payer: l.wallet, state: "landed", err: null });
    const signature = sent[0]!.signature;
    // Issue 15: the unsigned transaction is inspected (simulated with the wallet's accounts
    // returned), then the signed one is simulated (LIVE_SIMULATE_BEFORE_SEND), then sent with
    // maxRetries 0: the service rebroadcasts itself.
    const sims = l.rpc.callsOf("simulateTransaction").map((p) => p[1] as Record<string, any>);
    expect(sims.length).toBe(2);
    expect(sims[0]).toMatchObject({ sigVerify: false, replaceRecentBlockhash: true });
    expect(sims[0]!.accounts.addresses).toContain(l.wallet);
    expect(sims[1]).toMatchObject({ sigVerify: true });
    const sendParams = l.rpc.callsOf("sendTransaction")[0]!;
    expect(sendParams[1]).toEqual({ encoding: "base64", skipPreflight: true, maxRetries: 0 });
    const onWire = VersionedTransaction.deserialize(Buffer.from(sendParams[0] as string, "base64"));
    expect(onWire.message.staticAccountKeys[0]!.toBase58()).toBe(l.wallet);

    // The aggregator got the agent's slippage and the wallet as the user.
    const quotes = l.fake.requestsTo("jupiter.quote");
    // Screening (issue 15, requireSellable): a reverse quote for the 1000 BONK bought.
    expect(Object.fromEntries(quotes.at(-1)!.query)).toMatchObject({
      inputMint: MINT,
      outputMint: SOL_MINT,
      amount: "1000000000",
    });
    const quote = quotes.filter((r) => r.query.get("inputMint") === SOL_MINT).at(-1)!;
    expect(Object.fromEntries(quote.query)).toMatchObject({
      inputMint: SOL_MINT,
      outputMint: MINT,
      amount: "100000000",
      slippageBps: "300",
    });
    const swapReq = l.fake.requestsTo("jupiter.swap").at(-1)!.body as Record<string, unknown>;
    expect(swapReq.userPublicKey).toBe(l.wallet);
    expect(swapReq.prioritizationFeeLamports).toEqual({
      priorityLevelWithMaxLamports: { maxLamports: 1_000_000, priorityLevel: "veryHigh" },
    });

    // Chain: 2 − 0.1 − 0.000055 SOL, 1000 BONK; the ledger mirrors it.
    expect(l.rpc.lamportsOf(l.wallet)).toBe(1_899_945_000n);
    expect(l.balance(agent.id)).toBe("1.899945");
    expect(l.balance(agent.id, MINT)).toBe("1000");

    const [pos, ...more] = await json(await l.request("GET", `/api/v1/agent-positions/${agent.id}`));
    expect(more).toEqual([]);
    expect(pos).toMatchObject({
      agentId: agent.id,
      walletAddress: l.wallet,
      tokenAddress: MINT,
      tokenSymbol: "BONK",
      purchase: { priceNative: 0.0001, priceUsd: 0.01, amount: 1000, transaction: { hash: signature } },
      takeProfit: { remainingAmount: 1000 },
    });
    const txs = await json(await l.request("GET", `/api/v1/agent-transactions?agentId=${agent.id}`));
    expect(txs.length).toBe(1);
    expect(txs[0]).toMatchObject({
      walletAddress: l.wallet,
      transactionType: "BUY",
      signalId: signal.id,
      inputMint: SOL_MINT,
      inputAmount: "0.1",
      outputMint: MINT,
      outputAmount: "1000",
      fees: "0.000055",
      routes: ["Raydium"],
      slippage: "300",
    });
    const row = txRows(agent.id)[0]!;
    expect(row).toMatchObject({ transaction_hash: signature, status: "confirmed", trading_mode: "live" });
    expect(l.count("trade_idempotency", "agent_id = ? AND signal_id = ? AND action = 'BUY'", agent.id, signal.id)).toBe(
      1,
    );
    expect(
      l.count("live_trades", "signature = ? AND status = 'confirmed' AND transaction_id = ?", signature, row.id),
    ).toBe(1);
    expect(l.count("balance_snapshots", "agent_id = ? AND reason = 'trade'", agent.id)).toBe(1);
    const ev = l.ctx.database.sqlite
      .query<{ outcome: string }, [number, string]>(
        "SELECT outcome FROM signal_evaluations WHERE signal_id = ? AND agent_id = ?",
      )
      .get(signal.id, agent.id);
    expect(ev?.outcome).toBe("traded");

    // Every step is logged, with the signature.
    const msgs = l
      .logLines()
      .filter((x) => x.signature === signature)
      .map((x) => x.msg);
    expect(msgs).toEqual(["live swap signed", "live swap broadcast", "live swap confirmed"]);
    const executed = l.logLines().find((x) => x.msg === "trade executed");
    expect(executed).toMatchObject({
      agentId: agent.id,
      signalId: signal.id,
      tokenAddress: MINT,
      side: "buy",
      mode: "live",
      hash: signature,
    });
  });
});

describe("live close", () => {
  test("manual close sells on chain; the response carries the signature; P/L from the chain's amounts", async () => {
    const agent = await l.liveAgent();
    await l.postSignal();
    await l.settle();
    const [pos] = await json(await l.request("GET", `/api/v1/agent-positions/${agent.id}`));
    const res = await l.request("POST", `/api/v1/agent-positions/${agent.id}/${pos.id}/close`);
    expect(res.status).toBe(200);
    const body = await json(res);
    const sale = l.rpc.sentTransactions()[1]!;
    // 1000 BONK at $0.01 → 0.1 SOL; net 0.099945 against a cost of 0.100055.
    expect(body).toEqual({
      success: true,
      transactionId: expect.any(String),
      historicalSwapId: expect.any(String),
      profitLossSol: -0.00011,
      profitLossUsd: -0.011,
      changePercent: Number(new Big("-0.00011").div("0.100055").times(100).toPrecision(15)),
      transactionHash: sale.signature,
    });
    expect(sale).toMatchObject({ payer: l.wallet, state: "landed", err: null });
    const quote = l.fake.requestsTo("jupiter.quote").at(-1)!;
    expect(Object.fromEntries(quote.query)).toMatchObject({
      inputMint: MINT,
      outputMint: SOL_MINT,
      amount: "1000000000",
      slippageBps: "300",
    });
    expect(l.rpc.lamportsOf(l.wallet)).toBe(1_999_890_000n);
    expect(l.balance(agent.id)).toBe("1.99989");
    expect(l.balance(agent.id, MINT)).toBe("0");
    expect(await json(await l.request("GET", `/api/v1/agent-positions/${agent.id}`))).toEqual([]);
    const swaps = await json(await l.request("GET", `/api/v1/agent-historical-swaps?agentId=${agent.id}`));
    expect(swaps[0]).toMatchObject({
      closeReason: "manual",
      amount: "1000",
      purchasePrice: "0.0001",
      salePrice: "0.0001",
      profitLossSol: "-0.00011",
      saleTransactionId: body.transactionId,
    });
    const sell = txRows(agent.id).find((r) => r.transaction_type === "SELL")!;
    expect(sell).toMatchObject({
      id: body.transactionId,
      transaction_hash: sale.signature,
      status: "confirmed",
      input_amount: "1000",
      output_amount: "0.1",
      fees: "0.000055",
    });
  });

  test("stop-loss in live mode: the monitor sells on chain", async () => {
    const agent = await l.liveAgent();
    await l.postSignal();
    await l.settle();
    l.fake.setToken(MINT, { priceUsd: "0.007" }); // −30 % from the peak, stop at −25 %
    const report = await l.tick();
    expect(report).toMatchObject({ positions: 1, actions: 1, closed: 1, failed: 0 });
    expect(l.rpc.sentTransactions().length).toBe(2);
    // 1000 BONK at $0.007 → 0.07 SOL.
    expect(l.rpc.lamportsOf(l.wallet)).toBe(1_969_890_000n);
    expect(l.balance(agent.id)).toBe("1.96989");
    const swaps = await json(await l.request("GET", `/api/v1/agent-historical-swaps?agentId=${agent.id}`));
    expect(swaps[0]).toMatchObject({ closeReason: "stop_loss", salePrice: "0.00007", profitLossSol: "-0.03011" });
  });

  test("automatedTradingLive off: the monitor prices but does not sell; a manual close still sells on chain", async () => {
    const agent = await l.liveAgent();
    await l.postSignal();
    await l.settle();
    expect((await l.request("PUT", `/api/v1/agents/${agent.id}`, { automatedTradingLive: false })).status).toBe(200);
    l.fake.setToken(MINT, { priceUsd: "0.007" });
    expect(await l.tick()).toMatchObject({ positions: 1, priced: 1, actions: 0 });
    expect(l.rpc.sentTransactions().length).toBe(1);
    const [pos] = await json(await l.request("GET", `/api/v1/agent-positions/${agent.id}`));
    expect(pos.current.priceUsd).toBe(0.007);
    const res = await l.request("POST", `/api/v1/agent-positions/${agent.id}/${pos.id}/close`);
    expect(res.status).toBe(200);
    expect(l.rpc.sentTransactions().length).toBe(2);
  });

  test("an exit signal closes a live position only when automatic live trading is on", async () => {
    const agent = await l.liveAgent();
    await l.postSignal();
    await l.settle();
    expect((await l.request("PUT", `/api/v1/agents/${agent.id}`, { automatedTradingLive: false })).status).toBe(200);
    const exit1 = await l.postSignal({ signalType: "sell" });
    await l.settle();
    expect(l.count("positions", "agent_id = ? AND status = 'open'", agent.id)).toBe(1);
    const ev = l.ctx.database.sqlite
      .query<{ outcome: string; reason: string }, [number]>(
        "SELECT outcome, reason FROM signal_evaluations WHERE signal_id = ?",
      )
      .get(exit1.id);
    expect(ev).toEqual({
      outcome: "skipped",
      reason: "live_trading: automatic live trading is off for this agent or globally",
    });
    expect((await l.request("PUT", `/api/v1/agents/${agent.id}`, { automatedTradingLive: true })).status).toBe(200);
    await l.postSignal({ signalType: "sell" });
    await l.settle();
    expect(l.count("positions", "agent_id = ? AND status = 'closed' AND close_reason = 'signal'", agent.id)).toBe(1);
    expect(l.rpc.sentTransactions().length).toBe(2);
  });
});

describe("global switch", () => {
  test("LIVE_TRADING_ENABLED=false: a live agent does not trade on a signal; nothing reaches the chain", async () => {
    await live.restart({ env: { LIVE_TRADING_ENABLED: "false" } });
    const agent = await l.liveAgent();
    const signal = await l.postSignal();
    await l.settle();
    expect(l.count("positions")).toBe(0);
    expect(l.rpc.callsOf("sendTransaction").length).toBe(0);
    expect(l.fake.requestsTo("jupiter.quote").length).toBe(0);
    const ev = l.ctx.database.sqlite
      .query<{ reason: string }, [number, string]>(
        "SELECT reason FROM signal_evaluations WHERE signal_id = ? AND agent_id = ?",
      )
      .get(signal.id, agent.id);
    expect(ev?.reason).toStartWith("live_trading");
  });

  test("SWAP_API=v1: LIVE_PRIORITY_FEE_MAX is sent in the Swap API's documented form, as the cap", async () => {
    await live.restart({ env: { LIVE_PRIORITY_FEE_MAX: "20000" } });
    await l.liveAgent();
    await l.postSignal();
    await l.settle();
    // The body the fake aggregator received (issue 15): not the old v6 bare number.
    expect(
      (l.fake.requestsTo("jupiter.swap").at(-1)!.body as Record<string, unknown>).prioritizationFeeLamports,
    ).toEqual({ priorityLevelWithMaxLamports: { maxLamports: 20000, priorityLevel: "veryHigh" } });
    // 5000 signature fee + 20 000 priority fee.
    expect(l.rpc.lamportsOf(l.wallet)).toBe(2_000_000_000n - 100_000_000n - 25_000n);
  });
});

describe("monitor rules in live mode", () => {
  test("take-profit sells part on chain: remaining, level and realized profit from the chain's amounts", async () => {
    const agent = await l.liveAgent({
      config: { takeProfit: { enabled: true, percentage: 50, sellPercentage: 50, maxLevels: 3 } },
    });
    await l.postSignal();
    await l.settle();
    l.fake.setToken(MINT, { priceUsd: "0.015" });
    expect(await l.tick()).toMatchObject({ actions: 1, closed: 0, failed: 0 });
    // 500 BONK at $0.015 → 0.075 SOL; realized 0.074945 − 0.100055 × 500/1000 = 0.0249175.
    expect(l.rpc.lamportsOf(l.wallet)).toBe(1_974_890_000n);
    expect(l.balance(agent.id)).toBe("1.97489");
    expect(l.balance(agent.id, MINT)).toBe("500");
    const [pos] = await json(await l.request("GET", `/api/v1/agent-positions/${agent.id}`));
    expect(pos.takeProfit).toMatchObject({ remainingAmount: 500, levelsHit: 1, realizedProfitSol: 0.0249175 });
    const sale = txRows(agent.id).find((r) => r.transaction_type === "SELL")!;
    expect(sale).toMatchObject({
      is_take_profit: 1,
      input_amount: "500",
      output_amount: "0.075",
      status: "confirmed",
      transaction_hash: l.rpc.sentTransactions()[1]!.signature,
    });
  });

  test("DCA buys on chain; the position grows by the tokens the chain delivered", async () => {
    const agent = await l.liveAgent({
      config: { dca: { enabled: true, maxOrders: 3, priceDropTriggerPercentage: 10, amountPercentage: 50 } },
    });
    await l.postSignal();
    await l.settle();
    l.fake.setToken(MINT, { priceUsd: "0.009" });
    expect(await l.tick()).toMatchObject({ actions: 1, failed: 0 });
    // 50 % of the opening 0.1 SOL at $0.009: 555.555555 BONK.
    expect(l.rpc.lamportsOf(l.wallet)).toBe(1_849_890_000n);
    expect(l.balance(agent.id)).toBe("1.84989");
    expect(l.balance(agent.id, MINT)).toBe("1555.555555");
    const [pos] = await json(await l.request("GET", `/api/v1/agent-positions/${agent.id}`));
    expect(pos.purchase.amount).toBe(1555.555555);
    const dca = txRows(agent.id).filter((r) => r.is_dca === 1);
    expect(dca).toMatchObject([
      { input_amount: "0.05", output_amount: "555.555555", fees: "0.000055", status: "confirmed" },
    ]);
  });
});
