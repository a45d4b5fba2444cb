// The events a webhook endpoint can subscribe to: the user's own events of the event stream
// (PRODUCT.md §6, without the global price.sol), the notice that an endpoint was disabled, and the
// security notices: a login from a new address, a lockout, the second factor turned off.
export const WEBHOOK_EVENT_TYPES = [
  "signal.created",
  "trade.executed",
  "trade.failed",
  "position.opened",
  "position.updated",
  "position.closed",
  "webhook.disabled",
  "replication.failing",
  "risk.tripped",
  "trading.paused",
  "trading.resumed",
  "wallet_watch.unreadable",
  "auth.new_login",
  "auth.locked",
  "auth.2fa_disabled",
] as const;

/** The type of the message POST /webhooks/:id/test sends. */
export const TEST_EVENT_TYPE = "webhook.test";
