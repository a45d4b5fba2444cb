ALTER TABLE `wallet_watch_trades` ADD `ignored_reason` text;--> statement-breakpoint
ALTER TABLE `wallet_watches` ADD `max_sol_per_trade_lamports` text DEFAULT '100000000' NOT NULL;--> statement-breakpoint
ALTER TABLE `wallet_watches` ADD `max_open_positions` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `wallet_watches` ADD `daily_sol_budget_lamports` text DEFAULT '500000000' NOT NULL;