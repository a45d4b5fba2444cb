import { SOL_MINT } from "../money.ts";
import { type LandedTransaction, tokenDelta } from "./landed-transaction.ts";

// A landed transaction's SOL and rent as the wallet sees them (docs/decisions/
// pnl-is-wallet-gain.md): the chain's pre/post balances and token balances (owners as the chain
// names them), never a swap's description of the transaction.

/**
 * The owner's SOL change in a landed transaction with rent left out: its own lamports plus the SOL
 * its wrapped-SOL token accounts hold (their token amounts, not their lamports). What the swap
 * itself moved, once the fee and tokenAccountsRent are taken apart.
 */
export function walletSolDelta(tx: LandedTransaction, owner: string): bigint {
  const i = tx.accountKeys.indexOf(owner);
  const own = i < 0 ? 0n : (tx.postBalances[i] ?? 0n) - (tx.preBalances[i] ?? 0n);
  return own + tokenDelta(tx, owner, SOL_MINT);
}

/**
 * Rent the transaction put into or took out of the owner's token accounts, whatever their mint:
 * every account the chain's token balances name `owner` of (never a swap's description of it)
 * counts its lamport change, less, for a wrapped-SOL account, the change of the SOL it wraps
 * (walletSolDelta counts that). Per account: what went in (created, topped up) is `deposit`,
 * what came out (closed) is `refund`. Accounts the node gives no index for count 0.
 */
export function tokenAccountsRent(tx: LandedTransaction, owner: string): { deposit: bigint; refund: bigint } {
  const accounts = new Set<number>();
  for (const e of [...tx.preTokenBalances, ...tx.postTokenBalances])
    if (e.owner === owner && e.accountIndex >= 0) accounts.add(e.accountIndex);
  const amountAt = (list: LandedTransaction["postTokenBalances"], k: number) =>
    list.find((e) => e.accountIndex === k && e.mint === SOL_MINT)?.amount ?? 0n;
  let deposit = 0n;
  let refund = 0n;
  for (const k of accounts) {
    const wsol = amountAt(tx.postTokenBalances, k) - amountAt(tx.preTokenBalances, k);
    const rent = (tx.postBalances[k] ?? 0n) - (tx.preBalances[k] ?? 0n) - wsol;
    if (rent > 0n) deposit += rent;
    else refund -= rent;
  }
  return { deposit, refund };
}
