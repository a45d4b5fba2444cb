import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { refreshTokens, users } from "../schema/users.ts";

// users and refresh_tokens: accounts, lockout counters and the refresh-token families
// (src/auth/accounts.ts decides; this module only stores).

export type UserRecord = typeof users.$inferSelect;
export type UserChanges = Partial<
  Pick<UserRecord, "email" | "passwordHash" | "isAdmin" | "failedLoginAttempts" | "lockedUntil" | "updatedAt">
>;
export type RefreshTokenRecord = typeof refreshTokens.$inferSelect;

export class UserRepository {
  constructor(private readonly db: Db) {}

  // Every JWT request looks its user up: prepared once (a drizzle query rebuilt per call cost
  // more than the rest of an authenticated read; bench/ "Performance").
  private findStmt?: ReturnType<UserRepository["prepareFind"]>;
  private prepareFind() {
    return this.db
      .select()
      .from(users)
      .where(eq(users.id, sql.placeholder("id")))
      .prepare();
  }

  byId(id: string): UserRecord | undefined {
    this.findStmt ??= this.prepareFind();
    return this.findStmt.get({ id });
  }

  /** By the stored (lower-cased) email. */
  byEmail(email: string): UserRecord | undefined {
    return this.db.select().from(users).where(eq(users.email, email)).get();
  }

  firstAdmin(): UserRecord | undefined {
    return this.db.select().from(users).where(eq(users.isAdmin, true)).limit(1).get();
  }

  /** Every account's id: the restore's audit entry goes to each (src/cli/restore-command.ts). */
  allIds(): string[] {
    return this.db
      .select({ id: users.id })
      .from(users)
      .all()
      .map((u) => u.id);
  }

  anyExists(): boolean {
    return this.db.select({ id: users.id }).from(users).limit(1).get() !== undefined;
  }

  /** Throws SQLite's UNIQUE error on a taken email; the caller maps it. */
  insert(u: typeof users.$inferInsert): void {
    this.db.insert(users).values(u).run();
  }

  update(id: string, changes: UserChanges): void {
    this.db.update(users).set(changes).where(eq(users.id, id)).run();
  }

  // ---- refresh tokens

  insertRefreshToken(t: typeof refreshTokens.$inferInsert): void {
    this.db.insert(refreshTokens).values(t).run();
  }

  refreshToken(jti: string): RefreshTokenRecord | undefined {
    return this.db.select().from(refreshTokens).where(eq(refreshTokens.jti, jti)).get();
  }

  /**
   * Revokes the token if it is not revoked yet (compare-and-set), optionally naming its
   * successor; false when it already was.
   */
  revokeRefreshToken(jti: string, now: string, replacedBy?: string): boolean {
    return (
      this.db
        .update(refreshTokens)
        .set(replacedBy ? { revokedAt: now, replacedBy } : { revokedAt: now })
        .where(and(eq(refreshTokens.jti, jti), isNull(refreshTokens.revokedAt)))
        .returning({ jti: refreshTokens.jti })
        .all().length > 0
    );
  }

  revokeRefreshFamily(familyId: string, now: string): void {
    this.db
      .update(refreshTokens)
      .set({ revokedAt: now })
      .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)))
      .run();
  }
}
