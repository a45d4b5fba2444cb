import { configSchema } from "../config.ts";

// Configuration that cannot fail silently (issue 34 item 4; docs/decisions/operator-experience-iv.md):
// a variable of the environment (or --env-file, or the .env Bun loads) that the service does not
// read but that looks like one it does is named at start with the likely one. "Looks like": an
// upper-case name within edit distance 2 of a known name (1 for names under 8 characters, so HOME
// is not taken for HOST), a known name in other letter case, or one of our own prefixes. Values
// are never read. STRICT_CONFIG=true turns the warnings into a configuration error (exit 2).

/** Read outside the configuration schema: live wallets (WALLET_N) and the build's own. */
const EXTRA_NAMES = ["TRADING_AGENT_BUILD_COMMIT", "TRADING_AGENT_DASHBOARD_BUNDLE"];
const WALLET = /^WALLET_\d+$/;

const KNOWN_VARIABLES: readonly string[] = [...Object.keys(configSchema.shape), ...EXTRA_NAMES].sort();

/** Prefixes only this service uses; generic ones (HTTP_, NODE_, LOG_, DATA_) would catch other programs' variables. */
const OWN_PREFIXES = [
  "LIVE_",
  "SWAP_",
  "SIMULATION_",
  "MONITOR_",
  "SIGNAL_",
  "DEMO_",
  "JITO_",
  "WALLET_",
  "WEBHOOK_",
  "TELEGRAM_",
  "SOLANA_",
  "WHALE_",
  "PRICE_NETWORK",
  "SOL_PRICE",
  "MARKET_DATA",
  "HISTORY_DATA",
  "LIQUIDITY_",
  "ADMIN_",
  "JWT_",
  "TRADING_AGENT_",
];

/** Trading settings people look for in the environment: they live in each agent's configuration. */
const AGENT_SETTINGS = ["STOP_LOSS", "TAKE_PROFIT", "DCA_", "POSITION_SIZ", "SLIPPAGE", "MIN_SIGNAL", "MAX_POSITION"];

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** The closest known name within reach, or null. */
function likelyName(name: string, known: readonly string[]): string | null {
  const upper = name.toUpperCase();
  if (upper !== name && known.includes(upper)) return upper;
  const reach = name.length < 8 ? 1 : 2;
  let best: { name: string; d: number } | null = null;
  for (const k of known) {
    if (Math.abs(k.length - upper.length) > reach) continue;
    const d = editDistance(upper, k);
    if (d <= reach && (best === null || d < best.d)) best = { name: k, d };
  }
  return best?.name ?? null;
}

/** One warning per variable that looks like ours but is not read; [] when all is well. */
export function unknownVariableWarnings(
  env: Record<string, string | undefined>,
  known: readonly string[] = KNOWN_VARIABLES,
): string[] {
  const out: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (known.includes(name) || WALLET.test(name) || !/^[A-Za-z][A-Za-z0-9_]*$/.test(name)) continue;
    const upper = name.toUpperCase();
    const likely = likelyName(name, known);
    if (likely) {
      out.push(`${name} is not a variable this service reads; did you mean ${likely}?`);
    } else if (AGENT_SETTINGS.some((p) => upper.startsWith(p))) {
      out.push(
        `${name} is not a variable this service reads; stop-loss, take-profit, sizing and filters are set per agent (PUT /api/v1/agents/:id/config)`,
      );
    } else if (name === upper && OWN_PREFIXES.some((p) => name.startsWith(p))) {
      out.push(`${name} is not a variable this service reads; see .env.example for the known ones`);
    }
  }
  return out;
}
