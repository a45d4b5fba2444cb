CREATE TABLE `portfolio_snapshots` (
	`user_id` text NOT NULL,
	`mode` text NOT NULL,
	`at` text NOT NULL,
	`total_value_sol` text NOT NULL,
	`profit_loss_sol` text NOT NULL,
	PRIMARY KEY(`user_id`, `mode`, `at`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
