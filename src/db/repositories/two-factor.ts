import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { Db } from "../client.ts";
import { recoveryCodes, users } from "../schema/users.ts";

// The second factor's rows: the sealed TOTP secret and last accepted step on users, and the hashed
// recovery codes (src/auth/two-factor.ts decides; this module only stores).

export class TwoFactorRepository {
  constructor(private readonly db: Db) {}

  setPending(userId: string, sealed: string, now: string): void {
    this.db.update(users).set({ totpPendingSecret: sealed, updatedAt: now }).where(eq(users.id, userId)).run();
  }

  /** The pending secret becomes the secret and the recovery codes replace any old ones, at once. */
  enable(userId: string, sealed: string, step: number, codeHashes: string[], now: string): void {
    this.db.transaction((tx) => {
      tx.update(users)
        .set({ totpSecret: sealed, totpPendingSecret: null, totpLastStep: step, updatedAt: now })
        .where(eq(users.id, userId))
        .run();
      tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)).run();
      for (const codeHash of codeHashes) tx.insert(recoveryCodes).values({ codeHash, userId, createdAt: now }).run();
    });
  }

  disable(userId: string, now: string): void {
    this.db.transaction((tx) => {
      tx.update(users)
        .set({ totpSecret: null, totpPendingSecret: null, totpLastStep: null, updatedAt: now })
        .where(eq(users.id, userId))
        .run();
      tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)).run();
    });
  }

  /** Compare-and-set: of two logins with the same code only one moves the step forward. */
  useStep(userId: string, step: number): boolean {
    return (
      this.db
        .update(users)
        .set({ totpLastStep: step })
        .where(and(eq(users.id, userId), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
        .returning({ id: users.id })
        .all().length > 0
    );
  }

  /** Marks an unused recovery code of the user as used; false when there is none. */
  useRecoveryCode(userId: string, codeHash: string, now: string): boolean {
    return (
      this.db
        .update(recoveryCodes)
        .set({ usedAt: now })
        .where(
          and(eq(recoveryCodes.codeHash, codeHash), eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)),
        )
        .returning({ codeHash: recoveryCodes.codeHash })
        .all().length > 0
    );
  }
}
