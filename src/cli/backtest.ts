import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { z } from "zod";
import { ApiKeyService } from "../auth/api-keys.ts";
import { BacktestRequestSchema, resolveVariants } from "../backtest/request.ts";
import { runBacktest } from "../backtest/run-backtest.ts";
import type { VariantSummary } from "../backtest/types.ts";
import { systemClock } from "../clock.ts";
import type { Config } from "../config.ts";
import { loadConfig } from "../config.ts";
import { openDatabase } from "../db/client.ts";
import { PriceBarRepository } from "../db/repositories/price-bars.ts";
import { PriceImpactRepository } from "../db/repositories/price-impacts.ts";
import { StrategyLabSignalRepository } from "../db/repositories/strategy-lab-signals.ts";
import { ValidationError } from "../errors.ts";
import { csvLine } from "../http/csv.ts";
import { isStrictIsoDateTime } from "../http/schemas.ts";
import { createLogger } from "../logger.ts";
import { createMarket } from "../market/index.ts";
import { flatSimulationPriorityFeeSol } from "../trading/rules/simulation-fees.ts";
import { UsageError } from "./args.ts";

// `trading-agent backtest --config variants.json [--from] [--to] [--source] [--email] [--out]`:
// the same run as POST /backtests (src/backtest/run-backtest.ts) over the
// user's signals in DATABASE_PATH, without storing a backtest: a comparison table on stdout and
// every variant's trades as CSV (the columns of GET /backtests/:id/trades?format=csv).

const TRADE_CSV_COLUMNS = [
  "variant",
  "signalId",
  "tokenAddress",
  "openedAt",
  "closedAt",
  "entryPriceSol",
  "exitPriceSol",
  "amount",
  "costSol",
  "profitLossSol",
  "changePercent",
  "closeReason",
  "takeProfitLevels",
  "dcaOrders",
] as const;

/** variants.json: a list of variants, or an object with them (and optionally initialSol, signals). */
const FileSchema = z.union([
  z.array(z.unknown()).transform((variants) => ({ variants })),
  z.looseObject({ variants: z.array(z.unknown()) }),
]);

interface BacktestCliOptions {
  configPath: string;
  email: string;
  from?: string;
  to?: string;
  source?: string;
  out: string;
}

interface BacktestCliResult {
  table: string;
  trades: number;
  out: string;
  signals: number;
  /** No swap aggregator to ask for token decimals: 6 was assumed. */
  decimalsAssumed: boolean;
}

const COMMAND = "backtest";

function readVariantsFile(path: string): Record<string, unknown> & { variants: unknown[] } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new UsageError(`cannot read --config ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`, COMMAND);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new UsageError(`--config ${path} is not valid JSON`, COMMAND);
  }
  const parsed = FileSchema.safeParse(raw);
  if (!parsed.success)
    throw new UsageError(`--config ${path} must hold a list of variants or {"variants": [...]}`, COMMAND);
  return parsed.data as Record<string, unknown> & { variants: unknown[] };
}

async function runBacktestCommand(config: Config, o: BacktestCliOptions): Promise<BacktestCliResult> {
  for (const [flag, v] of [
    ["--from", o.from],
    ["--to", o.to],
  ] as const)
    if (v !== undefined && !isStrictIsoDateTime(v)) throw new UsageError(`${flag} must be an ISO 8601 date`, COMMAND);
  const file = readVariantsFile(o.configPath);
  const fileSignals = (typeof file.signals === "object" && file.signals) || {};
  const request = BacktestRequestSchema.safeParse({
    name: "cli",
    initialSol: file.initialSol ?? 10,
    signals: {
      ...fileSignals,
      ...(o.source !== undefined ? { source: o.source } : {}),
      ...(o.from !== undefined ? { startDate: o.from } : {}),
      ...(o.to !== undefined ? { endDate: o.to } : {}),
    },
    variants: file.variants,
  });
  if (!request.success) {
    const issues = request.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new UsageError(`--config ${o.configPath}: ${issues.join("; ")}`, COMMAND);
  }
  const req = request.data;
  // The agent configuration's rules, as POST /backtests applies them: each problem named.
  let variants: ReturnType<typeof resolveVariants>;
  try {
    variants = resolveVariants(req.variants);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const details = Array.isArray(err.details) ? `: ${err.details.join("; ")}` : "";
    throw new UsageError(`--config ${o.configPath}: ${err.message}${details}`, COMMAND);
  }

  const database = openDatabase(config.DATABASE_PATH, { sync: config.DB_SYNC });
  try {
    const userId = new ApiKeyService(database, systemClock).userIdByEmail(o.email);
    if (!userId) throw new BacktestCliError(`no user with email ${o.email}`);
    const repo = new StrategyLabSignalRepository(database.sqlite);
    const sel = req.signals;
    const signals = "signalIds" in sel ? repo.byIds(userId, sel.signalIds) : repo.select(userId, sel);
    const logger = createLogger({ level: "warn", write: (l) => process.stderr.write(`${l}\n`) });
    const market = createMarket(config, { clock: systemClock, logger });
    const result = await runBacktest(
      { initialSol: req.initialSol, variants, signals },
      {
        bars: new PriceBarRepository(database.sqlite),
        impacts: new PriceImpactRepository(database.sqlite),
        // Decimals only round fills to atomic units; without the aggregator 6 is assumed (as the worker does).
        decimals: market.tokenPrices.configured ? market.decimals : { getDecimals: async () => new Map() },
        logger,
        priorityFeeSol: flatSimulationPriorityFeeSol(config),
        horizonMs: config.PRICE_HISTORY_DAYS * 86_400_000,
      },
    );
    await market.stop();
    const names = variants.map((v) => v.name);
    const out = resolve(o.out);
    const tmp = `${out}.tmp`;
    writeFileSync(
      tmp,
      csvLine(TRADE_CSV_COLUMNS) +
        result.trades
          .map((t) => csvLine(TRADE_CSV_COLUMNS.map((c) => (c === "variant" ? names[t.variant] : t[c]))))
          .join(""),
    );
    renameSync(tmp, out);
    const table = comparisonTable(
      result.variants.map((v) => ({ name: v.name, ...(JSON.parse(v.summary) as VariantSummary) })),
    );
    return {
      table,
      trades: result.trades.length,
      out,
      signals: signals.length,
      decimalsAssumed: !market.tokenPrices.configured && signals.length > 0,
    };
  } finally {
    database.close();
  }
}

class BacktestCliError extends Error {}

/** src/cli.ts's CliIo, restated so that this module does not import the CLI back. */
interface Io {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
}

/** The variants side by side, in the file's order. */
function comparisonTable(rows: ReadonlyArray<{ name: string } & VariantSummary>): string {
  const head = [
    "variant",
    "trades",
    "win rate",
    "P/L SOL",
    "return %",
    "max DD %",
    "profit factor",
    "avg hold min",
    "exposure",
  ];
  const body = rows.map((r) => [
    r.name,
    String(r.trades),
    `${(r.winRate * 100).toFixed(1)}%`,
    r.profitLossSol,
    r.returnPercent.toFixed(2),
    r.maxDrawdownPercent.toFixed(2),
    r.profitFactor === null ? "-" : r.profitFactor.toFixed(2),
    r.averageHoldMinutes.toFixed(1),
    `${(r.exposure * 100).toFixed(1)}%`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(head), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n");
}

/** The backtest command's run (its usage and help: src/cli/backtest-command.ts). */
export async function executeBacktest({
  options,
  io,
}: {
  options: Map<string, string | true>;
  io: Io;
}): Promise<number> {
  const opt = (name: string) => {
    const v = options.get(name);
    return typeof v === "string" && v !== "" ? v : undefined;
  };
  const configPath = opt("config");
  if (!configPath) throw new UsageError("--config is required", COMMAND);
  const config = loadConfig(io.env);
  const email = opt("email") ?? config.ADMIN_EMAIL;
  if (!email) throw new UsageError("--email is required (ADMIN_EMAIL is not set)", COMMAND);
  try {
    const r = await runBacktestCommand(config, {
      configPath,
      email,
      from: opt("from"),
      to: opt("to"),
      source: opt("source"),
      out: opt("out") ?? "backtest-trades.csv",
    });
    io.out(r.table);
    if (r.decimalsAssumed) io.err("note: SWAP_AGGREGATOR_URL is not set; token decimals assumed to be 6");
    io.err(`${r.signals} signals replayed; ${r.trades} trades written to ${r.out}`);
    return 0;
  } catch (err) {
    if (err instanceof BacktestCliError) {
      io.err(`error: ${err.message}`);
      return 1;
    }
    throw err;
  }
}
