import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { tokenAccountsRent, walletSolDelta } from "../../src/market/landed-rent.ts";
import {
  type LandedTransaction,
  solDelta,
  tokenAccountLamportsDelta,
  tokenDelta,
} from "../../src/market/landed-transaction.ts";
import { SolanaRpcClient, SolanaRpcError } from "../../src/market/solana-rpc.ts";
import { SOL_MINT } from "../../src/money.ts";
import { type FakeMarket, startFakeMarket } from "../fakes/market.ts";
import { FakeSolanaRpc, TOKEN_2022_PROGRAM } from "../fakes/solana-rpc.ts";

// The JSON-RPC client (src/market/solana-rpc.ts; PRODUCT.md §5 "Solana RPC": HTTP only). Errors
// are ExternalServiceError("solanaRpc", ...) naming the source and the method, never the URL (RPC
// URLs often carry an API key).

let fake: FakeMarket;
let rpc: FakeSolanaRpc;
const owner = Keypair.generate().publicKey.toBase58();
const MINT_A = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
const MINT_B = "EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm";

beforeAll(async () => {
  fake = await startFakeMarket();
  rpc = new FakeSolanaRpc(fake);
});
afterAll(() => fake.stop());

const client = (url = `${rpc.url}?api-key=SECRETKEY123`, timeoutMs = 2_000) => new SolanaRpcClient({ url, timeoutMs });

async function failure(p: Promise<unknown>): Promise<SolanaRpcError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(SolanaRpcError);
    expect((err as Error).message).not.toContain("SECRETKEY123");
    expect((err as Error).message).not.toContain("127.0.0.1");
    return err as SolanaRpcError;
  }
  throw new Error("expected a SolanaRpcError");
}

describe("SolanaRpcClient", () => {
  test("balances: lamports, and tokens summed over both token programs", async () => {
    rpc.setSol(owner, "1.5");
    rpc.setTokenBalance(owner, MINT_A, 1_234_567n);
    rpc.tokenProgram.set(MINT_B, TOKEN_2022_PROGRAM);
    rpc.setTokenBalance(owner, MINT_B, 42n);
    const b = await client().getBalances(owner);
    expect(b.lamports).toBe(1_500_000_000n);
    expect([...b.tokens.entries()]).toEqual([
      [MINT_A, { amount: 1_234_567n, decimals: 6 }],
      [MINT_B, { amount: 42n, decimals: 6 }],
    ]);
  });

  test("a JSON-RPC error names the method and the node's code and message", async () => {
    rpc.failNext("getBalance", { code: -32005, message: "Node is behind by 42 slots" });
    const err = await failure(client().getBalance(owner));
    expect(err.message).toBe("solanaRpc error on getBalance (-32005): Node is behind by 42 slots");
    expect({ failure: err.failure, rpcCode: err.rpcCode, status: err.status, details: err.details }).toEqual({
      failure: "rpc",
      rpcCode: -32005,
      status: 502,
      details: { service: "solanaRpc" },
    });
  });

  test("an HTTP error status, malformed JSON, an unexpected shape", async () => {
    rpc.failNext("getBlockHeight", { status: 429, body: "Too many requests" });
    let err = await failure(client().getBlockHeight());
    expect([err.message, err.failure, err.details]).toEqual([
      "solanaRpc returned HTTP 429 to getBlockHeight",
      "status",
      { service: "solanaRpc", statusCode: 429 },
    ]);
    fake.inject("solana.rpc", { raw: "{not json" });
    err = await failure(client().getBlockHeight());
    expect([err.message, err.failure]).toEqual(["solanaRpc returned malformed JSON to getBlockHeight", "malformed"]);
    fake.inject("solana.rpc", { body: { jsonrpc: "2.0", id: 1, result: "tall" } });
    err = await failure(client().getBlockHeight());
    expect(err.message).toBe("solanaRpc returned an unexpected response to getBlockHeight");
  });

  test("a timeout and a refused connection", async () => {
    fake.inject("solana.rpc", { delayMs: 300 });
    let err = await failure(client(undefined, 50).getBlockHeight());
    expect([err.message, err.failure]).toEqual(["solanaRpc did not answer getBlockHeight within 50 ms", "timeout"]);
    err = await failure(client("http://127.0.0.1:1/?api-key=SECRETKEY123").getBlockHeight());
    expect([err.message, err.failure]).toEqual(["solanaRpc is unreachable (getBlockHeight)", "network"]);
  });

  test("deltas of a landed v0 transaction include loaded addresses", () => {
    const tx: LandedTransaction = {
      slot: 1,
      err: null,
      feeLamports: 5000n,
      accountKeys: ["payer", "program", "loadedWritable"],
      preBalances: [10n, 1n, 100n],
      postBalances: [4n, 1n, 103n],
      preTokenBalances: [{ accountIndex: -1, mint: "m", owner: "payer", amount: 5n, decimals: 0 }],
      postTokenBalances: [
        { accountIndex: -1, mint: "m", owner: "payer", amount: 9n, decimals: 0 },
        { accountIndex: -1, mint: "m", owner: "payer", amount: 1n, decimals: 0 },
        { accountIndex: -1, mint: "m", owner: "other", amount: 50n, decimals: 0 },
      ],
    };
    expect(solDelta(tx, "payer")).toBe(-6n);
    expect(solDelta(tx, "loadedWritable")).toBe(3n);
    expect(solDelta(tx, "absent")).toBe(0n);
    expect(tokenDelta(tx, "payer", "m")).toBe(5n);
  });

  test("the wallet's SOL counts its wrapped-SOL accounts; a token account's lamports are its rent", () => {
    // A sale that pays 0.1 SOL into the wallet's wSOL account (holding 0.5 wSOL + rent before) and
    // closes it: the wallet's lamports rise by all of it; the account's change takes back what
    // it held before. The mint's account (index 3) was created: its lamports are rent.
    const rent = 2_039_280n;
    const tx: LandedTransaction = {
      slot: 1,
      err: null,
      feeLamports: 5000n,
      accountKeys: ["wallet", "wsolAta", "pool", "mintAta"],
      preBalances: [1_000_000_000n, 500_000_000n + rent, 9n, 0n],
      postBalances: [1_000_000_000n + 600_000_000n + rent - 5000n - rent, 0n, 9n, rent],
      preTokenBalances: [{ accountIndex: 1, mint: SOL_MINT, owner: "wallet", amount: 500_000_000n, decimals: 9 }],
      postTokenBalances: [{ accountIndex: 3, mint: "m", owner: "wallet", amount: 0n, decimals: 6 }],
    };
    expect(solDelta(tx, "wallet")).toBe(100_000_000n - 5000n - rent);
    expect(tokenAccountLamportsDelta(tx, "wallet", "m")).toBe(rent);
    expect(tokenAccountLamportsDelta(tx, "wallet", SOL_MINT)).toBe(-(500_000_000n + rent));
    expect(tokenAccountLamportsDelta(tx, "other", "m")).toBe(0n);
    // Rent apart, any mint (docs/decisions/pnl-is-wallet-gain.md): the mint's new account put rent
    // in, the closed wSOL account gave its rent back (its 0.5 wrapped SOL is SOL, not rent).
    expect(tokenAccountsRent(tx, "wallet")).toEqual({ deposit: rent, refund: rent });
    expect(walletSolDelta(tx, "wallet")).toBe(100_000_000n - 5000n);
    expect(tokenAccountsRent(tx, "other")).toEqual({ deposit: 0n, refund: 0n });
  });

  test("rent of a token account the chain names another owner of is not the wallet's", () => {
    const rent = 2_039_280n;
    const tx: LandedTransaction = {
      slot: 1,
      err: null,
      feeLamports: 5000n,
      accountKeys: ["wallet", "theirs", "hop"],
      preBalances: [1_000_000_000n, 0n, 0n],
      postBalances: [1_000_000_000n - 2n * rent - 5000n, rent, rent],
      preTokenBalances: [],
      postTokenBalances: [
        { accountIndex: 1, mint: "m", owner: "third", amount: 0n, decimals: 6 },
        { accountIndex: 2, mint: "usdc", owner: "wallet", amount: 0n, decimals: 6 },
      ],
    };
    expect(tokenAccountsRent(tx, "wallet")).toEqual({ deposit: rent, refund: 0n });
    expect(walletSolDelta(tx, "wallet")).toBe(-(2n * rent + 5000n));
  });
});
