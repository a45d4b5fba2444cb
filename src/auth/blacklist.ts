import type { Database } from "bun:sqlite";
import { type Clock, isoNow } from "../clock.ts";

/**
 * Revoked access tokens: a Map for the per-request check, written through to SQLite so a restart
 * never un-revokes a token (PRODUCT.md §2). Entries leave once the token would have expired anyway.
 */
export class AccessTokenBlacklist {
  private readonly revoked = new Map<string, number>(); // jti → exp (epoch ms)

  constructor(
    private readonly sqlite: Database,
    private readonly clock: Clock,
  ) {
    const now = isoNow(clock);
    this.sqlite.query("DELETE FROM revoked_access_tokens WHERE expires_at <= ?").run(now);
    for (const row of this.sqlite
      .query<{ jti: string; expires_at: string }, []>("SELECT jti, expires_at FROM revoked_access_tokens")
      .all()) {
      this.revoked.set(row.jti, Date.parse(row.expires_at));
    }
  }

  revoke(jti: string, expSeconds: number): void {
    const expMs = expSeconds * 1000;
    this.revoked.set(jti, expMs);
    this.sqlite
      .query("INSERT OR REPLACE INTO revoked_access_tokens (jti, expires_at) VALUES (?, ?)")
      .run(jti, new Date(expMs).toISOString());
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
    this.sqlite.query("DELETE FROM revoked_access_tokens WHERE expires_at <= ?").run(new Date(now).toISOString());
    return removed;
  }
}
