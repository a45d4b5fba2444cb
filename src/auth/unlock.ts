import { type Clock, isoNow } from "../clock.ts";
import type { Db } from "../db/client.ts";
import { UserRepository } from "../db/repositories/users.ts";

// The operator's way out of the spec's login lockout (PRODUCT.md §7 `trading-agent unlock`):
// five wrong passwords from anyone who knows an e-mail address lock that account for 15 minutes,
// and the operator must not have to wait it out. Clearing the lock also clears the failure
// counter, so the next wrong password starts again at one.

export type UnlockResult = { outcome: "unknown_user" } | { outcome: "unlocked" | "not_locked"; userId: string };

export function unlockAccount(db: Db, emailInput: string, clock: Clock): UnlockResult {
  const users = new UserRepository(db);
  const user = users.byEmail(emailInput.trim().toLowerCase());
  if (!user) return { outcome: "unknown_user" };
  // A lock that ran out stays recorded until the next login; lifting it is reported the same way.
  const locked = user.lockedUntil !== null;
  if (locked || user.failedLoginAttempts !== 0) {
    users.update(user.id, { failedLoginAttempts: 0, lockedUntil: null, updatedAt: isoNow(clock) });
  }
  return { outcome: locked ? "unlocked" : "not_locked", userId: user.id };
}
