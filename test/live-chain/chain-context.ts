import { Keypair, VersionedTransaction } from "@solana/web3.js";
import { HttpClient } from "../../src/market/http-client.ts";
import { JupiterSwapClient } from "../../src/market/jupiter-swap.ts";
import { JupiterSwapV2Client } from "../../src/market/jupiter-swap-v2.ts";
import { SolanaRpcClient } from "../../src/market/solana-rpc.ts";
import { SOL_MINT } from "../../src/money.ts";
import type { SwapIntent } from "../../src/trading/live/inspection-rules.ts";
import { type ChainAggregator, type Pool, startChainAggregator } from "../fakes/chain-aggregator.ts";
import { type LiteSvmRpc, startLiteSvmRpc } from "../fakes/litesvm-rpc.ts";

// A litesvm chain behind its JSON-RPC shim, the fake Jupiter building real swaps on it, a funded
// wallet, and the production RPC and swap clients pointed at them.

export interface ChainContext {
  chain: LiteSvmRpc;
  aggregator: ChainAggregator;
  rpc: SolanaRpcClient;
  swaps: JupiterSwapClient;
  /** The Swap API v2 client in `build` mode, on the same aggregator. */
  buildSwaps: JupiterSwapV2Client;
  wallet: Keypair;
  /** Quote and unsigned swap transaction, as the live path gets them, with the intent to inspect. */
  swap(
    side: "buy" | "sell",
    pool: Pool,
    amount: bigint,
    opts?: { slippageBps?: number; priorityFee?: number },
  ): Promise<{ tx: VersionedTransaction; intent: SwapIntent; outAmount: bigint }>;
  close(): Promise<void>;
}

export const WALLET_LAMPORTS = 5_000_000_000n;

/** The production HTTP client for a fake on 127.0.0.1, without retries: a test sees each answer. */
export const noRetryHttp = (service: string, baseUrl: string): HttpClient =>
  new HttpClient({ service, baseUrl, timeoutMs: 5_000, retry: { maxRetries: 0 } });

export async function startChain(): Promise<ChainContext> {
  const chain = await startLiteSvmRpc();
  const aggregator = await startChainAggregator(chain);
  const rpc = new SolanaRpcClient({ url: chain.url, timeoutMs: 5_000 });
  const swaps = new JupiterSwapClient(noRetryHttp("swapAggregator", aggregator.url));
  const buildSwaps = new JupiterSwapV2Client(noRetryHttp("swapAggregator", aggregator.url), { api: "build" });
  const wallet = Keypair.generate();
  chain.airdrop(wallet.publicKey, WALLET_LAMPORTS);
  return {
    chain,
    aggregator,
    rpc,
    swaps,
    buildSwaps,
    wallet,
    async swap(side, pool, amount, opts = {}) {
      const mint = pool.mint.toBase58();
      const quote = await swaps.quote({
        inputMint: side === "buy" ? SOL_MINT : mint,
        outputMint: side === "buy" ? mint : SOL_MINT,
        amount: amount.toString(),
        slippageBps: opts.slippageBps ?? 100,
      });
      const s = await swaps.swapTransaction(quote, wallet.publicKey.toBase58(), opts.priorityFee ?? 100_000);
      return {
        tx: VersionedTransaction.deserialize(Buffer.from(s.swapTransaction, "base64")),
        intent: { side, mint, inAmount: amount, minOutAmount: BigInt(quote.otherAmountThreshold) },
        outAmount: BigInt(quote.outAmount),
      };
    },
    async close() {
      await aggregator.stop();
      await chain.stop();
    },
  };
}

export const signedBase64 = (tx: VersionedTransaction, signer: Keypair): string => {
  tx.sign([signer]);
  return Buffer.from(tx.serialize()).toString("base64");
};
