CREATE TABLE `signal_hook_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`hook_id` text NOT NULL,
	`received_at` text NOT NULL,
	`status` integer NOT NULL,
	`error` text,
	`signal_id` integer,
	`duplicate` integer DEFAULT false NOT NULL,
	`body_hash` text,
	`alert_id` text,
	FOREIGN KEY (`hook_id`) REFERENCES `signal_hooks`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`signal_id`) REFERENCES `trading_signals`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `signal_hook_deliveries_hook_idx` ON `signal_hook_deliveries` (`hook_id`,`id`);--> statement-breakpoint
CREATE TABLE `signal_hooks` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`source` text NOT NULL,
	`token_hash` text NOT NULL,
	`allowed_ips` text DEFAULT '[]' NOT NULL,
	`tokens` text DEFAULT '{}' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `signal_hooks_user_name_idx` ON `signal_hooks` (`user_id`,`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `signal_hooks_token_hash_idx` ON `signal_hooks` (`token_hash`);