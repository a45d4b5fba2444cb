import type { VerifiedToken } from "../../auth/tokens.ts";
import type { Clock } from "../../clock.ts";

// Per-request credential work that may be remembered (docs/decisions.md "Performance").
// An HS256 signature check costs more than the rest of an authenticated read, and an access token
// is presented many times during its 15 minutes; what was proven once about the exact same bytes
// stays proven until the token's own expiry. The blacklist is NOT cached: it is checked on every
// request by the middleware, so logout still takes effect at once.

/** Verified access-token claims by the token's exact text, until the token expires. */
export class VerifiedTokenCache {
  private readonly byToken = new Map<string, VerifiedToken>();

  constructor(
    private readonly clock: Clock,
    private readonly max = 10_000,
  ) {}

  /**
   * The claims of a token verified before, or undefined. A token past its expiry is dropped and
   * reported as "expired" so the caller answers exactly as the verifier would (jose: expired when
   * exp <= now in whole seconds).
   */
  get(token: string): VerifiedToken | "expired" | undefined {
    const claims = this.byToken.get(token);
    if (!claims) return undefined;
    if (claims.exp <= Math.floor(this.clock.now() / 1000)) {
      this.byToken.delete(token);
      return "expired";
    }
    return claims;
  }

  set(token: string, claims: VerifiedToken): void {
    // Bounded: when full, the oldest insertion goes (Map keeps insertion order).
    if (this.byToken.size >= this.max) {
      const oldest = this.byToken.keys().next().value;
      if (oldest !== undefined) this.byToken.delete(oldest);
    }
    this.byToken.set(token, claims);
  }

  get size(): number {
    return this.byToken.size;
  }
}

/**
 * Whether a user may authenticate (exists and is active), remembered for `ttlMs`. Nothing in the
 * service deactivates a user today; an operator's change in the database is seen within the TTL,
 * and `forget(userId)` drops an entry at once for code that changes a user.
 */
export class UserStatusCache {
  private readonly byUser = new Map<string, { active: boolean; until: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly lookup: (userId: string) => boolean,
    private readonly ttlMs = 1_000,
    private readonly max = 10_000,
  ) {}

  isActive(userId: string): boolean {
    const now = this.clock.now();
    const hit = this.byUser.get(userId);
    if (hit && hit.until > now) return hit.active;
    const active = this.lookup(userId);
    if (!hit && this.byUser.size >= this.max) this.byUser.clear();
    this.byUser.set(userId, { active, until: now + this.ttlMs });
    return active;
  }

  forget(userId: string): void {
    this.byUser.delete(userId);
  }

  get size(): number {
    return this.byUser.size;
  }
}
