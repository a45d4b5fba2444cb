import { afterEach, describe, expect, test } from "bun:test";
import { createApiKey, json } from "../helpers/context.ts";
import { type CopyContext, MINT, startCopy, W } from "./copy-context.ts";

// Issue 41 item 5 through the real watcher, intake and signal processor: an agent trades only the
// sources it chose (filters.sources), and a copied sell closes only a position opened from the
// same source (docs/decisions/close-all-and-sources.md).

const W2 = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";

let c: CopyContext;
afterEach(async () => {
  await c?.close();
});

async function round() {
  c.ctx.clock.advance(1_000);
  await c.tick();
  await c.settle();
}

const openPositions = (agentId: string) =>
  c.ctx.database.sqlite
    .query("SELECT id, token_address AS tokenAddress FROM positions WHERE agent_id = ? AND status = 'open'")
    .all(agentId) as Array<{ id: string; tokenAddress: string }>;

const trade = (owner: string, side: "buy" | "sell") =>
  c.rpc.walletTrade(owner, {
    side,
    mint: MINT,
    lamports: side === "buy" ? 1_000_000_000n : 400_000_000n,
    tokens: side === "buy" ? 5_000_000_000n : 1_000_000n,
    blockTime: Math.floor(c.ctx.clock.now() / 1000),
  });

async function setSources(agentId: string, sources: unknown) {
  return c.request("PUT", `/api/v1/agents/${agentId}/config`, { config: { filters: { sources } } });
}

describe("copied sells and sources", () => {
  test("a copied sell of wallet B leaves the position copied from wallet A; A's sell closes it", async () => {
    c = await startCopy();
    c.rpc.setSol(W2, 10);
    c.rpc.setTokenBalance(W2, MINT, 10_000_000n);
    await c.watch({ copySells: true });
    await c.watch({ address: W2, label: "Other whale", copySells: true });
    const agentId = await c.agent();
    c.ctx.clock.advance(1_000);
    trade(W, "buy");
    await round();
    expect(openPositions(agentId)).toHaveLength(1);

    trade(W2, "sell");
    await round();
    expect(openPositions(agentId)).toHaveLength(1);
    const sellOfB = c.signals().find((s) => s.source === `wallet:${W2}` && s.signal_type === "sell");
    const decided = await json(await c.request("GET", `/api/v1/trading-signals/${sellOfB.id}?include=processing`));
    expect(decided.processing.evaluations[0]).toMatchObject({ agentId, outcome: "ineligible", rule: "source" });
    expect(decided.processing.evaluations[0].reason).toContain(`wallet:${W}`);

    trade(W, "sell");
    await round();
    expect(openPositions(agentId)).toHaveLength(0);
  });

  test("an agent trades only the sources it lists; absent or empty means every source", async () => {
    c = await startCopy();
    c.rpc.setSol(W2, 10);
    await c.watch();
    await c.watch({ address: W2, label: "Other whale" });
    const key = await createApiKey(c.ctx, c.token, ["signals"], "momentum-bot");
    const followsA = await c.agent();
    const followsBot = await c.agent();
    const everything = await c.agent();
    expect((await setSources(followsA, [`wallet:${W}`])).status).toBe(200);
    expect((await setSources(followsBot, ["momentum-bot"])).status).toBe(200);
    const config = await json(await c.request("GET", `/api/v1/agents/${followsBot}/config`));
    expect(config.config.filters.sources).toEqual(["momentum-bot"]);
    expect((await json(await c.request("GET", `/api/v1/agents/${everything}/config`))).config.filters.sources).toEqual(
      [],
    );

    c.ctx.clock.advance(1_000);
    trade(W2, "buy");
    await round();
    expect(openPositions(followsA)).toHaveLength(0);
    expect(openPositions(followsBot)).toHaveLength(0);
    expect(openPositions(everything)).toHaveLength(1);

    c.ctx.clock.advance(1_000);
    trade(W, "buy");
    await round();
    expect(openPositions(followsA)).toHaveLength(1);
    expect(openPositions(followsBot)).toHaveLength(0);

    const res = await c.ctx.request("POST", "/api/v1/trading-signals", {
      apiKey: key.key,
      body: { tokenAddress: MINT, signalType: "buy", signalStrength: 5 },
    });
    expect(res.status).toBe(201);
    const signal = await json(res);
    await c.settle();
    expect(openPositions(followsBot)).toHaveLength(1);
    const decided = await json(await c.request("GET", `/api/v1/trading-signals/${signal.id}?include=processing`));
    const ofA = decided.processing.evaluations.find((e: any) => e.agentId === followsA);
    expect(ofA).toMatchObject({ outcome: "ineligible", rule: "source" });
    expect(ofA.reason).toContain("momentum-bot");
  });

  test("filters.sources is checked: its forms, and that each named source exists", async () => {
    c = await startCopy();
    await c.watch();
    const agentId = await c.agent();
    const cases: Array<[unknown, string]> = [
      ["momentum-bot", "filters.sources must be an array of sources"],
      [["wallet:not-an-address"], "filters.sources.0 must be wallet:<base58 address>"],
      [["group:"], "filters.sources.0 must name a group after group:"],
      [[""], "filters.sources.0 must not be empty"],
      [["nobody-has-this-key"], 'filters.sources.0: no API key named "nobody-has-this-key"'],
      [[`wallet:${W2}`], `filters.sources.0: no watched wallet ${W2}`],
      [["group:whales"], 'filters.sources.0: no watch group named "whales"'],
    ];
    for (const [sources, detail] of cases) {
      const res = await setSources(agentId, sources);
      expect(res.status).toBe(400);
      const body = await json(res);
      expect(body.error).toBe("Invalid trading configuration");
      expect(body.details).toContain(detail);
    }
    // Hooks (issue 42) are accepted by their form; a followed wallet by its address.
    const ok = await setSources(agentId, [`wallet:${W}`, "hook:tradingview"]);
    expect(ok.status).toBe(200);
    expect((await json(ok)).config.filters.sources).toEqual([`wallet:${W}`, "hook:tradingview"]);
  });
});
