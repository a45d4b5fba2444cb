import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Keypair, SystemProgram, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import { SolanaRpcError } from "../../src/market/solana-rpc.ts";
import { BLOCKHASH_VALIDITY } from "../fakes/litesvm-rpc.ts";
import { type ChainContext, startChain, WALLET_LAMPORTS } from "./chain-context.ts";

// The JSON-RPC shim itself: what the live code relies on it to do like a real node.

let c: ChainContext;
beforeEach(async () => {
  c = await startChain();
});
afterEach(() => c.close());

function transfer(lamports: number, blockhash = c.chain.latestBlockhash().blockhash): VersionedTransaction {
  const to = Keypair.generate().publicKey;
  const msg = new TransactionMessage({
    payerKey: c.wallet.publicKey,
    recentBlockhash: blockhash,
    instructions: [SystemProgram.transfer({ fromPubkey: c.wallet.publicKey, toPubkey: to, lamports })],
  }).compileToV0Message();
  const tx = new VersionedTransaction(msg);
  tx.sign([c.wallet]);
  return tx;
}
const b64 = (tx: VersionedTransaction) => Buffer.from(tx.serialize()).toString("base64");

describe("clock and blockhashes", () => {
  test("getLatestBlockhash is valid for 150 blocks; advancing past it rotates the hash and refuses the old one", async () => {
    const first = await c.rpc.call<any>("getLatestBlockhash", [{ commitment: "confirmed" }]);
    expect(first.value.lastValidBlockHeight).toBe((await c.rpc.getBlockHeight()) + BLOCKHASH_VALIDITY);
    const tx = transfer(1_000_000, first.value.blockhash);
    c.chain.advance(BLOCKHASH_VALIDITY);
    expect((await c.rpc.call<any>("getLatestBlockhash", [])).value.blockhash).toBe(first.value.blockhash);
    c.chain.advance(1);
    expect(await c.rpc.getBlockHeight()).toBe(first.value.lastValidBlockHeight + 1);
    expect((await c.rpc.call<any>("getLatestBlockhash", [])).value.blockhash).not.toBe(first.value.blockhash);
    const err = await c.rpc.sendTransaction(b64(tx), { skipPreflight: false }).catch((e: any) => e);
    expect(err).toBeInstanceOf(SolanaRpcError);
    expect(err.rpcCode).toBe(-32002);
    expect(err.message).toContain("BlockhashNotFound");
    const sig = await c.rpc.sendTransaction(b64(tx), { skipPreflight: true }); // accepted, never lands
    expect(await c.rpc.getSignatureStatuses([sig], { searchTransactionHistory: true })).toEqual([null]);
  });

  test("minContextSlot past the node's slot answers -32016; getSlot and getEpochInfo follow advance()", async () => {
    const slot = await c.rpc.call<number>("getSlot", []);
    c.chain.advance(5);
    expect(await c.rpc.call<number>("getSlot", [])).toBe(slot + 5);
    c.chain.lagSlots = 2;
    const err = await c.rpc
      .call<any>("getBalance", [c.wallet.publicKey.toBase58(), { minContextSlot: slot + 5 }])
      .catch((e: any) => e);
    expect(err.rpcCode).toBe(-32016);
    const info = await c.rpc.call<any>("getEpochInfo", []);
    expect(info.absoluteSlot).toBe(slot + 3);
  });
});

describe("transactions", () => {
  test("sendTransaction verifies signatures", async () => {
    const tx = transfer(1_000_000);
    tx.signatures[0] = new Uint8Array(64);
    const err = await c.rpc.sendTransaction(b64(tx), { skipPreflight: true }).catch((e: any) => e);
    expect(err.rpcCode).toBe(-32003);
  });

  test("error-but-land: the node answers an error and the transaction is on chain", async () => {
    c.chain.sendModes.push({ kind: "error-but-land", error: { code: -32005, message: "Node is behind" } });
    const tx = transfer(1_000_000);
    const err = await c.rpc.sendTransaction(b64(tx), { skipPreflight: true }).catch((e: any) => e);
    expect(err.rpcCode).toBe(-32005);
    const sig = c.chain.sends[0]!;
    const [status] = await c.rpc.getSignatureStatuses([sig], { searchTransactionHistory: true });
    expect(status?.confirmationStatus).toBe("confirmed");
    expect(c.chain.lamportsOf(c.wallet.publicKey)).toBe(WALLET_LAMPORTS - 1_000_000n - 5_000n);
  });

  test("a landed failure charges the fee and reports the instruction error", async () => {
    const sig = await c.rpc.sendTransaction(b64(transfer(Number(WALLET_LAMPORTS))), { skipPreflight: true });
    const landed = await c.rpc.getTransaction(sig);
    expect(landed?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(landed?.feeLamports).toBe(5_000n);
    expect(c.chain.lamportsOf(c.wallet.publicKey)).toBe(WALLET_LAMPORTS - 5_000n);
  });

  test("getTransaction of a v0 transaction needs maxSupportedTransactionVersion 0", async () => {
    const sig = await c.rpc.sendTransaction(b64(transfer(1_000_000)), { skipPreflight: false });
    const err = await c.rpc.call<any>("getTransaction", [sig, { encoding: "json" }]).catch((e: any) => e);
    expect(err.rpcCode).toBe(-32015);
    expect((await c.rpc.getTransaction(sig))?.err).toBeNull();
  });

  test("simulateTransaction refuses sigVerify with replaceRecentBlockhash, and returns requested accounts", async () => {
    const tx = transfer(1_000_000);
    const err = await c.rpc
      .call<any>("simulateTransaction", [
        b64(tx),
        { encoding: "base64", sigVerify: true, replaceRecentBlockhash: true },
      ])
      .catch((e: any) => e);
    expect(err.rpcCode).toBe(-32602);
    const r = await c.rpc.call<any>("simulateTransaction", [
      b64(tx),
      {
        encoding: "base64",
        sigVerify: true,
        accounts: { encoding: "base64", addresses: [c.wallet.publicKey.toBase58()] },
      },
    ]);
    expect(r.value.err).toBeNull();
    expect(r.value.accounts[0].lamports).toBeLessThan(Number(WALLET_LAMPORTS) - 1_000_000 + 1);
    expect(c.chain.lamportsOf(c.wallet.publicKey)).toBe(WALLET_LAMPORTS); // nothing happened
  });
});
