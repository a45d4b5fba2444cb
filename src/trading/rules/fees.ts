// Simulation fees (PRODUCT.md §4; docs/decisions.md "Simulation fidelity"): every simulated swap is charged
// the network's base fee of 0.000005 SOL plus the priority fee live would pay at most
// (simulation-fees.ts: per SWAP_API, or SIMULATION_PRIORITY_FEE_SOL when set), a mint's first buy
// also pays the token account's rent (refunded when the position closes, whose sale then pays the
// close's fee too), and a Token-2022
// transfer fee is taken from the tokens, so paper results are not better than live ones.

import { AUTO_PRIORITY_FEE_MAX_LAMPORTS } from "../../market/jupiter-swap.ts";
import type { PriorityFee } from "../../market/types.ts";
import { Big } from "../../money.ts";
import { big } from "./decimal-input.ts";
import type { DecimalInput } from "./types.ts";

/** Solana's base fee for one signature (5000 lamports). */
const SIGNATURE_FEE_SOL = "0.000005";

/** What a simulated swap pays the network besides its priority fee: one signature. */
export const SIMULATION_NETWORK_FEE_SOL = SIGNATURE_FEE_SOL;

/**
 * Rent-exempt minimum of a 165-byte SPL token account (2 039 280 lamports): what a wallet locks in
 * the associated token account its first buy of a mint creates, and gets back when it is closed.
 */
export const TOKEN_ACCOUNT_RENT_SOL = "0.00203928";

/**
 * The most priority fee one live swap pays under the setting (lamports): the live inspection
 * refuses a transaction asking for more (simulation-fees.ts charges the same cap).
 */
export function priorityFeeLamports(setting: PriorityFee): number {
  return setting === "auto" ? AUTO_PRIORITY_FEE_MAX_LAMPORTS : Math.max(0, Math.floor(setting));
}

/** SOL charged for one simulated swap (a buy or a sell). */
export function simulationSwapFeeSol(priorityFeeSol: DecimalInput): Big {
  return new Big(SIMULATION_NETWORK_FEE_SOL).plus(big(priorityFeeSol));
}

/**
 * What closing the emptied token account costs live: its own transaction, one signature, no
 * priority fee (src/trading/live/close-token-account.ts).
 */
export const TOKEN_ACCOUNT_CLOSE_FEE_SOL = SIGNATURE_FEE_SOL;

/**
 * Rent the buy that opens a position pays (SOL), from the wallet's balance of the token: the buy
 * made when none is held creates the token account. Otherwise 0.
 */
export function tokenAccountRentSol(tokensHeld: DecimalInput): Big {
  return big(tokensHeld).eq(0) ? new Big(TOKEN_ACCOUNT_RENT_SOL) : new Big(0);
}

/**
 * What closing the token account does to the sale after which it is closed (`closes`: the sale
 * closed the position and left none of the token; docs/decisions/pnl-is-wallet-gain.md): the
 * whole rent comes back (the SELL's rentRefundSol) and the close's fee joins the SELL's fees, so
 * the position's P/L is what the wallet gained. Nothing otherwise.
 */
export function tokenAccountClose(closes: boolean): { refundSol: Big; feeSol: Big } {
  return closes
    ? { refundSol: new Big(TOKEN_ACCOUNT_RENT_SOL), feeSol: new Big(TOKEN_ACCOUNT_CLOSE_FEE_SOL) }
    : { refundSol: new Big(0), feeSol: new Big(0) };
}

/**
 * Whether the token account of a mint is closed (and its rent returned) once a position empties
 * it, in both modes: not for a Token-2022 mint with a transfer fee (in force or scheduled), whose
 * accounts hold withheld fees that make CloseAccount fail; live leaves those accounts open
 * (src/trading/live/close-token-account.ts), so the simulation keeps their rent too.
 */
export function closesTokenAccount(transferFeeBps: number): boolean {
  return transferFeeBps <= 0;
}

/** A Token-2022 TransferFeeConfig entry: basis points of each transfer, capped at maximumFee. */
export interface TransferFee {
  basisPoints: number;
  /** Atomic units. */
  maximumFee: bigint;
}

/**
 * Tokens withheld from a transfer of `amount` atomic units, as the Token-2022 program computes it:
 * ceil(amount × bps / 10 000), at most maximumFee.
 */
export function transferFeeAtomic(amount: bigint, fee: TransferFee | null): bigint {
  if (!fee || fee.basisPoints <= 0 || amount <= 0n) return 0n;
  const raw = (amount * BigInt(fee.basisPoints) + 9_999n) / 10_000n;
  return raw < fee.maximumFee ? raw : fee.maximumFee;
}

/**
 * The priority fee's cap for one trade (LIVE_PRIORITY_FEE_MAX_BPS): the absolute cap, lowered to
 * `maxBps` of the trade's SOL (a buy's input, a sale's least output), rounded down to lamports. One
 * rule for live swaps (live/priority-fee.ts capForTrade) and simulated ones (simulation-fees.ts).
 */
export function priorityFeeCapForTrade(maxLamports: bigint, maxBps: number, tradeLamports: bigint): bigint {
  const relative = ((tradeLamports > 0n ? tradeLamports : 0n) * BigInt(maxBps)) / 10_000n;
  return relative < maxLamports ? relative : maxLamports;
}
