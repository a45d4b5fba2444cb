import { afterEach, describe, expect, test } from "bun:test";
import { json } from "../helpers/context.ts";
import { type CopyContext, MINT, MINT2, SOL_MINT, startCopy, W } from "./copy-context.ts";

// The copied token is the one the DEX instruction moved (issue 40, item 4), through the service
// on the fake node: getTransaction answers in json encoding with meta.innerInstructions, as a
// node reports what a swap program called. What the wallet did beside the swap (forwarding the
// token it bought, minting itself another one) never decides what the copiers buy.

let c: CopyContext;
afterEach(async () => {
  await c?.close();
});

const tradesOf = async (watchId: string) =>
  (await json(await c.request("GET", `/api/v1/wallet-watches/${watchId}/trades`))) as any[];

const OTHER = "Fr1endWa11et11111111111111111111111111111111";

describe("the copied mint is the one that reached the wallet inside the DEX instruction", () => {
  test("a leader who buys A through the DEX, forwards A and mints itself X: copiers buy A, never X", async () => {
    c = await startCopy();
    const agentId = await c.agent();
    const watch = await c.watch();
    c.ctx.clock.advance(1_000);
    const sig = c.trade({ sol: 0.5, forwardTo: OTHER, mintedBeside: { mint: MINT2, amount: 9_000_000_000n } });
    c.ctx.clock.advance(1_000);
    await c.tick();
    await c.settle();
    const signals = c.signals();
    expect(signals.map((s) => s.token_address)).toEqual([MINT]);
    const trades = await tradesOf(watch.id);
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({
      signature: sig,
      side: "buy",
      tokenAddress: MINT,
      solAmount: "0.5",
      tokenAmountAtomic: "5000000000",
    });
    const positions = (await json(await c.request("GET", `/api/v1/agent-positions/${agentId}`))) as any[];
    expect(positions.map((p) => p.tokenAddress)).toEqual([MINT]);
  });

  test("a sale: the token that left the wallet inside the DEX instruction, whatever else it was sent", async () => {
    c = await startCopy();
    c.rpc.setTokenBalance(W, MINT, 9_000_000_000n);
    const watch = await c.watch({ copySells: true });
    c.ctx.clock.advance(1_000);
    c.trade({ side: "sell", sol: 0.4, tokens: 1_000_000n, mintedBeside: { mint: MINT2, amount: 9_000_000_000n } });
    c.ctx.clock.advance(1_000);
    await c.tick();
    await c.settle();
    expect(c.signals().map((s) => [s.signal_type, s.token_address])).toEqual([["sell", MINT]]);
    expect((await tradesOf(watch.id))[0]).toMatchObject({ side: "sell", tokenAddress: MINT, solAmount: "0.4" });
  });

  test("wrapped SOL on both legs: a buy and a sale in wSOL count the SOL the instruction moved", async () => {
    c = await startCopy();
    c.rpc.setTokenBalance(W, SOL_MINT, 2_000_000_000n);
    const watch = await c.watch({ copySells: true });
    c.ctx.clock.advance(1_000);
    const at = () => Math.floor(c.ctx.clock.now() / 1000);
    c.rpc.walletTrade(W, {
      side: "buy",
      mint: MINT,
      lamports: 600_000_000n,
      tokens: 7n,
      blockTime: at(),
      wrapped: true,
    });
    c.ctx.clock.advance(1_000);
    c.rpc.walletTrade(W, {
      side: "sell",
      mint: MINT,
      lamports: 300_000_000n,
      tokens: 7n,
      blockTime: at(),
      wrapped: true,
    });
    c.ctx.clock.advance(1_000);
    await c.tick();
    await c.settle();
    const trades = await tradesOf(watch.id);
    expect(trades.map((t) => [t.side, t.tokenAddress, t.solAmount, t.tokenAmountAtomic]).sort()).toEqual([
      ["buy", MINT, "0.6", "7"],
      ["sell", MINT, "0.3", "7"],
    ]);
  });
});
