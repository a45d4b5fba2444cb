import { z } from "zod";
import { parseReplicaUrl } from "./db/replication/replica-url.ts";
import { parseRange } from "./ip-ranges.ts";

// One zod schema over the environment, parsed once at start (PRODUCT.md §1). Every variable the
// service reads is here and in .env.example; README's configuration table mirrors this file.

const BASE58_KEY = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** SWAP_QUOTE_TAKER's default: an ed25519 public key generated once, its secret key discarded. */
export const DEFAULT_QUOTE_TAKER = "F262GgRyU6WpweNwwsXqugtLoGJzLksHQgMd2wrG3oLT";

// Booleans read the same in any case and around spaces (`TRUE`, ` Yes`): an environment file
// written by hand is not a reason to refuse to start (issue 44 item 6).
const boolWord = z.preprocess(
  (v) => (typeof v === "string" ? v.trim().toLowerCase() : v),
  z.enum(["true", "false", "1", "0", "yes", "no"], { error: "must be true or false" }),
);
const isTrue = (v: string) => v === "true" || v === "1" || v === "yes";
const bool = (def: boolean) => z.preprocess((v) => v ?? String(def), boolWord.transform(isTrue));

const int = (def: number, min: number, max: number) =>
  z.coerce
    .number({ error: "must be a whole number" })
    .int({ error: "must be a whole number" })
    .min(min, { error: `must be at least ${min}` })
    .max(max, { error: `must be at most ${max}` })
    .default(def);

const decimal = (def: number, min: number, max: number) =>
  z.coerce
    .number({ error: "must be a number" })
    .min(min, { error: `must be at least ${min}` })
    .max(max, { error: `must be at most ${max}` })
    .default(def);

/** A base URL; the empty string disables the source (PRODUCT.md §5). */
const sourceUrl = (def: string) =>
  z
    .string()
    .default(def)
    .refine((v) => v === "" || URL.canParse(v), { error: "must be an http(s) URL or empty" })
    .transform((v) => v.replace(/\/+$/, ""));

/** Comma-separated base58 addresses (empty: none); `error` names what a malformed entry breaks. */
const base58List = (error: string) =>
  z
    .string()
    .default("")
    .refine((v) => parseExtraPrograms(v).ok, { error })
    .transform((v) => {
      const r = parseExtraPrograms(v);
      return r.ok ? r.programs : [];
    });

/** Comma-separated values, trimmed, empty ones dropped. */
const commaList = z
  .string()
  .default("")
  .transform((v) =>
    v
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  );

const optionalSecret = z
  .string()
  .optional()
  .transform((v) => (v === "" ? undefined : v));

export const configSchema = z.object({
  NODE_ENV: z
    .enum(["development", "production", "test"], { error: "must be development, production or test" })
    .default("production"),
  HOST: z.string().min(1).default("127.0.0.1"),
  PORT: int(3000, 0, 65535),
  PUBLIC_PORT: z.coerce
    .number()
    .int()
    .min(1)
    .max(65535)
    .optional()
    .or(z.literal("").transform(() => undefined)),
  DATABASE_PATH: z.string().min(1).default("./data/trading.db"),
  DB_SYNC: z.enum(["normal", "full"], { error: "must be normal or full" }).default("normal"),
  LOG_LEVEL: z
    .enum(["debug", "info", "warn", "error", "silent"], { error: "must be debug, info, warn, error or silent" })
    .default("info"),

  JWT_SECRET: optionalSecret.refine((v) => v === undefined || Buffer.byteLength(v) >= 32, {
    error: "must be at least 32 bytes long",
  }),
  ADMIN_EMAIL: optionalSecret.refine((v) => v === undefined || z.email().safeParse(v).success, {
    error: "must be an email address",
  }),
  ADMIN_PASSWORD: optionalSecret,
  ALLOW_REGISTRATION: bool(false),
  CORS_ORIGINS: commaList,
  TRUST_PROXY: bool(false),
  /**
   * Reverse proxies whose X-Forwarded-For (and -Proto) are believed: addresses or CIDRs, comma
   * separated. TRUST_PROXY=true adds loopback (a proxy on the same machine).
   */
  TRUSTED_PROXIES: commaList.refine((list) => list.every((e) => parseRange(e) !== null), {
    error: "must be IP addresses or CIDR ranges, comma separated",
  }),
  LOGIN_RATE_LIMIT_PER_MINUTE: int(20, 1, 100000),
  SIGNAL_RATE_LIMIT_PER_MINUTE: int(120, 1, 1000000),
  DATA_SOURCES_RATE_LIMIT_PER_MINUTE: int(30, 1, 100000),
  WALLETS_RATE_LIMIT_PER_MINUTE: int(5, 1, 100000),
  /**
   * Comment frames on idle GET /events streams, so proxies and clients keep the connection: well
   * under HTTP_IDLE_TIMEOUT_SECONDS and the usual proxy read timeouts (nginx: 60 s).
   */
  EVENTS_HEARTBEAT_SECONDS: decimal(10, 0.01, 3600),
  /**
   * Bun.serve idleTimeout: a connection with nothing sent or received for this long is closed.
   * Always set explicitly: left unset, Bun uses 10 s and prints a plain-text warning into the log.
   * The event stream is exempt: its heartbeat keeps it alive.
   */
  HTTP_IDLE_TIMEOUT_SECONDS: int(30, 1, 255),

  SIMULATION_INITIAL_SOL: decimal(10, 0, 1_000_000_000),
  /**
   * Priority fee of every simulated swap. Unset (the default): the most a live swap pays under
   * SWAP_API (LIVE_PRIORITY_FEE_MAX, the tip when Jito is on in build mode, an order's own fee when
   * higher: src/trading/rules/simulation-fees.ts), so simulation is never kinder than live.
   */
  SIMULATION_PRIORITY_FEE_SOL: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.coerce
      .number({ error: "must be a number" })
      .min(0, { error: "must be at least 0" })
      .max(1, { error: "must be at most 1" })
      .optional(),
  ),
  MONITOR_INTERVAL_SECONDS: int(10, 1, 86400),
  /** A buy signal decided later than this after it was received opens nothing (outcome `stale`). */
  SIGNAL_MAX_AGE_SECONDS: int(30, 1, 86400),
  /**
   * The most the signal queue may lag (age of its oldest undecided signal, seconds) before /health
   * reports it degraded and POST /trading-signals answers 503 (docs/decisions/under-load.md).
   */
  SIGNAL_QUEUE_MAX_LAG_SECONDS: int(5, 1, 3600),
  /** Signal hooks (docs/decisions/signal-hooks.md): a delivery's `timestamp` older than this is refused. */
  SIGNAL_HOOK_MAX_LAG_SECONDS: int(60, 1, 86400),
  /** Deliveries one hook takes per minute; over it 429. */
  SIGNAL_HOOK_RATE_LIMIT_PER_MINUTE: int(60, 1, 100000),
  /** Wrong or revoked hook tokens (and refused addresses) one client address may send per minute before 429. */
  SIGNAL_HOOK_MISSES_PER_MINUTE: int(10, 1, 100000),
  /**
   * The service's public address (https://trading.example.com), so a hook's `url` is absolute;
   * empty: a path.
   */
  PUBLIC_BASE_URL: z
    .string()
    .default("")
    .refine((v) => v === "" || /^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/.test(v), {
      error: "must be an http(s) URL such as https://trading.example.com",
    })
    .transform((v) => v.replace(/\/+$/, "")),
  LIVE_TRADING_ENABLED: bool(false),
  /**
   * The most priority fee (lamports) a stop-loss or stale exit pays when it is re-sent after its
   * blockhash expired unconfirmed (it doubles per attempt from the fee the expired attempt paid).
   */
  LIVE_EXIT_PRIORITY_FEE_MAX: int(5_000_000, 0, 1_000_000_000),
  /**
   * Simulate the SIGNED transaction too (signatures verified) before sending. Unset or empty: on,
   * except with SWAP_API=build, whose inspection already simulated the very message that is signed
   * (trading/live/index.ts; docs/decisions.md "Live latency").
   */
  LIVE_SIMULATE_BEFORE_SEND: z.preprocess(
    (v) => (typeof v === "string" && v.trim() === "" ? undefined : v),
    boolWord.optional().transform((v) => (v === undefined ? undefined : isTrue(v))),
  ),
  /**
   * Priority fee of a live swap. `build`: this percentile of getRecentPrioritizationFees over the
   * swap's writable accounts, at most LIVE_PRIORITY_FEE_MAX lamports per transaction, at
   * LIVE_COMPUTE_UNIT_LIMIT compute units. `v1`: the cap of Jupiter's own estimate.
   */
  LIVE_PRIORITY_FEE_PERCENTILE: int(75, 0, 100),
  LIVE_PRIORITY_FEE_MAX: int(1_000_000, 0, 100_000_000),
  /**
   * The priority fee's cap relative to the trade: basis points of its SOL (a buy's input, a sale's
   * least output); the lower of this and LIVE_PRIORITY_FEE_MAX wins. 50: 0.5 % per swap.
   */
  LIVE_PRIORITY_FEE_MAX_BPS: int(50, 1, 10_000),
  LIVE_COMPUTE_UNIT_LIMIT: int(400_000, 10_000, 1_400_000),
  /** Jito block engine: set, a live swap goes out as a bundle with one JITO_TIP_LAMPORTS tip; empty: off. */
  JITO_BLOCK_ENGINE_URL: sourceUrl(""),
  JITO_TIP_LAMPORTS: int(10_000, 1_000, 10_000_000),
  /**
   * The accounts a Jito tip may go to, comma-separated base58. Empty: Jito's eight published
   * mainnet tip accounts (market/jito.ts). A block engine listing any other is refused before signing.
   */
  JITO_TIP_ACCOUNTS: base58List("must be comma-separated base58 addresses"),
  /**
   * Programs a live swap may call besides the built-in ones (Compute Budget, System, SPL Token,
   * Token-2022, Associated Token Account, Jupiter v6): comma-separated base58 program ids.
   */
  LIVE_EXTRA_PROGRAMS: base58List("must be comma-separated base58 program ids"),

  /**
   * Token-2022 transfer-hook programs trusted not to block sales: a mint whose hook calls one of
   * them passes token screening's rejectTransferHook (docs/decisions/token-2022-screening.md).
   */
  TOKEN_TRANSFER_HOOK_ALLOWLIST: base58List("must be comma-separated base58 program ids"),

  HTTP_TIMEOUT_MS: int(5000, 100, 120000),
  PRICE_NETWORK_URL: sourceUrl("https://hermes.pyth.network"),
  PRICE_NETWORK_API_KEY: optionalSecret,
  SOL_PRICE_FEED_URL: sourceUrl("https://api.jup.ag"),
  SWAP_AGGREGATOR_URL: sourceUrl("https://api.jup.ag"),
  SWAP_AGGREGATOR_API_KEY: optionalSecret,
  /**
   * Which Jupiter Swap API trades: `build` (v2 /build, the transaction assembled here), `order`
   * (v2 /order + /execute, Jupiter lands it) or `v1` (legacy /swap/v1, until Jupiter retires it).
   */
  SWAP_API: z.enum(["build", "order", "v1"], { error: "must be build, order or v1" }).default("build"),
  /**
   * The wallet simulation quotes name as `taker` on /swap/v2/build (which requires one only to shape
   * the instructions; the simulation uses the quote's amounts). Default: a fixed public key whose
   * secret key was never kept (docs/decisions.md "Simulation on Swap API v2").
   */
  SWAP_QUOTE_TAKER: z
    .string()
    .default(DEFAULT_QUOTE_TAKER)
    .transform((v) => (v === "" ? DEFAULT_QUOTE_TAKER : v))
    .refine((v) => BASE58_KEY.test(v), { error: "must be a base58 public key" }),
  /**
   * Client-side pacing of every Jupiter call (price, quote, swap), requests per minute. Empty: the
   * published limit of the tier in use (keyless about 30, with a key 60). Raise it for a paid tier,
   * or for load tests against a local fake (the benchmark does).
   */
  SWAP_AGGREGATOR_REQUESTS_PER_MINUTE: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.coerce
      .number({ error: "must be a whole number" })
      .int({ error: "must be a whole number" })
      .min(1, { error: "must be at least 1" })
      .max(100_000_000, { error: "must be at most 100000000" })
      .optional(),
  ),
  MARKET_DATA_URL: sourceUrl("https://api.dexscreener.com"),
  LIQUIDITY_CHECKS: bool(true),
  WHALE_DATA_URL: sourceUrl("https://public-api.birdeye.so"),
  WHALE_DATA_API_KEY: optionalSecret,
  SOLANA_RPC_URL: sourceUrl("https://api.mainnet-beta.solana.com"),
  /**
   * A second Solana node (another provider): set, a sent swap is called expired only when this
   * node proves it too, from its own reads; empty: SOLANA_RPC_URL alone is trusted with it.
   */
  SOLANA_CONFIRM_RPC_URL: sourceUrl(""),
  /**
   * Block explorer the dashboard links transactions, wallets and tokens to (<url>/tx/<signature>,
   * /account/<address>, /token/<mint>; a query such as ?cluster=devnet is kept); empty: no links.
   */
  EXPLORER_URL: sourceUrl("https://solscan.io"),
  /** PRODUCT.md §7: a built-in synthetic market in place of every outside source (src/market/demo). */
  DEMO_MARKET: bool(false),
  /** Strategy lab (PRODUCT.md §7): days of 1-minute price bars recorded after each signal. */
  PRICE_HISTORY_DAYS: int(7, 1, 365),
  /** GeckoTerminal public API for importing older price history (keyless, 30 requests/min); empty: off. */
  HISTORY_DATA_URL: sourceUrl("https://api.geckoterminal.com/api/v2"),

  /** Copy trading (PRODUCT.md §7): followed wallets per user, poll interval, oldest trade still copied. */
  WALLET_WATCH_MAX: int(50, 0, 10_000),
  WALLET_WATCH_INTERVAL_SECONDS: int(15, 1, 3600),
  WALLET_WATCH_MAX_AGE_SECONDS: int(120, 1, 86400),
  /** Copy trading's pubsub websocket; unset: SOLANA_RPC_URL with http→ws, https→wss; empty: polling only. */
  SOLANA_WS_URL: z
    .string()
    .optional()
    .refine((v) => v === undefined || v === "" || /^wss?:\/\/[^\s]+$/.test(v), {
      error: "must be a ws(s) URL or empty",
    }),
  /** DEX programs a copied swap may go through besides src/copytrading/dex-programs.ts: comma-separated base58 ids. */
  WALLET_WATCH_EXTRA_PROGRAMS: base58List("must be comma-separated base58 program ids"),

  /** Notifications (PRODUCT.md §7): webhook URLs on loopback/private networks, the Telegram bot. */
  WEBHOOK_ALLOW_PRIVATE_URLS: bool(false),
  WEBHOOK_MAX_IN_FLIGHT: int(8, 1, 1000),
  /** How long one webhook delivery may take before it counts as failed (and is retried). */
  WEBHOOK_TIMEOUT_SECONDS: int(5, 1, 60),
  TELEGRAM_BOT_TOKEN: optionalSecret,
  /** The audit log (PRODUCT.md §2): entries older than this many days are pruned. */
  AUDIT_LOG_RETENTION_DAYS: int(365, 1, 36_500),
  /**
   * Push heartbeat (PRODUCT.md §7, src/health/heartbeat.ts): a GET every interval while healthy,
   * the fail URL (default <url>/fail) while degraded. Empty: off. The URL is a credential of the
   * monitor (healthchecks.io's check UUID, Uptime Kuma's push token): never logged.
   */
  HEARTBEAT_URL: sourceUrl(""),
  HEARTBEAT_FAIL_URL: sourceUrl(""),
  HEARTBEAT_INTERVAL_SECONDS: int(60, 5, 86_400),
  TELEGRAM_API_URL: sourceUrl("https://api.telegram.org").refine((v) => v !== "", {
    error: "must be an http(s) URL",
  }),

  /**
   * Continuous replication with Litestream (docs/backups.md): s3://BUCKET/PATH, sftp://USER@HOST/PATH
   * or file:///DIR; empty: off (no Litestream process, the service's own WAL checkpoints).
   */
  REPLICA_URL: optionalSecret.refine((v) => v === undefined || !("error" in parseReplicaUrl(v)), {
    error: "must be an s3://BUCKET/PATH, sftp://USER@HOST/PATH or file:///DIR URL",
  }),
  /** The S3 API of a store that is not AWS (Backblaze B2, Cloudflare R2, MinIO). */
  REPLICA_S3_ENDPOINT: sourceUrl(""),
  /** How often Litestream sends new commits to the replica (each send is a request: docs/backups.md "Cost"). */
  REPLICA_SYNC_INTERVAL_SECONDS: int(1, 1, 86400),
  /** The Litestream binary; default: `litestream` on PATH, else the one npm installed with the service. */
  LITESTREAM_BIN: optionalSecret,
  /** Credentials of an s3:// replica, handed to Litestream only (the usual AWS variables). */
  AWS_ACCESS_KEY_ID: optionalSecret,
  AWS_SECRET_ACCESS_KEY: optionalSecret,
  AWS_REGION: optionalSecret,
  /** A variable that looks like one of these but is not (a typo) stops the start instead of a warning. */
  STRICT_CONFIG: bool(false),
});

export type Config = z.output<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.join("\n")}`);
  }
}

/**
 * Parses the environment. Throws ConfigError with one line per problem, naming the variable and
 * never echoing its value (a value may be a secret).
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const result = configSchema.safeParse(env);
  if (result.success) {
    const conflicts = [...removedVariables(env), ...demoMarketConflicts(result.data, env)];
    if (conflicts.length > 0) throw new ConfigError(conflicts);
    return result.data;
  }
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join(".") || "environment";
    return `${name}: ${issue.message}`;
  });
  throw new ConfigError(problems);
}

/**
 * Variables that no longer exist but whose silent loss would change what live trading pays:
 * LIVE_PRIORITY_FEE as a lamport cap (its "auto" meant 0.001 SOL, LIVE_PRIORITY_FEE_MAX's default).
 */
function removedVariables(env: Record<string, string | undefined>): string[] {
  const fee = env.LIVE_PRIORITY_FEE;
  if (fee === undefined || fee === "" || fee === "auto") return [];
  return [
    "LIVE_PRIORITY_FEE: no longer read; the priority-fee cap is LIVE_PRIORITY_FEE_MAX (lamports per transaction): move the value there and remove LIVE_PRIORITY_FEE",
  ];
}

/**
 * PRODUCT.md §7: live trading refuses to start on the demo market (its prices are made up, and it
 * has no chain to send to). Either switch is a conflict, named with both variables.
 */
function demoMarketConflicts(config: Config, env: Record<string, string | undefined>): string[] {
  if (!config.DEMO_MARKET) return [];
  const out: string[] = [];
  if (config.LIVE_TRADING_ENABLED)
    out.push("DEMO_MARKET: live trading cannot run on the demo market; unset LIVE_TRADING_ENABLED or DEMO_MARKET");
  const wallets = walletVariables(env).map((w) => w.name);
  if (wallets.length > 0)
    out.push(
      `DEMO_MARKET: live wallets (${wallets.join(", ")}) cannot be used with the demo market; remove them or unset DEMO_MARKET`,
    );
  return out;
}

/** Live wallet secrets from WALLET_1, WALLET_2, ... in numeric order (parsed in wallets/). */
export function walletVariables(env: Record<string, string | undefined>): Array<{ name: string; value: string }> {
  return Object.keys(env)
    .filter((k) => /^WALLET_\d+$/.test(k) && (env[k] ?? "") !== "")
    .sort((a, b) => Number(a.slice(7)) - Number(b.slice(7)))
    .map((name) => ({ name, value: env[name] as string }));
}

/** LIVE_EXTRA_PROGRAMS, TOKEN_TRANSFER_HOOK_ALLOWLIST: comma-separated program ids; `bad` names the first malformed entry. */
export function parseExtraPrograms(
  text: string | undefined,
): { ok: true; programs: string[] } | { ok: false; bad: string } {
  const programs = (text ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = programs.find((p) => !BASE58_KEY.test(p));
  return bad === undefined ? { ok: true, programs } : { ok: false, bad };
}
