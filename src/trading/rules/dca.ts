// DCA (PRODUCT.md §4): order k (k ≤ dca.maxOrders, k = orders filled so far + 1) fires when
// price ≤ average entry × (1 − k × priceDropTriggerPercentage/100), buying amountPercentage % of
// the ORIGINAL SOL cost (the SOL size of the opening buy). Exactly at the trigger price fires.
// - One order per tick: only order k = dcaOrders + 1 is considered; the average entry it is
//   measured from is the CURRENT one (it falls after each fill), as PRODUCT.md words it.
// - A trigger price ≤ 0 (k × drop ≥ 100 %) never fires; an amount that rounds to 0 lamports does not fire.
// - No DCA once the moon bag is active: the moon bag is left to stop-loss, stale-trade or close.
// - The rule does not check the balance: the buy goes through the normal execution path, which
//   refuses (and logs) a buy the wallet cannot pay, and skips (rule `minimum_balance`) an order
//   that would leave the wallet under minimumAgentBalance (dcaWithinMinimumBalance; SPEC: an
//   agent needs the minimum balance to trade, and a DCA buy is a trade).

import type { Big } from "../../money.ts";
import { big, HUNDRED, roundLamports } from "./decimal-input.ts";
import { heldCostAfterBuy } from "./pnl.ts";
import type { DcaSettings, DecimalInput } from "./types.ts";

export interface DcaPositionState {
  /** Current average entry price in SOL. */
  entryPriceSol: DecimalInput;
  /** DCA orders filled so far. */
  dcaOrders: number;
  /** SOL swapped by the opening buy, fees and rent excluded (the position's openingSol, never a ledger row). */
  originalCostSol: DecimalInput;
  moonBagActivated: boolean;
}

export type DcaDecision =
  | { triggered: false }
  | { triggered: true; order: number; triggerPriceSol: Big; amountSol: Big };

/** average entry × (1 − order × drop/100). */
export function dcaTriggerPrice(entryPriceSol: DecimalInput, dropPercentage: DecimalInput, order: number): Big {
  return big(entryPriceSol)
    .times(HUNDRED.minus(big(dropPercentage).times(order)))
    .div(HUNDRED);
}

/** amountPercentage % of the original SOL cost, rounded down to lamports. */
function dcaOrderAmountSol(originalCostSol: DecimalInput, amountPercentage: DecimalInput): Big {
  return roundLamports(big(originalCostSol).times(big(amountPercentage)).div(HUNDRED));
}

/**
 * Whether a DCA order of `amountSol` leaves the wallet at or above the minimum balance. The
 * order's SOL is what is known before the swap; its fees (a few lamports) are not.
 */
export function dcaWithinMinimumBalance(
  solBalance: DecimalInput,
  amountSol: DecimalInput,
  minimumAgentBalance: DecimalInput,
): boolean {
  return big(solBalance).minus(big(amountSol)).gte(big(minimumAgentBalance));
}

export function evaluateDca(settings: DcaSettings, position: DcaPositionState, priceSol: DecimalInput): DcaDecision {
  const none: DcaDecision = { triggered: false };
  if (!settings.enabled || position.moonBagActivated) return none;
  const order = position.dcaOrders + 1;
  if (order > settings.maxOrders) return none;
  const trigger = dcaTriggerPrice(position.entryPriceSol, settings.priceDropTriggerPercentage, order);
  if (trigger.lte(0) || big(priceSol).gt(trigger)) return none;
  const amountSol = dcaOrderAmountSol(position.originalCostSol, settings.amountPercentage);
  if (amountSol.lte(0)) return none;
  return { triggered: true, order, triggerPriceSol: trigger, amountSol };
}

/** The position fields a DCA fill changes. */
export interface DcaFillPosition {
  entryPriceSol: DecimalInput;
  /** Tokens bought in total (purchase.amount). */
  purchaseAmount: DecimalInput;
  remainingAmount: DecimalInput;
  /** SOL spent in total, fees included. */
  costSol: DecimalInput;
  /** Cost of the tokens held (rules/pnl.ts). */
  heldCostSol: DecimalInput;
  dcaOrders: number;
}

export interface DcaFill {
  /** SOL swapped into tokens (the quote's input), fees excluded. */
  solSwapped: DecimalInput;
  /** Fees charged for the swap (network + priority). */
  feesSol: DecimalInput;
  tokensReceived: DecimalInput;
}

export interface DcaFillResult {
  entryPriceSol: Big;
  purchaseAmount: Big;
  remainingAmount: Big;
  costSol: Big;
  heldCostSol: Big;
  dcaOrders: number;
}

/**
 * The position after a DCA buy. The average entry is the average price paid per token over every
 * token bought (fees excluded): (entry × purchaseAmount + solSwapped) / (purchaseAmount + tokens).
 * Fees go into costSol and heldCostSol only: the held cost is what P/L is measured against, and a
 * DCA buy adds to it without restating what earlier sales realized (see pnl.ts).
 */
export function applyDcaFill(position: DcaFillPosition, fill: DcaFill): DcaFillResult {
  const bought = big(position.purchaseAmount);
  const tokens = big(fill.tokensReceived);
  const purchaseAmount = bought.plus(tokens);
  const entryPriceSol = purchaseAmount.eq(0)
    ? big(position.entryPriceSol)
    : big(position.entryPriceSol).times(bought).plus(big(fill.solSwapped)).div(purchaseAmount);
  return {
    entryPriceSol,
    purchaseAmount,
    remainingAmount: big(position.remainingAmount).plus(tokens),
    costSol: big(position.costSol).plus(big(fill.solSwapped)).plus(big(fill.feesSol)),
    heldCostSol: heldCostAfterBuy(position.heldCostSol, fill.solSwapped, fill.feesSol),
    dcaOrders: position.dcaOrders + 1,
  };
}
