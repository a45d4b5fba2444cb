CREATE TABLE `trading_controls` (
	`user_id` text NOT NULL,
	`mode` text NOT NULL,
	`paused` integer DEFAULT false NOT NULL,
	`paused_at` text,
	`limits_set` integer DEFAULT false NOT NULL,
	`max_open_positions` integer,
	`max_exposure_sol` text,
	`daily_loss_limit_sol` text,
	`tripped_reason` text,
	`tripped_at` text,
	`resumed_at` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`user_id`, `mode`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
