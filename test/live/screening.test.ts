import { describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { type LiveContext, livePerTest, MINT } from "./live-context.ts";

// Token screening before a buy (docs/decisions.md "Live integration"), through the real service:
// the mint account is read over the (fake) RPC, the reverse quote asked of the (fake) aggregator.
// Each refusal is the signal's evaluation for the agent, naming the rule; nothing is signed or sent.

let l: LiveContext;
livePerTest((c) => {
  l = c;
});
const evaluation = (signalId: number, agentId: string) => l.evaluation(signalId, agentId);

describe("screening a live buy", () => {
  test("a mint with a freeze authority is refused (rejectFreezeAuthority, default on): nothing sent", async () => {
    const agent = await l.liveAgent();
    const freezer = Keypair.generate().publicKey.toBase58();
    l.rpc.mintAuthorities.set(MINT, { freeze: freezer });
    const signal = await l.postSignal();
    await l.settle();
    expect(evaluation(signal.id, agent.id)).toEqual({
      outcome: "failed",
      reason: `rejectFreezeAuthority: The mint has a freeze authority (${freezer}) that can freeze the bought tokens`,
    });
    expect(l.rpc.sentTransactions().length).toBe(0);
    expect(l.fake.requestsTo("jupiter.swap").length).toBe(0);
    expect(l.count("positions", "agent_id = ?", agent.id)).toBe(0);
  });

  test("with rejectFreezeAuthority off the same mint is bought; a mint authority is refused only when asked", async () => {
    const agent = await l.liveAgent({
      config: { filters: { rejectFreezeAuthority: false, rejectMintAuthority: true } },
    });
    const minter = Keypair.generate().publicKey.toBase58();
    l.rpc.mintAuthorities.set(MINT, { freeze: minter, mint: minter });
    const first = await l.postSignal();
    await l.settle();
    expect(evaluation(first.id, agent.id)?.reason).toStartWith("rejectMintAuthority: ");
    l.rpc.mintAuthorities.set(MINT, { freeze: minter });
    // Mint facts are cached for 10 minutes (src/market/mint-info.ts); the authority was renounced.
    l.ctx.clock.advance(11 * 60_000);
    const second = await l.postSignal({ signalStrength: 5 });
    await l.settle();
    expect(evaluation(second.id, agent.id)?.outcome).toBe("traded");
    expect(l.rpc.sentTransactions().length).toBe(1);
  });

  test("no route back to SOL for the bought amount (requireSellable): refused before the swap is built", async () => {
    const agent = await l.liveAgent();
    l.fake.inject(
      "jupiter.quote",
      { delayMs: 0 },
      {
        status: 400,
        body: { error: "Could not find any route", errorCode: "COULD_NOT_FIND_ANY_ROUTE" },
      },
    );
    const signal = await l.postSignal();
    await l.settle();
    expect(evaluation(signal.id, agent.id)).toEqual({
      outcome: "failed",
      reason: "requireSellable: No route sells the bought amount back to SOL, so the position could not be exited",
    });
    expect(l.fake.requestsTo("jupiter.swap").length).toBe(0);
  });
});

describe("a new token's decimals with an RPC configured", () => {
  test("read from the mint account, once for the sizing and the screening together; the Price API is not asked", async () => {
    const agents: string[] = [];
    for (const pct of [2, 5, 9]) {
      const created = await l.request("POST", "/api/v1/agents", { name: `sim-${pct}` });
      expect(created.status).toBe(201);
      const id = ((await created.json()) as { id: string }).id;
      const up = await l.request("PUT", `/api/v1/agents/${id}`, { automatedTradingSimulation: true });
      expect(up.status).toBe(200);
      const cfg = await l.request("PUT", `/api/v1/agents/${id}/config`, {
        config: { positionSizing: { percentage: pct } },
      });
      expect(cfg.status).toBe(200);
      agents.push(id);
    }
    const signal = await l.postSignal();
    await l.settle();
    for (const id of agents) expect(evaluation(signal.id, id)?.outcome).toBe("traded");
    const mintReads = l.rpc.calls.filter((c) => c.method === "getAccountInfo" && c.params[0] === MINT);
    expect(mintReads).toHaveLength(1);
    const pricedMint = l.fake.requestsTo("jupiter.price").filter((r) => (r.query.get("ids") ?? "").includes(MINT));
    expect(pricedMint).toHaveLength(0);
    const decimals = l.ctx.database.sqlite
      .query<{ d: number }, [number]>("SELECT DISTINCT token_decimals AS d FROM positions WHERE signal_id = ?")
      .all(signal.id);
    expect(decimals).toEqual([{ d: 6 }]);
  });
});
