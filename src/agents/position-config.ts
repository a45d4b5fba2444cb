import type { TradingConfig } from "./trading-config.ts";

// The exit rules a position follows (issue 44 item 2): stop-loss, take-profit, DCA and the
// stale-trade age, the parts of an agent's configuration that govern a position once it is open.
// They are copied onto the position when it opens (positions.exit_config), so an edit of the
// agent's configuration applies to new positions only, and to open ones only when the edit asks
// (`applyToOpenPositions`, recorded as exit_config_applied_at). The rest of the configuration
// (filters, slippage, minimum balance) says how the agent trades, not what a position is: it stays
// the agent's current one. A position opened before the column existed has no copy and follows the
// agent's current configuration (docs/decisions/operator-experience-v.md).

interface ExitConfig {
  stopLoss: TradingConfig["stopLoss"];
  takeProfit: TradingConfig["takeProfit"];
  dca: TradingConfig["dca"];
  maxPositionAgeDays: number | null;
}

/** The exit rules of a configuration, as the text stored on a position. */
export function exitConfigText(config: TradingConfig): string {
  const exit: ExitConfig = {
    stopLoss: { ...config.stopLoss },
    takeProfit: { ...config.takeProfit },
    dca: { ...config.dca },
    maxPositionAgeDays: config.filters.maxPositionAgeDays,
  };
  return JSON.stringify(exit);
}

// Positions opened under one configuration share its text: parsed once, merged once per agent config.
const followed = new WeakMap<TradingConfig, Map<string, TradingConfig>>();

/**
 * The configuration a position follows: the agent's current one with the position's own exit
 * rules in place of the agent's (the agent's, when the position has none stored).
 */
export function positionConfig(agentConfig: TradingConfig, exitConfig: string | null): TradingConfig {
  if (exitConfig === null) return agentConfig;
  let byText = followed.get(agentConfig);
  if (!byText) followed.set(agentConfig, (byText = new Map()));
  let c = byText.get(exitConfig);
  if (!c) {
    const exit = JSON.parse(exitConfig) as ExitConfig;
    c = {
      ...agentConfig,
      stopLoss: exit.stopLoss,
      takeProfit: exit.takeProfit,
      dca: exit.dca,
      filters: { ...agentConfig.filters, maxPositionAgeDays: exit.maxPositionAgeDays },
    };
    if (byText.size >= 1_000) byText.clear();
    byText.set(exitConfig, c);
  }
  return c;
}

/** Which configuration a position follows, for its page (PositionView.exitConfig). */
export function exitConfigView(
  config: TradingConfig,
  p: { exitConfig: string | null; exitConfigAppliedAt: string | null; openedAt: string },
) {
  return {
    source:
      p.exitConfig === null ? ("agent" as const) : p.exitConfigAppliedAt ? ("applied" as const) : ("opened" as const),
    since: p.exitConfig === null ? null : (p.exitConfigAppliedAt ?? p.openedAt),
    stopLoss: config.stopLoss,
    takeProfit: config.takeProfit,
    dca: config.dca,
    maxPositionAgeDays: config.filters.maxPositionAgeDays,
  };
}
