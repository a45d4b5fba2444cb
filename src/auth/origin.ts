/**
 * Where a login attempt or a change to how the account logs in came from: the client address as
 * the rate limiter and the audit log see it (trusted proxies honoured), and its user agent.
 */
export interface LoginOrigin {
  ip: string;
  userAgent: string | null;
}
