import type { Database } from "bun:sqlite";
import type { Scope } from "../../src/auth/scopes.ts";
import { loadConfig } from "../../src/config.ts";
import { type DatabaseHandle, openDatabase } from "../../src/db/client.ts";
import { SignalRepository } from "../../src/db/repositories/signals.ts";
import { createLogger } from "../../src/logger.ts";
import { SOL_MINT } from "../../src/money.ts";
import { createServices, type ServiceOptions, type Services } from "../../src/services.ts";
import { generateSimulationAddress } from "../../src/wallets/simulation-address.ts";

// Set-up of the benchmark's data, done before the service process starts (documented in
// docs/performance.md): users, agents and API keys through the service's own domain code
// (AccountService.register, AgentService.create/update, ApiKeyService.create) on the same
// database file; the large tables (1,000,000 transactions, 100,000 historical swaps, 10,000
// positions) with raw prepared INSERTs of the rows the trading engine writes, because creating
// them through trades would take longer than the whole benchmark.

export const BENCH_PASSWORD = "Bench-Passw0rd!";
export const BENCH_JWT_SECRET = "bench-jwt-secret-0123456789abcdef0123456789abcdef";

/**
 * The environment of a service built in this process (openServices): production defaults, the
 * market's URLs (a fake's `env()`), no Solana RPC unless `extra` gives one; `extra` wins.
 */
export function inProcessEnv(
  databasePath: string,
  market: Record<string, string>,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    ...market,
    DATABASE_PATH: databasePath,
    NODE_ENV: "production",
    JWT_SECRET: BENCH_JWT_SECRET,
    ALLOW_REGISTRATION: "true",
    SOLANA_RPC_URL: "",
    ...extra,
  };
}
export const BONK = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";

/** A logger that formats every line like production but writes nowhere. */
const quietLogger = () => createLogger({ level: "info", write: () => {} });

export interface SeedUser {
  userId: string;
  email: string;
  token: string;
  agentIds: string[];
  apiKey?: string;
}

/** Opens (and migrates) the database and builds the service container on it, in this process. */
export function openServices(
  env: Record<string, string>,
  opts: ServiceOptions = {},
): { services: Services; database: DatabaseHandle } {
  const config = loadConfig(env);
  const database = openDatabase(config.DATABASE_PATH, { sync: config.DB_SYNC });
  const services = createServices(config, database, {
    logger: quietLogger(),
    passwordCost: { memoryCost: 4096, timeCost: 1 },
    ...opts,
  });
  return { services, database };
}

/** A user with `agents` automated simulation agents and, optionally, a key with `scopes`. */
export async function seedUser(s: Services, email: string, agents: number, scopes?: Scope[]): Promise<SeedUser> {
  const login = await s.accounts.register(email, BENCH_PASSWORD, true);
  const userId = login.user.id;
  const agentIds: string[] = [];
  for (let i = 0; i < agents; i++) {
    const a = s.agents.create(userId, { name: `agent-${i + 1}` });
    s.agents.update(userId, a.id, { automatedTradingSimulation: true });
    agentIds.push(a.id);
  }
  const apiKey = scopes ? s.apiKeys.create(userId, "bench", scopes).key : undefined;
  return { userId, email, token: login.accessToken, agentIds, apiKey };
}

const walletOf = (sqlite: Database, agentId: string): string =>
  sqlite
    .query<{ w: string }, [string]>(
      "SELECT wallet_address AS w FROM agent_wallets WHERE agent_id = ? AND wallet_type = 'simulation'",
    )
    .get(agentId)!.w;

const iso = (ms: number) => new Date(ms).toISOString();

/** The id of the user's (first) API key. */
export const apiKeyIdOf = (sqlite: Database, userId: string): string =>
  sqlite.query<{ id: string }, [string]>("SELECT id FROM api_keys WHERE user_id = ?").get(userId)!.id;

/**
 * `n` pending buy signals of `userId` posted with key `keyId`, stored in one transaction through
 * the repository the intake writes with: a backlog as POST /trading-signals leaves it.
 */
export function storePendingSignals(sqlite: Database, userId: string, keyId: string, n: number, source: string): void {
  const signals = new SignalRepository(sqlite);
  const signal = {
    tokenAddress: BONK,
    symbol: "BONK",
    signalType: "buy",
    signalStrength: 4,
    source,
    activationReason: null,
  };
  const now = new Date().toISOString();
  sqlite.transaction(() => {
    for (let i = 0; i < n; i++) signals.insert(userId, keyId, signal, now);
  })();
}

/**
 * `count` agent_transactions rows for one agent, half BUY half SELL (alternating in blocks so a
 * filter on type skips rows), one second apart back from `endMs`.
 */
export function seedTransactions(sqlite: Database, agentId: string, count: number, endMs: number): void {
  const wallet = walletOf(sqlite, agentId);
  const ins = sqlite.query(
    `INSERT INTO agent_transactions (id, agent_id, wallet_address, transaction_type, transaction_value_usd, transaction_time,
       destination_address, signal_id, fees, routes, input_mint, input_symbol, input_amount, input_price, output_mint,
       output_symbol, output_amount, output_price, slippage, price_impact, is_dca, is_take_profit, trading_mode,
       transaction_hash, status, position_id, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, NULL, '0.000105', '["Raydium"]', ?, ?, ?, ?, ?, ?, ?, ?, '300', '0.12', 0, 0, 'simulation', ?, 'confirmed', NULL, ?, ?)`,
  );
  const batch = 50_000;
  for (let start = 0; start < count; start += batch) {
    sqlite.transaction(() => {
      for (let i = start; i < Math.min(count, start + batch); i++) {
        const t = iso(endMs - (count - i) * 1000);
        const buy = i % 3 !== 0;
        ins.run(
          crypto.randomUUID(),
          agentId,
          wallet,
          buy ? "BUY" : "SELL",
          (50 + (i % 1000) / 10).toFixed(2),
          t,
          BONK,
          buy ? SOL_MINT : BONK,
          buy ? "SOL" : "BONK",
          buy ? "0.5" : "5000",
          buy ? "100" : "0.01",
          buy ? BONK : SOL_MINT,
          buy ? "BONK" : "SOL",
          buy ? "5000" : "0.5",
          buy ? "0.01" : "100",
          `sim_${i.toString(16).padStart(32, "0")}`,
          t,
          t,
        );
      }
    })();
  }
}

/** `count` historical_swaps rows for one agent, one closed position per second back from `endMs`. */
export function seedHistoricalSwaps(sqlite: Database, agentId: string, count: number, endMs: number): void {
  const wallet = walletOf(sqlite, agentId);
  const reasons = ["manual", "stop_loss", "stale_trade", "take_profit", "signal"];
  const ins = sqlite.query(
    `INSERT INTO historical_swaps (id, agent_id, wallet_address, token_address, token_symbol, amount, purchase_price, sale_price,
       change_percent, profit_loss_usd, profit_loss_sol, purchase_time, sale_time, purchase_transaction_id, sale_transaction_id,
       signal_id, close_reason, position_id, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'BONK', '5000', '0.0001', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  sqlite.transaction(() => {
    for (let i = 0; i < count; i++) {
      const sale = endMs - (count - i) * 1000;
      const up = i % 2 === 0;
      ins.run(
        crypto.randomUUID(),
        agentId,
        wallet,
        BONK,
        up ? "0.00012" : "0.00009",
        up ? "20" : "-10",
        up ? "10.5" : "-5.25",
        up ? "0.1" : "-0.05",
        iso(sale - 3_600_000),
        iso(sale),
        crypto.randomUUID(),
        crypto.randomUUID(),
        String(i + 1),
        reasons[i % reasons.length] as string,
        crypto.randomUUID(),
        iso(sale),
        iso(sale),
      );
    }
  })();
}

/**
 * Open positions: every agent holds one position in each of `mints` (the engine's "one open
 * position per token" rule), bought at `entryPriceSol`, with its purchase transaction and a
 * token balance, as TradingEngine.openPosition writes them.
 */
export function seedOpenPositions(
  sqlite: Database,
  agentIds: readonly string[],
  mints: readonly string[],
  entryPriceSol: string,
  entryPriceUsd: string,
  nowMs: number,
): number {
  const now = iso(nowMs);
  const tx = sqlite.query(
    `INSERT INTO agent_transactions (id, agent_id, wallet_address, transaction_type, transaction_value_usd, transaction_time,
       destination_address, signal_id, fees, routes, input_mint, input_symbol, input_amount, input_price, output_mint,
       output_symbol, output_amount, output_price, slippage, price_impact, is_dca, is_take_profit, trading_mode,
       transaction_hash, status, position_id, created_at, updated_at)
     VALUES (?, ?, ?, 'BUY', '5.01', ?, ?, NULL, '0.000105', '["Raydium"]', ?, 'SOL', '0.05', '100', ?, 'TKN', '500', ?, '300', '0', 0, 0,
       'simulation', ?, 'confirmed', ?, ?, ?)`,
  );
  const pos = sqlite.query(
    `INSERT INTO positions (id, agent_id, wallet_address, trading_mode, token_address, token_symbol, token_decimals, signal_id,
       status, entry_price_sol, entry_price_usd, purchase_amount, cost_sol, cost_usd, remaining_amount, peak_price_sol,
       last_price_sol, last_price_usd, purchase_transaction_id, purchase_transaction_hash, opened_at, created_at, updated_at)
     VALUES (?, ?, ?, 'simulation', ?, 'TKN', 6, NULL, 'open', ?, ?, '500', '0.050105', '5.0105', '500', ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const bal = sqlite.query(
    `INSERT INTO agent_balances (id, agent_id, wallet_address, token_address, token_symbol, balance, decimals, last_updated, created_at)
     VALUES (?, ?, ?, ?, 'TKN', '500', 6, ?, ?)`,
  );
  let n = 0;
  sqlite.transaction(() => {
    for (const agentId of agentIds) {
      const wallet = walletOf(sqlite, agentId);
      for (const mint of mints) {
        const txId = crypto.randomUUID();
        const posId = crypto.randomUUID();
        const hash = `sim_${crypto.randomUUID().replace(/-/g, "")}`;
        tx.run(txId, agentId, wallet, now, mint, SOL_MINT, mint, entryPriceUsd, hash, posId, now, now);
        pos.run(
          posId,
          agentId,
          wallet,
          mint,
          entryPriceSol,
          entryPriceUsd,
          entryPriceSol,
          entryPriceSol,
          entryPriceUsd,
          txId,
          hash,
          now,
          now,
          now,
        );
        bal.run(crypto.randomUUID(), agentId, wallet, mint, now, now);
        n++;
      }
    }
  })();
  return n;
}

/** Distinct, mint-like addresses (base58, 44 characters). */
export function fakeMints(count: number): string[] {
  const out = new Set<string>();
  while (out.size < count) out.add(`${generateSimulationAddress().slice(4)}pump12345678`);
  return [...out];
}

/** POST /trading-signals in-process (`app.request`): a buy of `tokenAddress`, strength 4, with `apiKey`. */
export async function postBuySignal(
  app: { request(path: string, init: RequestInit): Response | Promise<Response> },
  apiKey: string,
  tokenAddress: string,
): Promise<Response> {
  return app.request("/api/v1/trading-signals", {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": apiKey },
    body: JSON.stringify({ tokenAddress, signalType: "buy", signalStrength: 4, source: "bench" }),
  });
}
