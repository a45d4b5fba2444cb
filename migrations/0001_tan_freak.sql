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
CREATE INDEX `price_bars_time_idx` ON `price_bars` (`time`);