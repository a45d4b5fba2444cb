import { afterEach, describe, expect, test } from "bun:test";
import { json } from "../helpers/context.ts";
import { type CopyContext, landBuy, MINT, MINT2, startCopy, W } from "./copy-context.ts";

// Per-watch copy limits (issue 33, finding 4 / item 3) through the real signal processor: what
// one followed wallet can make an agent buy, each refusal with its rule in the signal's processing.

let c: CopyContext;
afterEach(async () => {
  await c?.close();
});

const tradesOf = async (watchId: string) =>
  (await json(await c.request("GET", `/api/v1/wallet-watches/${watchId}/trades`))) as any[];
const openingSol = (agentId: string) =>
  (
    c.ctx.database.sqlite
      .query("SELECT opening_sol AS s FROM positions WHERE agent_id = ? ORDER BY opened_at")
      .all(agentId) as Array<{ s: string }>
  ).map((r) => Number(r.s));

async function round() {
  c.ctx.clock.advance(1_000);
  await c.tick();
  await c.settle();
}

describe("per-watch limits", () => {
  test("a new watch is small by default: 0.1 SOL a trade, one open position, 0.5 SOL a day", async () => {
    c = await startCopy();
    const watch = await c.watch();
    expect(watch).toMatchObject({ maxSolPerTrade: 0.1, maxOpenPositions: 1, dailySolBudget: 0.5 });
    const bad = await c.request("POST", "/api/v1/wallet-watches", {
      address: "DemoCopyAnt11111111111111111111111111111111",
      maxOpenPositions: 0,
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await json(bad))).toContain("maxOpenPositions must be a whole number from 1 to 100");
    const put = await c.request("PUT", `/api/v1/wallet-watches/${watch.id}`, { dailySolBudget: -1 });
    expect(put.status).toBe(400);
  });

  test("maxSolPerTrade caps the agent's sizing; maxOpenPositions refuses the next copy with its rule", async () => {
    c = await startCopy();
    const agentId = await c.agent();
    const watch = await c.watch({ maxSolPerTrade: 0.05 });
    c.ctx.clock.advance(1_000);
    c.trade({ sol: 2 });
    await round();
    const [first] = openingSol(agentId);
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(0.05);

    c.trade({ sol: 2, mint: MINT2 });
    await round();
    expect(openingSol(agentId)).toHaveLength(1);
    const refused = (await tradesOf(watch.id)).find((t) => t.tokenAddress === MINT2);
    expect(refused.processing.evaluations[0]).toMatchObject({
      agentId,
      outcome: "ineligible",
      rule: "copy_max_open_positions",
    });
  });

  test("dailySolBudget refuses a copy that would pass it; a raised budget lets the next one through", async () => {
    c = await startCopy();
    const agentId = await c.agent();
    const watch = await c.watch({ maxSolPerTrade: 0.1, maxOpenPositions: 5, dailySolBudget: 0.15 });
    c.ctx.clock.advance(1_000);
    c.trade({ sol: 1 });
    await round();
    expect(openingSol(agentId)).toHaveLength(1);
    c.trade({ sol: 1, mint: MINT2 });
    await round();
    expect(openingSol(agentId)).toHaveLength(1);
    const refused = (await tradesOf(watch.id)).find((t) => t.tokenAddress === MINT2);
    expect(refused.processing.evaluations[0]).toMatchObject({ outcome: "ineligible", rule: "copy_daily_budget" });
    expect(refused.processing.evaluations[0].reason).toContain("0.15 SOL");
    // Raised, the next copy fits again.
    await c.request("PUT", `/api/v1/wallet-watches/${watch.id}`, { dailySolBudget: 1 });
    c.trade({ sol: 1, mint: MINT2 });
    await round();
    expect(openingSol(agentId)).toHaveLength(2);
  });
});

// Issue 41 item 3: a group's signal is bounded by its members' watches — sized at most the
// smallest maxSolPerTrade among them, and counted against its own open positions and daily
// budget (the smallest of the members'), over the positions opened from the group's signals.
describe("a watch group's signal", () => {
  const W2 = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";

  /** Two watches grouped as "pair"; the agent acts on the group's signals only (strength 5). */
  async function pair(first: Record<string, unknown>, second: Record<string, unknown>) {
    const agentId = await c.agent();
    await c.request("PUT", `/api/v1/agents/${agentId}/config`, { config: { filters: { minSignalStrength: 5 } } });
    c.rpc.setSol(W2, 10);
    await c.watch({ signalStrength: 1, ...first });
    await c.watch({ address: W2, label: "two", signalStrength: 1, ...second });
    const res = await c.request("POST", "/api/v1/wallet-watch-groups", {
      name: "pair",
      addresses: [W, W2],
      minWallets: 2,
      signalStrength: 5,
    });
    expect(res.status).toBe(201);
    return agentId;
  }

  /** Both wallets buy `mint` in one round: the group's signal, decided. */
  async function bothBuy(mint: string) {
    c.ctx.clock.advance(1_000);
    for (const owner of [W, W2]) landBuy(c.rpc, owner, mint, c.ctx.clock.now());
    await round();
    return c.ctx.database.sqlite
      .query<{ reason: string | null; outcome: string }, [string]>(
        `SELECT e.reason, e.outcome FROM signal_evaluations e JOIN trading_signals s ON s.id = e.signal_id
         WHERE s.source = 'group:pair' AND s.token_address = ?`,
      )
      .get(mint);
  }

  test("is sized at most the smallest maxSolPerTrade of its members", async () => {
    c = await startCopy();
    const agentId = await pair({ maxSolPerTrade: 0.02 }, { maxSolPerTrade: 0.01 });
    expect(await bothBuy(MINT)).toEqual({ reason: null, outcome: "traded" });
    expect(openingSol(agentId)).toHaveLength(1);
    expect(openingSol(agentId)[0]).toBeLessThanOrEqual(0.01);
  });

  test("counts its own open positions against the smallest maxOpenPositions of its members", async () => {
    c = await startCopy();
    const agentId = await pair(
      { maxSolPerTrade: 0.01, maxOpenPositions: 5, dailySolBudget: 1 },
      { maxSolPerTrade: 0.01, maxOpenPositions: 1, dailySolBudget: 1 },
    );
    expect((await bothBuy(MINT))?.outcome).toBe("traded");
    expect((await bothBuy(MINT2))?.reason).toBe(
      "copy_max_open_positions: 1 positions copied from this group are open (its members' watches allow 1)",
    );
    expect(openingSol(agentId)).toHaveLength(1);
  });

  test("a group's daily budget is its smallest member's", async () => {
    c = await startCopy();
    const agentId = await pair(
      { maxSolPerTrade: 0.01, maxOpenPositions: 5, dailySolBudget: 0.015 },
      { maxSolPerTrade: 0.01, maxOpenPositions: 5, dailySolBudget: 1 },
    );
    expect((await bothBuy(MINT))?.outcome).toBe("traded");
    expect((await bothBuy(MINT2))?.reason).toStartWith("copy_daily_budget: 0.01 SOL copied from this group today;");
    expect(openingSol(agentId)).toHaveLength(1);
  });
});
