import { type Clock, isoNow } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { RevokedAccessTokenRepository } from "../db/repositories/revoked-access-tokens.ts";

/**
 * Revoked access tokens: a Map for the per-request check, written through to SQLite so a restart
 * never un-revokes a token (PRODUCT.md §2). Entries leave once the token would have expired anyway.
 */
export class AccessTokenBlacklist {
  private readonly revoked = new Map<string, number>(); // jti → exp (epoch ms)
  private readonly stored: RevokedAccessTokenRepository;

  constructor(
    sqlite: DatabaseHandle["sqlite"],
    private readonly clock: Clock,
  ) {
    this.stored = new RevokedAccessTokenRepository(sqlite);
    this.stored.deleteExpired(isoNow(clock));
    for (const row of this.stored.all()) this.revoked.set(row.jti, Date.parse(row.expiresAt));
  }

  revoke(jti: string, expSeconds: number): void {
    const expMs = expSeconds * 1000;
    this.revoked.set(jti, expMs);
    this.stored.save(jti, new Date(expMs).toISOString());
  }

  isRevoked(jti: string): boolean {
    return this.revoked.has(jti);
  }

  get size(): number {
    return this.revoked.size;
  }

  /** Drops entries of tokens that have expired; called on a timer. */
  sweep(): number {
    const now = this.clock.now();
    let removed = 0;
    for (const [jti, exp] of this.revoked) {
      if (exp <= now) {
        this.revoked.delete(jti);
        removed++;
      }
    }
    this.stored.deleteExpired(new Date(now).toISOString());
    return removed;
  }
}
