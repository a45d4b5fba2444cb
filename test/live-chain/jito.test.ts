import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { ProviderError } from "../../src/market/http-client.ts";
import { bundleSucceeded, JitoClient } from "../../src/market/jito.ts";
import type { JupiterSwapV2Client } from "../../src/market/jupiter-swap-v2.ts";
import { SOL_MINT } from "../../src/money.ts";
import { prepareBuildSwap } from "../../src/trading/live/build-assembly.ts";
import { rpcInspectorChain } from "../../src/trading/live/chain-reads.ts";
import { allowedPrograms } from "../../src/trading/live/inspection-rules.ts";
import { SwapRefusedError } from "../../src/trading/live/transaction-inspector.ts";
import type { Pool } from "../fakes/chain-aggregator.ts";
import { type FakeJitoBlockEngine, startFakeJitoBlockEngine } from "../fakes/jito-block-engine.ts";
import { type ChainContext, noRetryHttp, signedBase64, startChain, WALLET_LAMPORTS } from "./chain-context.ts";

// MEV-protected sending: the assembled build swap carries one tip to a block-engine tip account
// (inspected like any transfer), goes out as a Jito bundle and lands on litesvm; statuses come
// from getBundleStatuses and, as for any send, from the chain by signature.

const TIP = 10_000n;
const TOKEN_RENT = 2_039_280n;
let c: ChainContext;
let pool: Pool;
let engine: FakeJitoBlockEngine;
let jito: JitoClient;
let v2: JupiterSwapV2Client;

beforeEach(async () => {
  c = await startChain();
  engine = await startFakeJitoBlockEngine(c.chain);
  pool = c.aggregator.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
  jito = new JitoClient(noRetryHttp("jitoBlockEngine", engine.url));
  v2 = c.buildSwaps;
});
afterEach(async () => {
  await engine.stop();
  await c.close();
});

async function tippedBuy(lamports: bigint, tip = TIP, maxTip = TIP) {
  const wallet = c.wallet.publicKey.toBase58();
  const { build, quote } = await v2.build(
    { inputMint: SOL_MINT, outputMint: pool.mint.toBase58(), amount: lamports.toString(), slippageBps: 100 },
    wallet,
  );
  const account = await jito.tipAccount(0.5);
  return prepareBuildSwap(
    { chain: rpcInspectorChain(c.rpc) },
    {
      build,
      taker: wallet,
      intent: {
        side: "buy",
        mint: pool.mint.toBase58(),
        inAmount: lamports,
        minOutAmount: BigInt(quote.otherAmountThreshold),
      },
      blockhash: c.chain.latestBlockhash().blockhash,
      computeUnitLimit: 200_000,
      microLamportsPerUnit: 0n,
      allowedPrograms: allowedPrograms(),
      maxFeeLamports: 1_005_000n,
      tip: { account, lamports: tip, tipAccounts: new Set(await jito.tipAccounts()), maxTipLamports: maxTip },
    },
  );
}

describe("Jito bundles", () => {
  test("a tipped build swap is inspected, sent as a bundle, lands; the tip is the one extra lamport movement", async () => {
    const p = await tippedBuy(100_000_000n);
    expect(p.report.instructions.tipLamports).toBe(TIP);
    expect(p.report.effect.solOut).toBe(100_000_000n + 5_000n + TIP);
    const tipAccount = engine.tipAccounts[4]!;
    const before = c.chain.lamportsOf(tipAccount);
    const signed = signedBase64(p.transaction, c.wallet);
    const bundleId = await jito.sendBundle([signed]);
    expect(engine.requests.find((r) => r.method === "sendBundle")?.params).toEqual([[signed], { encoding: "base64" }]);
    const { statuses } = await jito.bundleStatuses([bundleId]);
    expect(statuses[0]?.confirmation_status).toBe("confirmed");
    expect(bundleSucceeded(statuses[0]!)).toBe(true);
    const sig = statuses[0]!.transactions[0]!;
    const onChain = (await c.rpc.getSignatureStatuses([sig], { searchTransactionHistory: true }))[0];
    expect(onChain).not.toBeNull();
    expect(onChain?.err).toBeNull();
    expect(c.chain.lamportsOf(tipAccount) - before).toBe(TIP);
    expect(c.chain.lamportsOf(c.wallet.publicKey)).toBe(WALLET_LAMPORTS - 100_000_000n - 5_000n - TIP - TOKEN_RENT);
    expect(engine.requests.filter((r) => r.method === "getTipAccounts").length).toBe(1); // read once
  });

  test("a dropped bundle: no status from Jito nor the chain; the same signed bytes sent again land once", async () => {
    const p = await tippedBuy(10_000_000n);
    const signed = signedBase64(p.transaction, c.wallet);
    engine.dropNext = true;
    const first = await jito.sendBundle([signed]);
    expect((await jito.bundleStatuses([first])).statuses).toEqual([null]);
    const sig = engine.bundles.get(first)!.signatures[0]!;
    expect((await c.rpc.getSignatureStatuses([sig], { searchTransactionHistory: true }))[0]).toBeNull();
    const again = await jito.sendBundle([signed]);
    expect(again).toBe(first); // same transactions, same bundle
    expect((await jito.bundleStatuses([again])).statuses[0]?.transactions).toEqual([sig]);
    expect(c.chain.landed.has(sig)).toBe(true);
  });

  test("a tip above JITO_TIP_LAMPORTS is refused before signing; a bundle without a tip is the engine's error", async () => {
    const err = await tippedBuy(10_000_000n, TIP + 1n).catch((e) => e);
    expect(err).toBeInstanceOf(SwapRefusedError);
    expect(err.check).toBe("fee");
    expect(engine.requests.some((r) => r.method === "sendBundle")).toBe(false);
    const s = await c.swap("buy", pool, 10_000_000n); // an untipped (v1) swap
    const noTip = await jito.sendBundle([signedBase64(s.tx, c.wallet)]).catch((e) => e);
    expect(noTip).toBeInstanceOf(ProviderError);
    expect(noTip.message).toContain("tip account");
  });
});
