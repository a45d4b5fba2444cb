import type { OpenPositionSource } from "../agents/open-positions.ts";
import type { Argon2Cost } from "../auth/passwords.ts";
import type { Clock } from "../clock.ts";
import type { TokenPriceLookup } from "../ledgers/token-price-lookup.ts";
import type { Logger } from "../logger.ts";
import type { MarketOptions } from "../market/index.ts";
import type { NotificationOptions } from "../notifications/index.ts";
import type { StrategyLabOptions } from "../strategy-lab.ts";
import type { TradeExecutor } from "../trading/executor.ts";
import type { LiveTradingOptions } from "../trading/live/index.ts";
import type { LiveWalletRegistry } from "../wallets/live-wallet-registry.ts";
import type { LiveDepositChecker } from "../wallets/wallet-service.ts";

/** What createServices (src/services.ts) may be given besides the configuration: tests and tools. */
export interface ServiceOptions {
  clock?: Clock;
  logger?: Logger;
  passwordCost?: Argon2Cost;
  /** Extra strings the logger must never print (wallet secrets, the JWT secret). */
  secrets?: () => readonly string[];
  /** Market adapter tuning (rate limits, timer, SOL stream timings): tests and the benchmark. */
  market?: MarketOptions;
  /** Live wallets parsed from WALLET_N (LiveWalletRegistry.fromEnv); none when absent. */
  liveWallets?: LiveWalletRegistry;
  /** Seams for later issues and tests: open positions with market data, live deposit checks. */
  openPositions?: OpenPositionSource;
  tokenPriceLookup?: TokenPriceLookup;
  depositChecker?: LiveDepositChecker;
  /** Trade executors by mode; simulation defaults to quotes from the swap aggregator. */
  executors?: Partial<Record<"simulation" | "live", TradeExecutor>>;
  /** Live trading tuning (confirmation polling, RPC timeout): tests. */
  live?: LiveTradingOptions;
  strategyLab?: StrategyLabOptions;
  /** Webhook DNS resolution and sender: tests. */
  notifications?: NotificationOptions;
}
