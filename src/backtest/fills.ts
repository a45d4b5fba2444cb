import { Big, fromAtomic, SOL_DECIMALS, toAtomic } from "../money.ts";
import { type ImpactTable, impactOf } from "../price-impact.ts";
import {
  checkSlippage,
  resolveSlippageBps,
  type SlippageSettings,
  simulationSwapFeeSol,
  TOKEN_ACCOUNT_RENT_SOL,
  tokenAccountClose,
} from "../trading/rules/index.ts";

// Simulated fills at a bar's price: what the simulation executor does with a quote
// (src/trading/simulation-executor.ts), the quote being the bar's price less the price impact the
// service recorded for the token and the trade's size (src/price-impact.ts; a default
// where none was recorded), as the aggregator's quote reduces its output by its impact. Slippage is checked by the rule, fees are the rule's simulation
// fees; amounts are whole atomic units rounded down, as the aggregator's quotes are. The opening
// buy pays the token account's rent beside its fees (rentDepositSol) and the closing sale's
// account close gives it back to the balance (rentRefundSol), its fee in the sale's fees; the rent
// is in neither the proceeds, the cost nor the P/L, the close's fee is, as in the simulation
// settlement
// (src/trading/settlement/simulation.ts). A Token-2022 transfer fee is not applied: history does
// not say which mints have one.

export interface BuyFill {
  solSwapped: Big;
  tokens: Big;
  feesSol: Big;
  /** solSwapped + fees: the cost P/L counts. */
  cost: Big;
  /** Token account rent the opening buy pays (0 otherwise). */
  rentDepositSol: Big;
  /** cost + rent: what the balance pays. */
  paid: Big;
}

export interface SellFill {
  /** SOL the swap returned. */
  proceeds: Big;
  /** The swap's fees, plus the account close's when the sale closes the position. */
  feesSol: Big;
  /** Token account rent returned by the sale that closes the position (0 otherwise). */
  rentRefundSol: Big;
}

export type Refused = { refused: string };

function slippageRefusal(slippage: SlippageSettings): Refused | null {
  const check = checkSlippage(resolveSlippageBps(null, slippage), slippage);
  return check.ok ? null : { refused: check.message };
}

function simulateBuy(
  sizeSol: Big,
  priceSol: string,
  decimals: number,
  slippage: SlippageSettings,
  priorityFeeSol: number,
  /** The buy opens a position (creates the token account and pays its rent). */
  opensAccount = false,
  /** Price impact (fraction) of a trade of this many lamports; none when absent. */
  impact?: (lamports: bigint) => Big,
): BuyFill | Refused {
  const lamports = toAtomic(sizeSol, SOL_DECIMALS);
  if (lamports <= 0n) return { refused: "Trade size rounds to zero" };
  const slip = slippageRefusal(slippage);
  if (slip) return slip;
  const solSwapped = fromAtomic(lamports, SOL_DECIMALS);
  const keep = new Big(1).minus(impact ? impact(lamports) : 0);
  const tokensAtomic = toAtomic(solSwapped.div(priceSol).times(keep), decimals);
  if (tokensAtomic <= 0n) return { refused: "The quote returned no output amount" };
  const feesSol = simulationSwapFeeSol(priorityFeeSol);
  const rentDepositSol = new Big(opensAccount ? TOKEN_ACCOUNT_RENT_SOL : 0);
  const cost = solSwapped.plus(feesSol);
  return {
    solSwapped,
    tokens: fromAtomic(tokensAtomic, decimals),
    feesSol,
    cost,
    rentDepositSol,
    paid: cost.plus(rentDepositSol),
  };
}

function simulateSell(
  tokens: Big,
  priceSol: string,
  decimals: number,
  slippage: SlippageSettings,
  priorityFeeSol: number,
  /** The sale closes the position (and its token account, whose rent comes back). */
  closesAccount = false,
  /** Price impact (fraction) of a trade of this many lamports; none when absent. */
  impact?: (lamports: bigint) => Big,
): SellFill | Refused {
  const slip = slippageRefusal(slippage);
  if (slip) return slip;
  const sold = fromAtomic(toAtomic(tokens, decimals), decimals);
  const value = sold.times(priceSol);
  const keep = new Big(1).minus(impact ? impact(toAtomic(value, SOL_DECIMALS)) : 0);
  const lamports = toAtomic(value.times(keep), SOL_DECIMALS);
  if (lamports <= 0n) return { refused: "The quote returned no output amount" };
  const close = tokenAccountClose(closesAccount);
  return {
    proceeds: fromAtomic(lamports, SOL_DECIMALS),
    feesSol: simulationSwapFeeSol(priorityFeeSol).plus(close.feeSol),
    rentRefundSol: close.refundSol,
  };
}

export const isRefused = (f: object): f is Refused => "refused" in f;
export { Big };

/**
 * The fills of one replay: its slippage, priority fee and recorded price impacts bound, so a
 * fill is asked for by token, amount and bar price alone.
 */
export function replayFills(slippage: SlippageSettings, priorityFeeSol: number, impacts: ImpactTable) {
  return {
    buy: (token: string, sizeSol: Big, priceSol: string, decimals: number, opensAccount = false) =>
      simulateBuy(sizeSol, priceSol, decimals, slippage, priorityFeeSol, opensAccount, impactOf(impacts, token)),
    sell: (token: string, tokens: Big, priceSol: string, decimals: number, closesAccount = false) =>
      simulateSell(tokens, priceSol, decimals, slippage, priorityFeeSol, closesAccount, impactOf(impacts, token)),
  };
}
