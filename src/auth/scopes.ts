export const SCOPES = ["full_access", "signals", "agents", "positions", "balances", "transactions", "history"] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(v: string): v is Scope {
  return (SCOPES as readonly string[]).includes(v);
}

/** full_access grants every scope (PRODUCT.md §2); routes under /auth and /api-keys take no keys at all. */
export function hasScope(granted: readonly string[], required: Scope): boolean {
  return granted.includes("full_access") || granted.includes(required);
}
