CREATE TABLE `agent_balances` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`wallet_address` text NOT NULL,
	`token_address` text NOT NULL,
	`token_symbol` text NOT NULL,
	`balance` text NOT NULL,
	`decimals` integer,
	`last_updated` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agent_balances_uq` ON `agent_balances` (`agent_id`,`wallet_address`,`token_address`);--> statement-breakpoint
CREATE TABLE `agent_configs` (
	`agent_id` text PRIMARY KEY NOT NULL,
	`overrides` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `agent_wallets` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`wallet_address` text NOT NULL,
	`wallet_type` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agent_wallets_agent_type_uq` ON `agent_wallets` (`agent_id`,`wallet_type`);--> statement-breakpoint
CREATE UNIQUE INDEX `agent_wallets_address_uq` ON `agent_wallets` (`wallet_address`);--> statement-breakpoint
CREATE TABLE `agents` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`trading_mode` text DEFAULT 'simulation' NOT NULL,
	`automated_trading_simulation` integer DEFAULT false NOT NULL,
	`automated_trading_live` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `agents_user_created_idx` ON `agents` (`user_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `agents_user_name_uq` ON `agents` (`user_id`,lower("name"));--> statement-breakpoint
CREATE TABLE `balance_snapshots` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`wallet_address` text NOT NULL,
	`sol_balance` text NOT NULL,
	`total_value_sol` text NOT NULL,
	`total_value_usd` text,
	`reason` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `balance_snapshots_agent_idx` ON `balance_snapshots` (`agent_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `wallet_watch_trades` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`watch_id` text NOT NULL,
	`signature` text NOT NULL,
	`side` text NOT NULL,
	`mint` text NOT NULL,
	`sol_lamports` text NOT NULL,
	`token_amount` text NOT NULL,
	`block_time` text NOT NULL,
	`signal_id` integer,
	`detected_at` text NOT NULL,
	FOREIGN KEY (`watch_id`) REFERENCES `wallet_watches`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`signal_id`) REFERENCES `trading_signals`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `wallet_watch_trades_once_idx` ON `wallet_watch_trades` (`watch_id`,`signature`);--> statement-breakpoint
CREATE INDEX `wallet_watch_trades_watch_idx` ON `wallet_watch_trades` (`watch_id`,`detected_at`);--> statement-breakpoint
CREATE TABLE `wallet_watches` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`address` text NOT NULL,
	`label` text DEFAULT '' NOT NULL,
	`min_sol_lamports` text NOT NULL,
	`signal_strength` integer NOT NULL,
	`copy_sells` integer DEFAULT false NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`watch_from` text NOT NULL,
	`last_seen_signature` text,
	`last_error` text,
	`lag_seconds` real,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `wallet_watches_user_address_idx` ON `wallet_watches` (`user_id`,`address`);--> statement-breakpoint
CREATE INDEX `wallet_watches_enabled_idx` ON `wallet_watches` (`enabled`);--> statement-breakpoint
CREATE TABLE `notification_preferences` (
	`user_id` text PRIMARY KEY NOT NULL,
	`events` text NOT NULL,
	`quiet_hours` text,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `telegram_link_codes` (
	`code_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`expires_at` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `telegram_link_codes_user_uq` ON `telegram_link_codes` (`user_id`);--> statement-breakpoint
CREATE TABLE `telegram_links` (
	`chat_id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`linked_at` text NOT NULL,
	`last_summary_on` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `telegram_links_user_idx` ON `telegram_links` (`user_id`);--> statement-breakpoint
CREATE TABLE `webhook_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`delivery_id` text NOT NULL,
	`webhook_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`status_code` integer,
	`error` text,
	`duration_ms` integer NOT NULL,
	`at` text NOT NULL,
	FOREIGN KEY (`delivery_id`) REFERENCES `webhook_deliveries`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_webhook_idx` ON `webhook_attempts` (`webhook_id`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`webhook_id` text NOT NULL,
	`event_type` text NOT NULL,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`created_at` text NOT NULL,
	`finished_at` text,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due_idx` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_webhook_idx` ON `webhook_deliveries` (`webhook_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`url` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`events` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`sealed_secret` text NOT NULL,
	`failing_since` text,
	`disabled_at` text,
	`disabled_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhooks_user_idx` ON `webhooks` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `backtest_trades` (
	`backtest_id` text NOT NULL,
	`variant` integer NOT NULL,
	`seq` integer NOT NULL,
	`signal_id` integer NOT NULL,
	`token_address` text NOT NULL,
	`opened_at` text NOT NULL,
	`closed_at` text NOT NULL,
	`entry_price_sol` text NOT NULL,
	`exit_price_sol` text,
	`amount` text NOT NULL,
	`cost_sol` text NOT NULL,
	`profit_loss_sol` text NOT NULL,
	`change_percent` text NOT NULL,
	`close_reason` text NOT NULL,
	`take_profit_levels` integer NOT NULL,
	`dca_orders` integer NOT NULL,
	PRIMARY KEY(`backtest_id`, `variant`, `seq`),
	FOREIGN KEY (`backtest_id`) REFERENCES `backtests`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `backtest_variants` (
	`backtest_id` text NOT NULL,
	`position` integer NOT NULL,
	`name` text NOT NULL,
	`summary` text NOT NULL,
	`equity` text NOT NULL,
	PRIMARY KEY(`backtest_id`, `position`),
	FOREIGN KEY (`backtest_id`) REFERENCES `backtests`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `backtests` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`progress` real DEFAULT 0 NOT NULL,
	`request` text NOT NULL,
	`error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`started_at` text,
	`finished_at` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `backtests_user_created_idx` ON `backtests` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `backtests_status_idx` ON `backtests` (`status`);--> statement-breakpoint
CREATE TABLE `price_bars` (
	`token_address` text NOT NULL,
	`time` integer NOT NULL,
	`open` text NOT NULL,
	`high` text NOT NULL,
	`low` text NOT NULL,
	`close` text NOT NULL,
	`source` text NOT NULL,
	PRIMARY KEY(`token_address`, `time`)
);
--> statement-breakpoint
CREATE INDEX `price_bars_time_idx` ON `price_bars` (`time`);--> statement-breakpoint
CREATE TABLE `price_impacts` (
	`token_address` text NOT NULL,
	`size_bucket` integer NOT NULL,
	`impact_pct` text NOT NULL,
	`samples` integer NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`token_address`, `size_bucket`)
);
--> statement-breakpoint
CREATE TABLE `agent_transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`wallet_address` text NOT NULL,
	`transaction_type` text NOT NULL,
	`transaction_value_usd` text NOT NULL,
	`transaction_time` text NOT NULL,
	`destination_address` text,
	`signal_id` integer,
	`fees` text,
	`rent_deposit_sol` text DEFAULT '0' NOT NULL,
	`rent_refund_sol` text DEFAULT '0' NOT NULL,
	`routes` text,
	`input_mint` text NOT NULL,
	`input_symbol` text,
	`input_amount` text NOT NULL,
	`input_price` text,
	`output_mint` text NOT NULL,
	`output_symbol` text,
	`output_amount` text NOT NULL,
	`output_price` text,
	`slippage` text,
	`price_impact` text,
	`is_dca` integer DEFAULT false NOT NULL,
	`is_take_profit` integer DEFAULT false NOT NULL,
	`trading_mode` text DEFAULT 'simulation' NOT NULL,
	`transaction_hash` text,
	`status` text DEFAULT 'confirmed' NOT NULL,
	`position_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `agent_transactions_agent_time_idx` ON `agent_transactions` (`agent_id`,`transaction_time`);--> statement-breakpoint
CREATE INDEX `agent_transactions_signal_idx` ON `agent_transactions` (`signal_id`);--> statement-breakpoint
CREATE INDEX `agent_transactions_status_idx` ON `agent_transactions` (`status`);--> statement-breakpoint
CREATE TABLE `historical_swaps` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`wallet_address` text NOT NULL,
	`token_address` text NOT NULL,
	`token_symbol` text NOT NULL,
	`amount` text NOT NULL,
	`purchase_price` text NOT NULL,
	`sale_price` text NOT NULL,
	`change_percent` text NOT NULL,
	`profit_loss_usd` text NOT NULL,
	`profit_loss_sol` text NOT NULL,
	`purchase_time` text NOT NULL,
	`sale_time` text NOT NULL,
	`purchase_transaction_id` text,
	`sale_transaction_id` text,
	`signal_id` text,
	`close_reason` text NOT NULL,
	`position_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `historical_swaps_agent_sale_idx` ON `historical_swaps` (`agent_id`,`sale_time`);--> statement-breakpoint
CREATE UNIQUE INDEX `historical_swaps_position_uq` ON `historical_swaps` (`position_id`);--> statement-breakpoint
CREATE TABLE `live_trades` (
	`signature` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`wallet_address` text NOT NULL,
	`token_address` text NOT NULL,
	`side` text NOT NULL,
	`input_atomic` text NOT NULL,
	`expected_output_atomic` text NOT NULL,
	`token_decimals` integer NOT NULL,
	`blockhash` text NOT NULL,
	`last_valid_block_height` integer NOT NULL,
	`signed_at_slot` integer NOT NULL,
	`priority_fee_lamports` integer NOT NULL,
	`tip_lamports` integer DEFAULT 0 NOT NULL,
	`request_id` text,
	`router` text,
	`order_fee_bps` integer,
	`status` text NOT NULL,
	`intent` text,
	`transaction_id` text,
	`error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `live_trades_status_idx` ON `live_trades` (`status`);--> statement-breakpoint
CREATE INDEX `live_trades_agent_token_idx` ON `live_trades` (`agent_id`,`token_address`);--> statement-breakpoint
CREATE INDEX `live_trades_wallet_idx` ON `live_trades` (`wallet_address`);--> statement-breakpoint
CREATE TABLE `positions` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`wallet_address` text NOT NULL,
	`trading_mode` text DEFAULT 'simulation' NOT NULL,
	`token_address` text NOT NULL,
	`token_symbol` text NOT NULL,
	`token_decimals` integer DEFAULT 6 NOT NULL,
	`signal_id` integer,
	`status` text DEFAULT 'open' NOT NULL,
	`entry_price_sol` text NOT NULL,
	`entry_price_usd` text NOT NULL,
	`purchase_amount` text NOT NULL,
	`cost_sol` text NOT NULL,
	`cost_usd` text NOT NULL,
	`opening_sol` text DEFAULT '0' NOT NULL,
	`held_cost_sol` text DEFAULT '0' NOT NULL,
	`remaining_amount` text NOT NULL,
	`peak_price_sol` text NOT NULL,
	`last_price_sol` text,
	`last_price_usd` text,
	`levels_hit` integer DEFAULT 0 NOT NULL,
	`realized_profit_sol` text DEFAULT '0' NOT NULL,
	`realized_profit_usd` text DEFAULT '0' NOT NULL,
	`moon_bag_activated` integer DEFAULT false NOT NULL,
	`moon_bag_amount` text,
	`dca_orders` integer DEFAULT 0 NOT NULL,
	`purchase_transaction_id` text NOT NULL,
	`purchase_transaction_hash` text NOT NULL,
	`opened_at` text NOT NULL,
	`closed_at` text,
	`close_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `positions_one_open_per_token_uq` ON `positions` (`agent_id`,`token_address`) WHERE status = 'open';--> statement-breakpoint
CREATE INDEX `positions_status_idx` ON `positions` (`status`);--> statement-breakpoint
CREATE INDEX `positions_agent_status_idx` ON `positions` (`agent_id`,`status`);--> statement-breakpoint
CREATE TABLE `signal_evaluations` (
	`signal_id` integer NOT NULL,
	`agent_id` text NOT NULL,
	`eligible` integer NOT NULL,
	`reason` text,
	`outcome` text,
	`created_at` text NOT NULL,
	PRIMARY KEY(`signal_id`, `agent_id`),
	FOREIGN KEY (`signal_id`) REFERENCES `trading_signals`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `signal_evaluations_agent_idx` ON `signal_evaluations` (`agent_id`,`signal_id`);--> statement-breakpoint
CREATE TABLE `signal_idempotency_keys` (
	`api_key_id` text NOT NULL,
	`idempotency_key` text NOT NULL,
	`body_hash` text NOT NULL,
	`signal_id` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`api_key_id`, `idempotency_key`)
);
--> statement-breakpoint
CREATE TABLE `trade_idempotency` (
	`agent_id` text NOT NULL,
	`signal_id` integer NOT NULL,
	`action` text NOT NULL,
	`transaction_id` text,
	`created_at` text NOT NULL,
	PRIMARY KEY(`agent_id`, `signal_id`, `action`),
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `trading_signals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text NOT NULL,
	`api_key_id` text,
	`token_address` text NOT NULL,
	`symbol` text,
	`signal_type` text NOT NULL,
	`activation_reason` text,
	`signal_strength` integer NOT NULL,
	`source` text,
	`processing_status` text DEFAULT 'pending' NOT NULL,
	`processed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `trading_signals_user_created_idx` ON `trading_signals` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `trading_signals_status_idx` ON `trading_signals` (`processing_status`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`scopes` text NOT NULL,
	`last_used_at` text,
	`request_count` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_user_name_uq` ON `api_keys` (`user_id`,`name`);--> statement-breakpoint
CREATE TABLE `key_value` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `refresh_tokens` (
	`jti` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`family_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`remember_me` integer DEFAULT false NOT NULL,
	`expires_at` text NOT NULL,
	`revoked_at` text,
	`replaced_by` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `refresh_tokens_family_idx` ON `refresh_tokens` (`family_id`);--> statement-breakpoint
CREATE INDEX `refresh_tokens_user_idx` ON `refresh_tokens` (`user_id`);--> statement-breakpoint
CREATE TABLE `revoked_access_tokens` (
	`jti` text PRIMARY KEY NOT NULL,
	`expires_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `revoked_access_tokens_exp_idx` ON `revoked_access_tokens` (`expires_at`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`is_admin` integer DEFAULT false NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`failed_login_attempts` integer DEFAULT 0 NOT NULL,
	`locked_until` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);