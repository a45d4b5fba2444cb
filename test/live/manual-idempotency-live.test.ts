import { describe, expect, test } from "bun:test";
import { json, login } from "../helpers/context.ts";
import { type LiveContext, livePerTest, MINT } from "./live-context.ts";

// Idempotency-Key on live manual trades (docs/decisions/operator-experience-v.md "Idempotency-Key
// on the manual trades"): repeated while the swap's outcome is unknown, a buy is answered from the
// journal (202, pending) and a sale is "still in progress" (409), and nothing is sent again; once
// the chain confirms the swap, the same key answers the position or the sale it made. Numbers
// (live-context.ts): 0.1 SOL buys 1000 BONK; the fake aggregator sells at the same price.

let l: LiveContext;
livePerTest((c) => {
  l = c;
});

describe("live manual trades repeated with the same Idempotency-Key", () => {
  test("a buy in doubt: not sent again, answered pending; landed: the position it opened", async () => {
    const agent = await l.liveAgent();
    const { token } = await login(l.ctx);
    const buy = async () => {
      const res = await l.ctx.request("POST", `/api/v1/agents/${agent.id}/buy`, {
        token,
        body: { tokenAddress: MINT, amountSol: 0.1 },
        headers: { "Idempotency-Key": "live-buy-1" },
      });
      return { status: res.status, body: (await json(res)) as any };
    };
    l.rpc.landNext({ kind: "hold" });
    const first = await buy();
    expect(first.status).toBe(202);
    const sent = l.rpc.sentTransactions();
    expect(sent.length).toBe(1);
    const signalId = l.ctx.database.sqlite
      .query<{ id: number }, []>("SELECT id FROM trading_signals WHERE source = 'manual'")
      .get()!.id;

    // The client retries (a timeout, a proxy): the swap in doubt is not sent again.
    const again = await buy();
    expect(again).toEqual({
      status: 202,
      body: { status: "pending", signalId, positionId: null, tradingMode: "live" },
    });
    expect(again).toEqual(first);
    expect(l.rpc.sentTransactions().length).toBe(1);
    expect(l.count("trading_signals", "source = 'manual'")).toBe(1);

    // The chain confirms it: the reconciler opens the position; the key answers it, buys nothing.
    l.rpc.land(sent[0]!.signature);
    await l.tick();
    const [pos] = await json(await l.request("GET", `/api/v1/agent-positions/${agent.id}`));
    expect(pos.purchase.amount).toBe(1000);
    const landed = await buy();
    expect(landed).toEqual({
      status: 201,
      body: { status: "opened", signalId, positionId: pos.id, tradingMode: "live" },
    });
    expect(l.rpc.sentTransactions().length).toBe(1);
    expect(l.count("agent_transactions", "agent_id = ? AND transaction_type = 'BUY'", agent.id)).toBe(1);
  });

  test("a sale in doubt: the repeat is 'in progress' and sends nothing; landed: the sale's answer", async () => {
    const agent = await l.liveAgent();
    await l.postSignal();
    await l.settle();
    const [pos] = await json(await l.request("GET", `/api/v1/agent-positions/${agent.id}`));
    const { token } = await login(l.ctx);
    const sell = async () => {
      const res = await l.ctx.request("POST", `/api/v1/agent-positions/${agent.id}/${pos.id}/sell`, {
        token,
        body: { percent: 50 },
        headers: { "Idempotency-Key": "live-sale-1" },
      });
      return { status: res.status, body: (await json(res)) as any };
    };
    l.rpc.landNext({ kind: "hold" });
    const first = await sell();
    expect(first.status).toBe(502);
    expect(first.body.details).toMatchObject({ status: "pending" });
    const sent = l.rpc.sentTransactions();
    expect(sent.length).toBe(2);

    const again = await sell();
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("A request with this Idempotency-Key is still in progress");
    expect(l.rpc.sentTransactions().length).toBe(2);

    l.rpc.land(sent[1]!.signature);
    await l.tick();
    expect(l.balance(agent.id, MINT)).toBe("500");
    const landed = await sell();
    expect(landed.status).toBe(200);
    expect(landed.body).toMatchObject({
      closed: false,
      tokensSold: "500",
      proceedsSol: "0.05",
      remainingAmount: "500",
      transactionHash: sent[1]!.signature,
    });
    expect(l.rpc.sentTransactions().length).toBe(2);
    expect(l.count("agent_transactions", "transaction_type = 'SELL'")).toBe(1);
  });
});
