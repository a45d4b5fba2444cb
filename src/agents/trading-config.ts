import bs58 from "bs58";
import { z } from "zod";

// An agent's trading configuration (SPEC "Agent trading configuration", PRODUCT.md §3).
// The database keeps only the fields a user changed (agent_configs.overrides); every reader gets
// the complete configuration: DEFAULT_TRADING_CONFIG deep-merged with those overrides.
//
// The trading engine imports `TradingConfig`, `DEFAULT_TRADING_CONFIG` and `resolveConfig`; the
// configuration routes use `applyConfigUpdate`, which validates strictly (unknown keys refused,
// every number in a range, cross-field rules) and reports one string per problem.

const POSITION_SIZING_TYPES = ["percentage", "fixed"] as const;
type PositionSizingType = (typeof POSITION_SIZING_TYPES)[number];

export interface TradingConfig {
  positionSizing: { type: PositionSizingType; percentage: number; fixedAmountSol: number | null };
  stopLoss: { enabled: boolean; percentage: number };
  takeProfit: { enabled: boolean; percentage: number; sellPercentage: number; maxLevels: number };
  dca: { enabled: boolean; maxOrders: number; priceDropTriggerPercentage: number; amountPercentage: number };
  filters: {
    minMarketCap: number | null;
    maxMarketCap: number | null;
    minLiquidity: number | null;
    maxPositionAgeDays: number | null;
    allowedTokens: string[];
    blockedTokens: string[];
    minSignalStrength: number;
    /** Entry signal types the agent acts on; [] = buy, long and entry (src/trading/rules/eligibility.ts). */
    signalTypes: string[];
    /** Sources the agent trades (API key names, wallet:, group:, hook:); [] = all (src/trading/rules/signal-source.ts). */
    sources: string[];
    /** Token screening (src/trading/rules/token-screening.ts says what each does). */
    rejectFreezeAuthority: boolean;
    rejectMintAuthority: boolean;
    rejectPermanentDelegate: boolean;
    rejectPausable: boolean;
    rejectTransferHook: boolean;
    rejectDefaultFrozen: boolean;
    rejectUnknownExtensions: boolean;
    maxTransferFeeBps: number;
    requireSellable: boolean;
  };
  /** maxExitBps: price-impact cap of stop-loss and stale exits; null = no cap (always get out). */
  slippage: { defaultBps: number; maxBps: number; maxExitBps: number | null };
  timing: { minTimeBetweenTradesSeconds: number };
  /** The agent's own cap on its open positions (issue 34 item 1); null = off. Account limits: GET /risk-limits. */
  risk: { maxOpenPositions: number | null };
  /** SOL an agent must hold to trade (SPEC facts; PRODUCT.md §3). */
  minimumAgentBalance: number;
}

/** Spec defaults, plus PRODUCT.md §3's extra fields. Frozen: callers merge, never mutate. */
export const DEFAULT_TRADING_CONFIG: Readonly<TradingConfig> = deepFreeze({
  positionSizing: { type: "percentage", percentage: 5, fixedAmountSol: null },
  stopLoss: { enabled: true, percentage: 25 },
  takeProfit: { enabled: false, percentage: 50, sellPercentage: 50, maxLevels: 3 },
  dca: { enabled: false, maxOrders: 3, priceDropTriggerPercentage: 10, amountPercentage: 50 },
  filters: {
    minMarketCap: null,
    maxMarketCap: null,
    minLiquidity: null,
    maxPositionAgeDays: null,
    allowedTokens: [],
    blockedTokens: [],
    minSignalStrength: 1,
    signalTypes: [],
    sources: [],
    rejectFreezeAuthority: true,
    rejectMintAuthority: false,
    rejectPermanentDelegate: true,
    rejectPausable: true,
    rejectTransferHook: true,
    rejectDefaultFrozen: true,
    rejectUnknownExtensions: true,
    maxTransferFeeBps: 100,
    requireSellable: true,
  },
  slippage: { defaultBps: 300, maxBps: 1000, maxExitBps: null },
  timing: { minTimeBetweenTradesSeconds: 0 },
  risk: { maxOpenPositions: null },
  minimumAgentBalance: 0.5,
});

// ---- Leaf schemas: one place for every range (bounds beyond stopLoss.percentage are ours:
// docs/decisions.md "Agents and ledgers").

const num = () => z.number({ error: "must be a number" });
const int = () => z.number({ error: "must be a whole number" }).int({ error: "must be a whole number" });
const between = (min: number, max: number) =>
  num()
    .min(min, { error: `must be between ${min} and ${max}` })
    .max(max, { error: `must be between ${min} and ${max}` });
const intBetween = (min: number, max: number) =>
  int()
    .min(min, { error: `must be a whole number between ${min} and ${max}` })
    .max(max, { error: `must be a whole number between ${min} and ${max}` });
const aboveZeroAtMost = (max: number) =>
  num()
    .gt(0, { error: `must be greater than 0 and at most ${max}` })
    .max(max, { error: `must be greater than 0 and at most ${max}` });
const nullableAtLeastZero = (max: number) =>
  num()
    .min(0, { error: `must be null or a number between 0 and ${max}` })
    .max(max, { error: `must be null or a number between 0 and ${max}` })
    .nullable();
const bool = () => z.boolean({ error: "must be true or false" });
const tokenList = () =>
  z
    .array(
      z
        .string({ error: "must be a token address string" })
        .trim()
        .min(1, { error: "must not be empty" })
        .max(255, { error: "must be at most 255 characters" }),
      { error: "must be an array of token addresses" },
    )
    .max(1000, { error: "must hold at most 1000 token addresses" });

// The list chooses among entry types only: exit signals (sell, exit, close) are handled before
// eligibility, so an exit type in the list changes nothing.
const signalTypeList = () =>
  z
    .array(
      z
        .string({ error: "must be a signal type string" })
        .trim()
        .min(1, { error: "must not be empty" })
        .max(50, { error: "must be at most 50 characters" }),
      { error: "must be an array of signal types" },
    )
    .max(100, { error: "must hold at most 100 signal types" });

// filters.sources: API key names as written, or a built-in source's form (rules/signal-source.ts).
// Whether each named source exists is the agent service's check (it knows the owner).
const BASE58_KEY = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const sourceEntry = () =>
  z
    .string({ error: "must be a source name string" })
    .trim()
    .min(1, { error: "must not be empty" })
    .max(100, { error: "must be at most 100 characters" })
    .superRefine((v, ctx) => {
      const problem = sourceFormProblem(v);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    });
const sourceList = () =>
  z
    .array(sourceEntry(), { error: "must be an array of sources" })
    .max(100, { error: "must hold at most 100 sources" })
    .refine((l) => new Set(l).size === l.length, { error: "must not name a source twice" });

function sourceFormProblem(v: string): string | null {
  if (v.startsWith("wallet:")) {
    const address = v.slice("wallet:".length);
    if (!BASE58_KEY.test(address) || bs58.decode(address).length !== 32) return "must be wallet:<base58 address>";
  }
  for (const kind of ["group", "hook"]) {
    if (v.startsWith(`${kind}:`) && v.slice(kind.length + 1).trim() === "") return `must name a ${kind} after ${kind}:`;
  }
  return null;
}

const objectError = (iss: { code: string }) => (iss.code === "invalid_type" ? "must be an object" : undefined);

const groups = {
  positionSizing: {
    type: z.enum(POSITION_SIZING_TYPES, { error: "must be 'percentage' or 'fixed'" }),
    percentage: aboveZeroAtMost(100),
    fixedAmountSol: aboveZeroAtMost(1_000_000).nullable(),
  },
  stopLoss: { enabled: bool(), percentage: between(1, 100) },
  takeProfit: {
    enabled: bool(),
    percentage: aboveZeroAtMost(10_000),
    sellPercentage: aboveZeroAtMost(100),
    maxLevels: intBetween(1, 100),
  },
  dca: {
    enabled: bool(),
    maxOrders: intBetween(1, 100),
    priceDropTriggerPercentage: num()
      .gt(0, { error: "must be greater than 0 and less than 100" })
      .lt(100, { error: "must be greater than 0 and less than 100" }),
    amountPercentage: aboveZeroAtMost(1000),
  },
  filters: {
    minMarketCap: nullableAtLeastZero(1e15),
    maxMarketCap: nullableAtLeastZero(1e15),
    minLiquidity: nullableAtLeastZero(1e15),
    maxPositionAgeDays: aboveZeroAtMost(3650).nullable(),
    allowedTokens: tokenList(),
    blockedTokens: tokenList(),
    minSignalStrength: intBetween(1, 5),
    signalTypes: signalTypeList(),
    sources: sourceList(),
    rejectFreezeAuthority: bool(),
    rejectMintAuthority: bool(),
    rejectPermanentDelegate: bool(),
    rejectPausable: bool(),
    rejectTransferHook: bool(),
    rejectDefaultFrozen: bool(),
    rejectUnknownExtensions: bool(),
    maxTransferFeeBps: intBetween(0, 10_000),
    requireSellable: bool(),
  },
  slippage: {
    defaultBps: intBetween(1, 10_000),
    maxBps: intBetween(1, 10_000),
    maxExitBps: intBetween(1, 10_000).nullable(),
  },
  timing: { minTimeBetweenTradesSeconds: intBetween(0, 31_536_000) },
  risk: { maxOpenPositions: intBetween(1, 100_000).nullable() },
} as const;

const minimumAgentBalance = between(0, 1_000_000);

/** The complete configuration, with the rules that span fields (checked after merging). */
const TradingConfigSchema = z
  .strictObject({
    positionSizing: z.strictObject(groups.positionSizing, { error: objectError }),
    stopLoss: z.strictObject(groups.stopLoss, { error: objectError }),
    takeProfit: z.strictObject(groups.takeProfit, { error: objectError }),
    dca: z.strictObject(groups.dca, { error: objectError }),
    filters: z.strictObject(groups.filters, { error: objectError }),
    slippage: z.strictObject(groups.slippage, { error: objectError }),
    timing: z.strictObject(groups.timing, { error: objectError }),
    risk: z.strictObject(groups.risk, { error: objectError }),
    minimumAgentBalance,
  })
  .superRefine((c, ctx) => {
    // PRODUCT.md §3: `fixed` sizing needs fixedAmountSol > 0.
    if (c.positionSizing.type === "fixed" && c.positionSizing.fixedAmountSol === null) {
      ctx.addIssue({
        code: "custom",
        path: ["positionSizing", "fixedAmountSol"],
        message: "is required when positionSizing.type is 'fixed'",
      });
    }
    if (c.slippage.defaultBps > c.slippage.maxBps) {
      ctx.addIssue({ code: "custom", path: ["slippage", "defaultBps"], message: "must not exceed slippage.maxBps" });
    }
    const { minMarketCap, maxMarketCap } = c.filters;
    if (minMarketCap !== null && maxMarketCap !== null && minMarketCap > maxMarketCap) {
      ctx.addIssue({
        code: "custom",
        path: ["filters", "minMarketCap"],
        message: "must not exceed filters.maxMarketCap",
      });
    }
  });

/** A partial configuration: every group and every field optional, unknown keys refused. */
export const TradingConfigPatchSchema = z.strictObject(
  {
    positionSizing: z.strictObject(groups.positionSizing, { error: objectError }).partial().optional(),
    stopLoss: z.strictObject(groups.stopLoss, { error: objectError }).partial().optional(),
    takeProfit: z.strictObject(groups.takeProfit, { error: objectError }).partial().optional(),
    dca: z.strictObject(groups.dca, { error: objectError }).partial().optional(),
    filters: z.strictObject(groups.filters, { error: objectError }).partial().optional(),
    slippage: z.strictObject(groups.slippage, { error: objectError }).partial().optional(),
    timing: z.strictObject(groups.timing, { error: objectError }).partial().optional(),
    risk: z.strictObject(groups.risk, { error: objectError }).partial().optional(),
    minimumAgentBalance: minimumAgentBalance.optional(),
  },
  {
    // A missing `config` is most often a configuration sent without its wrapper: say so.
    error: (iss) =>
      iss.code !== "invalid_type"
        ? undefined
        : iss.input === undefined
          ? 'is missing: send {"config": {...}} with the changed fields inside (or {"config": null} to reset)'
          : "must be an object (a partial configuration) or null to reset",
  },
);

export const INVALID_CONFIG_MESSAGE = "Invalid trading configuration";

/** One readable string per zod issue: "stopLoss.percentage must be between 1 and 100". */
export function formatConfigIssues(issues: readonly z.core.$ZodIssue[], stripPrefix?: string): string[] {
  const out: string[] = [];
  for (const issue of issues) {
    const full = issue.path.map(String);
    const stripped = stripPrefix !== undefined && full[0] === stripPrefix;
    const where = (stripped ? full.slice(1) : full).join(".");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) out.push(`${where ? `${where}.` : ""}${key} is not a configuration field`);
    } else if (where) {
      out.push(`${where} ${issue.message}`);
    } else if (stripped) {
      out.push(`${stripPrefix} ${issue.message}`);
    } else {
      out.push(stripPrefix !== undefined ? issue.message : `configuration ${issue.message}`);
    }
  }
  return out;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Deep merge: nested objects merge key by key; arrays, primitives and null replace; undefined
 * leaves the target alone. Returns a new object; neither input is changed.
 */
export function deepMerge<T extends Record<string, unknown>>(target: T, patch: Record<string, unknown>): T {
  const out: Record<string, unknown> = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const current = out[key];
    out[key] = isPlainObject(value) && isPlainObject(current) ? deepMerge(current, value) : clone(value);
  }
  return out as T;
}

const clone = <V>(v: V): V => (Array.isArray(v) || isPlainObject(v) ? structuredClone(v) : v);

/**
 * The complete configuration for stored overrides (null or {} → the defaults). Overrides were
 * validated when written, so this is a pure merge; the result is a fresh object the caller owns.
 */
export function resolveConfig(overrides: Record<string, unknown> | null | undefined): TradingConfig {
  return deepMerge(structuredClone(DEFAULT_TRADING_CONFIG) as TradingConfig & Record<string, unknown>, overrides ?? {});
}

const storedConfigs = new Map<string, Readonly<TradingConfig>>();

/**
 * The complete configuration for the overrides JSON stored in agent_configs (null → defaults),
 * memoized by its text: the monitor and the signal fan-out resolve it for every position and
 * agent, and most agents share a handful of configurations. The result is shared: read only.
 */
export function resolveStoredConfig(overridesJson: string | null): Readonly<TradingConfig> {
  const key = overridesJson ?? "";
  let c = storedConfigs.get(key);
  if (!c) {
    c = deepFreeze(resolveConfig(overridesJson ? (JSON.parse(overridesJson) as Record<string, unknown>) : null));
    if (storedConfigs.size >= 10_000) storedConfigs.clear();
    storedConfigs.set(key, c);
  }
  return c;
}

export type ConfigUpdateResult =
  | { ok: true; overrides: Record<string, unknown>; config: TradingConfig }
  | { ok: false; details: string[] };

/**
 * Applies PUT /agents/:id/config: `null` resets to defaults; a partial configuration is validated
 * on its own (unknown keys, types, ranges), merged over the stored overrides, and the merged
 * whole is validated again for the cross-field rules. Nothing is written by this function.
 */
export function applyConfigUpdate(
  currentOverrides: Record<string, unknown> | null,
  patch: unknown,
): ConfigUpdateResult {
  if (patch === null) return { ok: true, overrides: {}, config: resolveConfig({}) };
  const parsed = TradingConfigPatchSchema.safeParse(patch);
  if (!parsed.success) return { ok: false, details: formatConfigIssues(parsed.error.issues) };
  const overrides = deepMerge(currentOverrides ?? {}, parsed.data as Record<string, unknown>);
  const merged = resolveConfig(overrides);
  const whole = TradingConfigSchema.safeParse(merged);
  if (!whole.success) return { ok: false, details: formatConfigIssues(whole.error.issues) };
  return { ok: true, overrides, config: merged };
}

function deepFreeze<T>(v: T): T {
  if (typeof v === "object" && v !== null) {
    for (const inner of Object.values(v)) deepFreeze(inner);
    Object.freeze(v);
  }
  return v;
}
