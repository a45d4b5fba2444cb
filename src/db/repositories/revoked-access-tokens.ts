import type { Database } from "bun:sqlite";

// revoked_access_tokens: the write-through copy of the in-memory access-token blacklist
// (src/auth/blacklist.ts), so a restart never un-revokes a token.

export class RevokedAccessTokenRepository {
  constructor(private readonly sqlite: Database) {}

  /** Drops the tokens that expired by `now` (ISO). */
  deleteExpired(now: string): void {
    this.sqlite.query("DELETE FROM revoked_access_tokens WHERE expires_at <= ?").run(now);
  }

  all(): Array<{ jti: string; expiresAt: string }> {
    return this.sqlite
      .query<{ jti: string; expiresAt: string }, []>("SELECT jti, expires_at AS expiresAt FROM revoked_access_tokens")
      .all();
  }

  save(jti: string, expiresAt: string): void {
    this.sqlite
      .query("INSERT OR REPLACE INTO revoked_access_tokens (jti, expires_at) VALUES (?, ?)")
      .run(jti, expiresAt);
  }
}
