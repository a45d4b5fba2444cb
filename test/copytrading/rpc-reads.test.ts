import { describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { ManualClock } from "../../src/clock.ts";
import { RpcRequestBudget } from "../../src/market/rpc-budget.ts";
import { SolanaRpcClient, SolanaRpcError } from "../../src/market/solana-rpc.ts";
import { FakeSolanaRpc } from "../fakes/solana-rpc.ts";
import { fakeMarketPerFile } from "../helpers/fake-market.ts";

// The reads copy trading adds to the RPC client (getSignaturesForAddress; getTransaction's block
// time) against the fake node, and the request budget every request of the client counts in.

const MINT = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
const owner = Keypair.generate().publicKey.toBase58();

const fake = await fakeMarketPerFile();
const rpc = new FakeSolanaRpc(fake);
rpc.setSol(owner, 5);

describe("getSignaturesForAddress", () => {
  test("newest first, down to (not including) `until`, at most `limit`; block times and errors as listed", async () => {
    const budget = new RpcRequestBudget(new ManualClock());
    const client = new SolanaRpcClient({ url: rpc.url, timeoutMs: 2_000, budget });
    const trade = (blockTime: number, err?: unknown) =>
      rpc.walletTrade(owner, { side: "buy", mint: MINT, lamports: 10n ** 8n, tokens: 10n, blockTime, err });
    const a = trade(1_000);
    const b = trade(1_001, { InstructionError: [2, { Custom: 1 }] });
    const c = trade(1_002);
    const all = await client.getSignaturesForAddress(owner, { limit: 10 });
    expect(all.map((s) => s.signature)).toEqual([c, b, a]);
    expect(all[1]).toMatchObject({ blockTime: 1_001, err: { InstructionError: [2, { Custom: 1 }] } });
    expect((await client.getSignaturesForAddress(owner, { until: a, limit: 10 })).map((s) => s.signature)).toEqual([
      c,
      b,
    ]);
    expect((await client.getSignaturesForAddress(owner, { limit: 1 })).map((s) => s.signature)).toEqual([c]);
    const tx = await client.getTransaction(c);
    expect(tx?.blockTime).toBe(1_002);
    expect(budget.used()).toBe(4);
  });

  test("a malformed answer is a SolanaRpcError naming the method", async () => {
    fake.use({
      name: "solana.rpc.bad",
      method: "POST",
      match: (p) => p === "/bad-rpc",
      handle: () => Response.json({ jsonrpc: "2.0", id: 1, result: [{ slot: 1 }] }),
    });
    const client = new SolanaRpcClient({ url: `${fake.url}/bad-rpc`, timeoutMs: 2_000 });
    const err = await client.getSignaturesForAddress(owner, { limit: 5 }).catch((e) => e);
    expect(err).toBeInstanceOf(SolanaRpcError);
    expect(err.message).toBe("solanaRpc returned an unexpected response to getSignaturesForAddress");
  });
});

describe("RpcRequestBudget", () => {
  test("background requests stop at the ceiling within the window and resume as it slides", () => {
    const clock = new ManualClock();
    const budget = new RpcRequestBudget(clock, { windowMs: 10_000, limit: 100, backgroundCeiling: 3 });
    budget.record();
    clock.advance(4_000);
    budget.record();
    budget.record();
    expect(budget.allow()).toBe(false);
    clock.advance(6_000); // the first request leaves the window
    expect(budget.used()).toBe(2);
    expect(budget.allow()).toBe(true);
  });
});
