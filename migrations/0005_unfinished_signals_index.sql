DROP INDEX `trading_signals_status_idx`;--> statement-breakpoint
CREATE INDEX `trading_signals_unfinished_idx` ON `trading_signals` (`id`) WHERE processing_status IN ('pending','processing');