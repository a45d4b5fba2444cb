// The price levels of an open position as the monitor's rules would act on them now, for display
// (the positions table and the position chart): the trailing stop, every take-profit level and
// the DCA orders still to come. Each price comes from the rule's own function, so a level shown
// is the level the rule fires at.
// - Stop: peak × (1 − stopLoss.percentage/100); null when stop-loss is off.
// - Take-profit: levels 1..maxLevels at the CURRENT average entry; `hit` for levels already sold.
//   (A level hit before a DCA buy was measured from the entry of that time.) None when off.
// - DCA: the orders not yet filled, each from the CURRENT average entry. The next one is exact;
//   later ones move when a fill lowers the entry. None when off, after the moon bag, or once the
//   trigger price would be ≤ 0.

import type { Big } from "../../money.ts";
import { dcaTriggerPrice } from "./dca.ts";
import { stopLossPrice } from "./stop-loss.ts";
import { takeProfitLevelPrice } from "./take-profit.ts";
import type { DcaSettings, DecimalInput, StopLossSettings, TakeProfitSettings } from "./types.ts";

export interface LevelsInput {
  entryPriceSol: DecimalInput;
  peakPriceSol: DecimalInput;
  levelsHit: number;
  dcaOrders: number;
  moonBagActivated: boolean;
}

export interface PositionLevels {
  stopLossPrice: Big | null;
  takeProfit: Array<{ level: number; price: Big; hit: boolean }>;
  dca: Array<{ order: number; price: Big }>;
}

export function positionLevels(
  config: { stopLoss: StopLossSettings; takeProfit: TakeProfitSettings; dca: DcaSettings },
  p: LevelsInput,
): PositionLevels {
  const takeProfit: PositionLevels["takeProfit"] = [];
  if (config.takeProfit.enabled) {
    for (let level = 1; level <= config.takeProfit.maxLevels; level++) {
      const price = takeProfitLevelPrice(p.entryPriceSol, config.takeProfit.percentage, level);
      takeProfit.push({ level, price, hit: level <= p.levelsHit });
    }
  }
  const dca: PositionLevels["dca"] = [];
  if (config.dca.enabled && !p.moonBagActivated) {
    for (let order = p.dcaOrders + 1; order <= config.dca.maxOrders; order++) {
      const price = dcaTriggerPrice(p.entryPriceSol, config.dca.priceDropTriggerPercentage, order);
      if (price.lte(0)) break;
      dca.push({ order, price });
    }
  }
  return {
    stopLossPrice: config.stopLoss.enabled ? stopLossPrice(p.peakPriceSol, config.stopLoss.percentage) : null,
    takeProfit,
    dca,
  };
}
