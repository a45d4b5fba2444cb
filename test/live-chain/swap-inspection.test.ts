import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { getAssociatedTokenAddressSync, NATIVE_MINT } from "@solana/spl-token";
import { solDelta, tokenDelta } from "../../src/market/landed-transaction.ts";
import { SOL_MINT } from "../../src/money.ts";
import { rpcInspectorChain } from "../../src/trading/live/chain-reads.ts";
import { allowedPrograms } from "../../src/trading/live/inspection-rules.ts";
import { inspectSwapTransaction, SwapRefusedError } from "../../src/trading/live/transaction-inspector.ts";
import { MEMO_PROGRAM, type Pool } from "../fakes/chain-aggregator.ts";
import { type ChainContext, signedBase64, startChain, WALLET_LAMPORTS } from "./chain-context.ts";

// The inspector against real swaps on litesvm: honest buys and sells pass and land with the
// balances the quote promised; a hostile or foreign-program swap is refused before the wallet
// signs anything.

const MAX_FEE = 1_005_000n; // 5000 signature + 0.001 SOL priority cap
let c: ChainContext;
let pool: Pool;
let wallet: string;

beforeEach(async () => {
  c = await startChain();
  pool = c.aggregator.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 }); // 0.001 SOL per token
  wallet = c.wallet.publicKey.toBase58();
});
afterEach(() => c.close());

const inspect = (
  tx: Parameters<typeof inspectSwapTransaction>[1]["transaction"],
  intent: Parameters<typeof inspectSwapTransaction>[1]["intent"],
  extra: string[] = [],
) =>
  inspectSwapTransaction(
    { chain: rpcInspectorChain(c.rpc), allowedPrograms: allowedPrograms(extra) },
    { transaction: tx, wallet, intent, maxFeeLamports: MAX_FEE },
  );

async function buy(lamports: bigint) {
  const s = await c.swap("buy", pool, lamports);
  const report = await inspect(s.tx, s.intent);
  const sig = await c.rpc.sendTransaction(signedBase64(s.tx, c.wallet), { skipPreflight: false });
  const landed = await c.rpc.getTransaction(sig);
  return { s, report, landed: landed! };
}

describe("honest swaps pass inspection and land", () => {
  test("buy: lookup table resolved, 0.1 SOL spent (+ fee + token-account rent), quoted tokens received", async () => {
    const { s, report, landed } = await buy(100_000_000n);
    expect(s.tx.message.addressTableLookups.length).toBe(1);
    expect(report.accountKeys).toContain(pool.tokenAccount.toBase58()); // only in the lookup table
    expect(report.feeLamports).toBe(105_000n); // 5000 + 100_000 priority
    expect(report.effect.tokenDelta).toBe(100_000_000n); // 100 tokens of 6 decimals
    expect(report.effect.newAccountRent).toBe(2_039_280n); // one classic token account
    expect(report.effect.solOut).toBe(100_000_000n + 105_000n);

    expect(landed.err).toBeNull();
    expect(landed.feeLamports).toBe(105_000n);
    expect(solDelta(landed, wallet)).toBe(-(100_000_000n + 105_000n + 2_039_280n));
    expect(tokenDelta(landed, wallet, pool.mint.toBase58())).toBe(s.outAmount);
    expect(c.chain.lamportsOf(wallet)).toBe(WALLET_LAMPORTS - 100_000_000n - 105_000n - 2_039_280n);
    const held = await c.rpc.getTokenBalances(wallet);
    expect(held.get(pool.mint.toBase58())).toEqual({ amount: 100_000_000n, decimals: 6 });
  });

  test("sell: tokens go back, SOL comes in through a wrapped-SOL account closed in the same transaction", async () => {
    await buy(100_000_000n);
    const before = c.chain.lamportsOf(wallet);
    const s = await c.swap("sell", pool, 40_000_000n); // 40 tokens → 0.04 SOL
    const report = await inspect(s.tx, s.intent);
    expect(report.effect.tokenDelta).toBe(-40_000_000n);
    expect(report.effect.solOut).toBe(-(40_000_000n - report.feeLamports));
    const sig = await c.rpc.sendTransaction(signedBase64(s.tx, c.wallet), { skipPreflight: false });
    const landed = (await c.rpc.getTransaction(sig))!;
    expect(landed.err).toBeNull();
    expect(solDelta(landed, wallet)).toBe(40_000_000n - 105_000n);
    expect(c.chain.lamportsOf(wallet)).toBe(before + 40_000_000n - 105_000n);
    expect(tokenDelta(landed, wallet, pool.mint.toBase58())).toBe(-40_000_000n);
    const wsol = getAssociatedTokenAddressSync(NATIVE_MINT, c.wallet.publicKey).toBase58();
    expect(landed.accountKeys).toContain(wsol);
    expect((await c.rpc.call<{ value: unknown }>("getAccountInfo", [wsol, { encoding: "base64" }])).value).toBeNull();
    expect((await c.rpc.getTokenBalances(wallet)).get(pool.mint.toBase58())?.amount).toBe(60_000_000n);
    expect((await c.rpc.getTokenBalances(wallet)).has(SOL_MINT)).toBe(false); // wSOL account closed
  });

  test("Token-2022 with a 1% transfer fee: the wallet receives the quote net of the fee", async () => {
    pool = c.aggregator.addPool({ lamportsPerToken: 1_000_000n, token2022: true, transferFeeBps: 100 });
    const { s, report, landed } = await buy(100_000_000n);
    expect(s.outAmount).toBe(99_000_000n);
    expect(report.effect.tokenDelta).toBe(99_000_000n);
    expect(tokenDelta(landed, wallet, pool.mint.toBase58())).toBe(99_000_000n);
    // The Token-2022 account carries the TransferFeeAmount extension: more rent than 165 bytes.
    expect(report.effect.newAccountRent).toBeGreaterThan(2_039_280n);
    expect((await c.rpc.getTokenBalances(wallet)).get(pool.mint.toBase58())?.amount).toBe(99_000_000n);
  });
});

describe("refused before signing", () => {
  test("hostile: an extra SOL transfer to a third address is refused by the message's instructions, nothing is sent", async () => {
    c.aggregator.mode = "hostile";
    const s = await c.swap("buy", pool, 100_000_000n);
    const err = await inspect(s.tx, s.intent).catch((e) => e);
    expect(err).toBeInstanceOf(SwapRefusedError);
    expect(err.code).toBe("TRADING_ERROR");
    expect(err.check).toBe("sol");
    expect(err.message).toContain(`transfer 50000000 lamports from the wallet to ${c.aggregator.thief.toBase58()}`);
    expect(c.chain.sends).toEqual([]);
    expect(c.chain.lamportsOf(c.aggregator.thief)).toBe(0n);
    // The same transaction signed would indeed have paid the thief: the refusal is what stopped it.
    const sig = await c.rpc.sendTransaction(signedBase64(s.tx, c.wallet), { skipPreflight: false });
    expect((await c.rpc.getTransaction(sig))?.err).toBeNull();
    expect(c.chain.lamportsOf(c.aggregator.thief)).toBe(50_000_000n);
  });

  test("hostile sell: SOL out of the wallet beyond fees is refused", async () => {
    await buy(100_000_000n);
    c.aggregator.mode = "hostile";
    c.aggregator.hostileLamports = 1_000_000n;
    const s = await c.swap("sell", pool, 10_000_000n);
    const err = await inspect(s.tx, s.intent).catch((e) => e);
    expect(err).toBeInstanceOf(SwapRefusedError);
    expect(err.check).toBe("sol");
  });

  test("foreign program: a program outside the allow-list is refused without simulating", async () => {
    c.aggregator.mode = "foreign-program";
    const s = await c.swap("buy", pool, 100_000_000n);
    const err = await inspect(s.tx, s.intent).catch((e) => e);
    expect(err).toBeInstanceOf(SwapRefusedError);
    expect(err.check).toBe("programs");
    expect(err.message).toContain(MEMO_PROGRAM.toBase58());
    expect(c.chain.calls.map((x) => x.method)).not.toContain("simulateTransaction");
    // LIVE_EXTRA_PROGRAMS lets an operator allow it.
    const report = await inspect(s.tx, s.intent, [MEMO_PROGRAM.toBase58()]);
    expect(report.programIds).toContain(MEMO_PROGRAM.toBase58());
  });

  test("a quote threshold the swap does not meet is refused (tokens received < otherAmountThreshold)", async () => {
    const s = await c.swap("buy", pool, 100_000_000n, { slippageBps: 0 });
    const err = await inspect(s.tx, { ...s.intent, minOutAmount: s.intent.minOutAmount + 1n }).catch((e) => e);
    // Since issue 40 the route's own bytes are read first: its on-chain minimum is below ours.
    expect(err.check).toBe("route");
    expect(err.message).toContain(`enforces a minimum of ${s.intent.minOutAmount} on chain`);
  });

  test("a sell that takes more tokens than intended is refused", async () => {
    await buy(100_000_000n);
    const s = await c.swap("sell", pool, 40_000_000n);
    const err = await inspect(s.tx, { ...s.intent, inAmount: 30_000_000n }).catch((e) => e);
    expect(err.check).toBe("tokens");
    expect(err.message).toContain("moves 40000000 units of the input out; the input is 30000000");
  });

  test("a fee above the cap is refused", async () => {
    const s = await c.swap("buy", pool, 100_000_000n, { priorityFee: 5_000_000 });
    const err = await inspect(s.tx, s.intent).catch((e) => e);
    expect(err.check).toBe("fee");
  });

  test("a swap that would fail on chain is refused", async () => {
    const s = await c.swap("buy", pool, 10_000_000_000n); // more SOL than the wallet has
    const err = await inspect(s.tx, s.intent).catch((e) => e);
    expect(err.check).toBe("simulation");
  });
});
