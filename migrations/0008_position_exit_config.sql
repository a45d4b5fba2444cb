ALTER TABLE `positions` ADD `exit_config` text;--> statement-breakpoint
ALTER TABLE `positions` ADD `exit_config_applied_at` text;