CREATE TABLE `wallet_watch_group_signals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`group_id` text NOT NULL,
	`mint` text NOT NULL,
	`at` text NOT NULL,
	`signal_id` integer,
	FOREIGN KEY (`group_id`) REFERENCES `wallet_watch_groups`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`signal_id`) REFERENCES `trading_signals`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `wallet_watch_group_signals_idx` ON `wallet_watch_group_signals` (`group_id`,`mint`,`at`);--> statement-breakpoint
CREATE TABLE `wallet_watch_groups` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`addresses` text NOT NULL,
	`window_seconds` integer NOT NULL,
	`min_wallets` integer NOT NULL,
	`signal_strength` integer NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `wallet_watch_groups_user_name_idx` ON `wallet_watch_groups` (`user_id`,`name`);--> statement-breakpoint
ALTER TABLE `wallet_watch_trades` ADD `ignored_reason` text;--> statement-breakpoint
ALTER TABLE `wallet_watches` ADD `max_sol_per_trade_lamports` text DEFAULT '100000000' NOT NULL;--> statement-breakpoint
ALTER TABLE `wallet_watches` ADD `max_open_positions` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `wallet_watches` ADD `daily_sol_budget_lamports` text DEFAULT '500000000' NOT NULL;