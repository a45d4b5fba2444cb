import { afterEach, describe, expect, test } from "bun:test";
import { json } from "../helpers/context.ts";
import { type CopyContext, MINT, MINT2, startCopy, W } from "./copy-context.ts";

// Watch groups (issue 33 item 5): N different wallets of a group buying the same mint within T
// make one signal of source group:<name>, once per mint per window, through the same never-twice
// and staleness rules as a single watch's copies.

const W2 = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
const W3 = "HN7cABqLq46Es1jh92dQQisAq662SmxELLLsHHe4YWrH";

let c: CopyContext;
afterEach(async () => {
  await c?.close();
});

const groupSignals = () =>
  c.ctx.database.sqlite.query("SELECT * FROM trading_signals WHERE source LIKE 'group:%' ORDER BY id").all() as any[];

function buy(owner: string, mint: string, sol = 0.5): string {
  return c.rpc.walletTrade(owner, {
    side: "buy",
    mint,
    lamports: BigInt(Math.round(sol * 1e9)),
    tokens: 1_000_000n,
    blockTime: Math.floor(c.ctx.clock.now() / 1000),
  });
}

async function round(ms = 1_000) {
  c.ctx.clock.advance(ms);
  await c.tick();
  await c.settle();
}

describe("watch groups", () => {
  test("2 of 3 wallets buying one mint within T make one group signal naming them; a third buyer and a second poll do not repeat it", async () => {
    c = await startCopy();
    for (const a of [W2, W3]) c.rpc.setSol(a, 10);
    await c.watch();
    await c.watch({ address: W2, label: "two" });
    await c.watch({ address: W3, label: "three" });
    const res = await c.request("POST", "/api/v1/wallet-watch-groups", {
      name: "smart-money",
      addresses: [W, W2, W3],
      windowSeconds: 300,
      minWallets: 2,
      signalStrength: 5,
    });
    expect(res.status).toBe(201);
    const group = await json(res);
    expect(group).toMatchObject({ name: "smart-money", windowSeconds: 300, minWallets: 2, enabled: true });

    c.ctx.clock.advance(1_000);
    buy(W, MINT);
    await round();
    expect(groupSignals()).toHaveLength(0);
    c.ctx.clock.advance(60_000);
    buy(W2, MINT);
    buy(W2, MINT2); // one wallet alone on this mint
    await round();
    const [s] = groupSignals();
    expect(groupSignals()).toHaveLength(1);
    expect(s).toMatchObject({
      source: "group:smart-money",
      signal_type: "buy",
      token_address: MINT,
      signal_strength: 5,
    });
    expect(s.activation_reason).toContain(W);
    expect(s.activation_reason).toContain(W2);

    buy(W3, MINT); // within the window: no second signal for the mint
    await round();
    await c.restart();
    await round();
    expect(groupSignals()).toHaveLength(1);
  });

  test("buys further apart than T do not count together; validation, update and delete", async () => {
    c = await startCopy();
    c.rpc.setSol(W2, 10);
    await c.watch();
    await c.watch({ address: W2 });
    const group = await json(
      await c.request("POST", "/api/v1/wallet-watch-groups", { name: "pair", addresses: [W, W2], windowSeconds: 30 }),
    );
    c.ctx.clock.advance(1_000);
    buy(W, MINT);
    await round();
    c.ctx.clock.advance(60_000);
    buy(W2, MINT);
    await round();
    expect(groupSignals()).toHaveLength(0);

    const bad = await c.request("POST", "/api/v1/wallet-watch-groups", {
      name: "x",
      addresses: [W, W2],
      minWallets: 3,
    });
    expect(bad.status).toBe(409);
    const dup = await c.request("POST", "/api/v1/wallet-watch-groups", { name: "pair", addresses: [W, W2] });
    expect(dup.status).toBe(409);
    const invalid = await c.request("POST", "/api/v1/wallet-watch-groups", { name: "bad name!", addresses: [W] });
    expect(invalid.status).toBe(400);
    const updated = await json(
      await c.request("PUT", `/api/v1/wallet-watch-groups/${group.id}`, { windowSeconds: 120 }),
    );
    expect(updated.windowSeconds).toBe(120);
    expect((await c.request("DELETE", `/api/v1/wallet-watch-groups/${group.id}`)).status).toBe(200);
    expect((await c.request("GET", `/api/v1/wallet-watch-groups/${group.id}`)).status).toBe(404);
  });
});
