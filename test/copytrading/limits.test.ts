import { afterEach, describe, expect, test } from "bun:test";
import { json } from "../helpers/context.ts";
import { type CopyContext, MINT2, startCopy } from "./copy-context.ts";

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
