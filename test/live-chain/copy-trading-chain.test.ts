import { afterAll, beforeAll, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { detectTrade } from "../../src/copytrading/detect.ts";
import { RpcRequestBudget } from "../../src/market/rpc-budget.ts";
import { SolanaRpcClient } from "../../src/market/solana-rpc.ts";
import { RpcWalletActivity } from "../../src/market/wallet-activity.ts";
import type { Pool } from "../fakes/chain-aggregator.ts";
import { type ChainContext, signedBase64, startChain } from "./chain-context.ts";

// Copy trading on a real runtime (issue "Copy trading" item 6): a wallet's real swaps, built by
// the chain aggregator and executed by litesvm, read back through the service's own RPC reads
// (getSignaturesForAddress, getTransaction) and classified by the copy-trading rule.

let c: ChainContext;
let pool: Pool;

beforeAll(async () => {
  c = await startChain();
  pool = c.aggregator.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 }); // 0.001 SOL per token
});
afterAll(() => c.close());

test("a real buy and a real sell of the watched wallet are detected as such, with the amounts swapped", async () => {
  const budget = new RpcRequestBudget(new ManualClock());
  const source = new RpcWalletActivity(new SolanaRpcClient({ url: c.chain.url, timeoutMs: 5_000, budget }), budget);
  const owner = c.wallet.publicKey.toBase58();
  const min = 100_000_000n;

  const buy = await c.swap("buy", pool, 500_000_000n);
  const buySig = await c.rpc.sendTransaction(signedBase64(buy.tx, c.wallet), { skipPreflight: false });
  c.chain.advance(1);
  const sell = await c.swap("sell", pool, buy.outAmount / 2n);
  const sellSig = await c.rpc.sendTransaction(signedBase64(sell.tx, c.wallet), { skipPreflight: false });
  c.chain.advance(1);

  // Newest first; the aggregator's own set-up transactions that name the wallet are listed too.
  const listed = (await source.signatures(owner, null, 100)).map((s) => s.signature);
  expect(listed.indexOf(sellSig)).toBeGreaterThanOrEqual(0);
  expect(listed.indexOf(sellSig)).toBeLessThan(listed.indexOf(buySig));
  const after = (await source.signatures(owner, buySig, 100)).map((s) => s.signature);
  expect(after).toContain(sellSig);
  expect(after).not.toContain(buySig);
  for (const other of listed.filter((s) => s !== buySig && s !== sellSig))
    expect(detectTrade((await source.transaction(other))!, owner, min).kind).toBe("ignored");

  const bought = detectTrade((await source.transaction(buySig))!, owner, min);
  expect(bought).toEqual({
    kind: "buy",
    mint: pool.mint.toBase58(),
    solLamports: expect.any(BigInt),
    tokenAmount: buy.outAmount,
  } as never);
  // What the wallet parted with, fee left out: the swap's input (plus the token account's rent
  // when the swap created it).
  const spent = (bought as { solLamports: bigint }).solLamports;
  expect(spent >= 500_000_000n && spent <= 500_000_000n + 2_100_000n).toBe(true);

  const sold = detectTrade((await source.transaction(sellSig))!, owner, min);
  expect(sold).toMatchObject({ kind: "sell", mint: pool.mint.toBase58(), tokenAmount: buy.outAmount / 2n });
  // Under a minimum above what the sale brought: ignored.
  expect(detectTrade((await source.transaction(sellSig))!, owner, 10n ** 12n)).toEqual({
    kind: "ignored",
    reason: "below_minimum",
  });
});
