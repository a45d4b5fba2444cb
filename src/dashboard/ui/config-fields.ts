// Every field of the agent trading configuration with its default, unit and range, as the
// strategy editor shows them (SPEC "Agent trading configuration", PRODUCT.md §3 and the ranges of
// src/agents/trading-config.ts). test/dashboard/config-fields.test.ts holds this table equal to
// DEFAULT_TRADING_CONFIG, so a new or changed field fails a test until it is described here.
// Fields the server returns that are not in this table are still editable (generic inputs).

export type FieldKind = "number" | "integer" | "boolean" | "choice" | "nullableNumber" | "tokenList" | "textList";

/** Kinds edited as a list of words, one per line. */
export const isListKind = (kind: FieldKind): boolean => kind === "tokenList" || kind === "textList";

export interface ConfigField {
  path: string;
  label: string;
  kind: FieldKind;
  default: unknown;
  unit?: string;
  range?: string;
  choices?: readonly string[];
}

export const CONFIG_GROUPS: ReadonlyArray<readonly [string, string]> = [
  ["positionSizing", "Position sizing"],
  ["stopLoss", "Stop-loss"],
  ["takeProfit", "Take-profit"],
  ["dca", "DCA"],
  ["filters", "Filters"],
  ["slippage", "Slippage"],
  ["timing", "Timing"],
  ["risk", "Risk"],
  ["", "Balance"],
];

export const CONFIG_FIELDS: readonly ConfigField[] = [
  {
    path: "positionSizing.type",
    label: "Sizing type",
    kind: "choice",
    default: "percentage",
    choices: ["percentage", "fixed"],
  },
  {
    path: "positionSizing.percentage",
    label: "Size (% of SOL balance)",
    kind: "number",
    default: 5,
    unit: "%",
    range: "> 0 to 100",
  },
  {
    path: "positionSizing.fixedAmountSol",
    label: "Fixed size",
    kind: "nullableNumber",
    default: null,
    unit: "SOL",
    range: "> 0; required for fixed",
  },
  { path: "stopLoss.enabled", label: "Stop-loss enabled", kind: "boolean", default: true },
  {
    path: "stopLoss.percentage",
    label: "Stop-loss (below peak)",
    kind: "number",
    default: 25,
    unit: "%",
    range: "1 to 100",
  },
  { path: "takeProfit.enabled", label: "Take-profit enabled", kind: "boolean", default: false },
  {
    path: "takeProfit.percentage",
    label: "Take-profit level step",
    kind: "number",
    default: 50,
    unit: "%",
    range: "> 0 to 10000",
  },
  {
    path: "takeProfit.sellPercentage",
    label: "Sell per level",
    kind: "number",
    default: 50,
    unit: "% of remaining",
    range: "> 0 to 100",
  },
  { path: "takeProfit.maxLevels", label: "Take-profit levels", kind: "integer", default: 3, range: "1 to 100" },
  { path: "dca.enabled", label: "DCA enabled", kind: "boolean", default: false },
  { path: "dca.maxOrders", label: "DCA orders", kind: "integer", default: 3, range: "1 to 100" },
  {
    path: "dca.priceDropTriggerPercentage",
    label: "DCA price drop per order",
    kind: "number",
    default: 10,
    unit: "%",
    range: "> 0 to < 100",
  },
  {
    path: "dca.amountPercentage",
    label: "DCA order size",
    kind: "number",
    default: 50,
    unit: "% of original cost",
    range: "> 0 to 1000",
  },
  {
    path: "filters.minMarketCap",
    label: "Minimum market cap",
    kind: "nullableNumber",
    default: null,
    unit: "USD",
    range: "empty or ≥ 0",
  },
  {
    path: "filters.maxMarketCap",
    label: "Maximum market cap",
    kind: "nullableNumber",
    default: null,
    unit: "USD",
    range: "empty or ≥ 0",
  },
  {
    path: "filters.minLiquidity",
    label: "Minimum liquidity",
    kind: "nullableNumber",
    default: null,
    unit: "USD",
    range: "empty or ≥ 0",
  },
  {
    path: "filters.maxPositionAgeDays",
    label: "Maximum position age",
    kind: "nullableNumber",
    default: null,
    unit: "days",
    range: "empty or > 0 to 3650",
  },
  {
    path: "filters.allowedTokens",
    label: "Allowed tokens",
    kind: "tokenList",
    default: [],
    unit: "mint addresses, one per line",
    range: "empty = all",
  },
  {
    path: "filters.blockedTokens",
    label: "Blocked tokens",
    kind: "tokenList",
    default: [],
    unit: "mint addresses, one per line",
  },
  { path: "filters.minSignalStrength", label: "Minimum signal strength", kind: "integer", default: 1, range: "1 to 5" },
  {
    path: "filters.signalTypes",
    label: "Signal types to buy on",
    kind: "textList",
    default: [],
    unit: "signal types, one per line",
    range: "empty = buy, long, entry",
  },
  {
    path: "filters.sources",
    label: "Trade signals from",
    kind: "textList",
    default: [],
    unit: "API key names, wallet:<address>, group:<name>, hook:<name>, one per line",
    range: "empty = every source",
  },
  {
    path: "filters.rejectFreezeAuthority",
    label: "Reject tokens with a freeze authority",
    kind: "boolean",
    default: true,
  },
  {
    path: "filters.rejectMintAuthority",
    label: "Reject tokens with a mint authority",
    kind: "boolean",
    default: false,
  },
  {
    path: "filters.rejectPermanentDelegate",
    label: "Reject tokens with a permanent delegate",
    kind: "boolean",
    default: true,
  },
  { path: "filters.rejectPausable", label: "Reject pausable tokens", kind: "boolean", default: true },
  {
    path: "filters.rejectTransferHook",
    label: "Reject tokens with a transfer hook (not allow-listed)",
    kind: "boolean",
    default: true,
  },
  {
    path: "filters.rejectDefaultFrozen",
    label: "Reject tokens whose new accounts start frozen",
    kind: "boolean",
    default: true,
  },
  {
    path: "filters.rejectUnknownExtensions",
    label: "Reject tokens with unknown Token-2022 extensions",
    kind: "boolean",
    default: true,
  },
  {
    path: "filters.maxTransferFeeBps",
    label: "Maximum token transfer fee",
    kind: "integer",
    default: 100,
    unit: "bps",
    range: "0 to 10000",
  },
  { path: "filters.requireSellable", label: "Require a route back to SOL", kind: "boolean", default: true },
  {
    path: "slippage.defaultBps",
    label: "Default slippage",
    kind: "integer",
    default: 300,
    unit: "bps",
    range: "1 to 10000, ≤ max",
  },
  {
    path: "slippage.maxBps",
    label: "Maximum slippage",
    kind: "integer",
    default: 1000,
    unit: "bps",
    range: "1 to 10000",
  },
  {
    path: "slippage.maxExitBps",
    label: "Maximum price impact of stop-loss and stale exits",
    kind: "nullableNumber",
    default: null,
    unit: "bps",
    range: "empty = no cap, or 1 to 10000",
  },
  {
    path: "timing.minTimeBetweenTradesSeconds",
    label: "Minimum time between trades",
    kind: "integer",
    default: 0,
    unit: "s",
    range: "0 to 31536000",
  },
  {
    path: "risk.maxOpenPositions",
    label: "Maximum open positions of this agent",
    kind: "nullableNumber",
    default: null,
    range: "empty = no limit, or 1 to 100000",
  },
  {
    path: "minimumAgentBalance",
    label: "Minimum agent balance",
    kind: "number",
    default: 0.5,
    unit: "SOL",
    range: "0 to 1000000",
  },
];

/** Dotted paths of every leaf of a configuration object (arrays are leaves). */
export function leafPaths(value: unknown, prefix = ""): string[] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return prefix ? [prefix] : [];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
    leafPaths(v, prefix ? `${prefix}.${k}` : k),
  );
}

export function getPath(obj: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], obj);
}

export function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  let o = obj;
  for (const k of keys.slice(0, -1)) {
    if (typeof o[k] !== "object" || o[k] === null) o[k] = {};
    o = o[k] as Record<string, unknown>;
  }
  o[keys[keys.length - 1] as string] = value;
}

/** A field for a configuration path the table does not describe (added on the server later). */
export function guessField(path: string, value: unknown): ConfigField {
  const kind: FieldKind =
    typeof value === "boolean"
      ? "boolean"
      : Array.isArray(value)
        ? "tokenList"
        : typeof value === "number"
          ? "number"
          : "nullableNumber";
  return { path, label: path, kind, default: undefined };
}

/**
 * Which field each of the API's validation messages belongs to ("stopLoss.percentage must be
 * between 1 and 100" → stopLoss.percentage); messages no field claims are returned under "".
 */
export function messagesByField(details: unknown, paths: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const byLength = [...paths].sort((a, b) => b.length - a.length);
  for (const d of Array.isArray(details) ? details : []) {
    const text = String(d);
    const path = byLength.find((p) => text === p || text.startsWith(`${p} `)) ?? "";
    out.set(path, [...(out.get(path) ?? []), text]);
  }
  return out;
}
