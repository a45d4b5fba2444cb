import type { Logger } from "../../logger.ts";
import { tokenAccountsRent, walletSolDelta } from "../../market/landed-rent.ts";
import { type LandedTransaction, tokenDelta } from "../../market/landed-transaction.ts";
import type { ChainBalances } from "../../market/solana-rpc.ts";
import type { Quote } from "../../market/types.ts";
import { fromAtomic, SOL_DECIMALS } from "../../money.ts";
import type { SwapFill } from "../executor.ts";

// What a landed live swap filled, read from the chain (the judge stage's numbers, the record
// stage's input): the executor, both send paths (send-swap.ts, order-swap.ts) and the settlement
// share it, so it stands here, a leaf, and none of them imports another for it.

interface LiveChainResult {
  signature: string;
  lastValidBlockHeight: number;
  /** Balances of the wallet read after confirmation; null while the outcome is unknown. */
  balancesAfter: ChainBalances | null;
  /** The slot the swap was confirmed in (balancesAfter was read at or after it); absent while pending. */
  slot?: number;
}

/** A live fill: the engine's SwapFill plus what the settlement needs from the chain. */
export interface LiveSwapFill extends SwapFill {
  live: LiveChainResult;
}

export const isLiveFill = (f: SwapFill): f is LiveSwapFill =>
  "live" in f && typeof (f as LiveSwapFill).live?.signature === "string";

export const EXPIRED_MESSAGE =
  "The swap transaction expired before it was confirmed (blockhash expired); nothing changed";

/**
 * The swap's real amounts from the transaction's pre/post balances (docs/decisions/
 * pnl-is-wallet-gain.md): the SOL side is the wallet's change as walletSolDelta sees it (lamports
 * plus the SOL its wrapped-SOL accounts hold), less the network fee and the Jito tip paid inside
 * the transaction (both the fill's fees) and less the rent of EVERY token account of the wallet
 * the transaction funded or closed, whatever its mint (the traded mint's, a wSOL account left
 * open, an intermediate hop's), as the chain names their owner: put in, it is rentDepositSol;
 * taken out, rentRefundSol; never swap input or proceeds. So a BUY's input is the SOL that went
 * into the swap, and the entry price (input ÷ tokens) is the simulation's for the same fill.
 * Should the chain show no movement (an RPC without token balances), the quote's amounts stand
 * in and a warning is logged.
 */
export function amountsFromChain(
  side: "BUY" | "SELL",
  owner: string,
  mint: string,
  landed: LandedTransaction,
  quote: Pick<Quote, "inAmount" | "outAmount">,
  log?: Logger,
  tipLamports = 0n,
): { inputAtomic: bigint; outputAtomic: bigint; rentDepositLamports: bigint; rentRefundLamports: bigint } {
  const sol = walletSolDelta(landed, owner);
  const tok = tokenDelta(landed, owner, mint);
  const fee = landed.feeLamports + tipLamports;
  const rent = tokenAccountsRent(landed, owner);
  const netRent = rent.deposit - rent.refund;
  const input = side === "BUY" ? -sol - fee - netRent : -tok;
  const output = side === "BUY" ? tok : sol + fee + netRent;
  if (input > 0n && output > 0n)
    return {
      inputAtomic: input,
      outputAtomic: output,
      rentDepositLamports: rent.deposit,
      rentRefundLamports: rent.refund,
    };
  log?.warn("live swap balances not visible in the transaction; using the quote's amounts", {
    side,
    mint,
    solDelta: sol.toString(),
    tokenDelta: tok.toString(),
  });
  return {
    inputAtomic: BigInt(quote.inAmount),
    outputAtomic: BigInt(quote.outAmount),
    rentDepositLamports: 0n,
    rentRefundLamports: 0n,
  };
}

/** The fill fields of a swap's token-account rent (SwapFill.rentDepositSol / rentRefundSol). */
export const rentOfFill = (a: { rentDepositLamports: bigint; rentRefundLamports: bigint }) => ({
  rentDepositSol: fromAtomic(a.rentDepositLamports, SOL_DECIMALS),
  rentRefundSol: fromAtomic(a.rentRefundLamports, SOL_DECIMALS),
});
