// Argon2id through Bun.password (PRODUCT.md §2). The cost is injectable so the test suite can use
// a cheap setting; production uses Bun's defaults.

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
}

export interface Argon2Cost {
  memoryCost?: number; // KiB
  timeCost?: number;
}

export function createPasswordHasher(cost: Argon2Cost = {}): PasswordHasher {
  const opts = { algorithm: "argon2id" as const, ...cost };
  return {
    hash: (password) => Bun.password.hash(password, opts),
    verify: async (password, hash) => {
      try {
        return await Bun.password.verify(password, hash);
      } catch {
        return false;
      }
    },
  };
}

/** PRODUCT.md §2 registration rule. Returns the message to show, or null when the password passes. */
export function passwordRuleViolation(password: string): string | null {
  const ok =
    password.length >= 8 &&
    /[A-Z]/.test(password) &&
    /[a-z]/.test(password) &&
    /[0-9]/.test(password) &&
    /[^A-Za-z0-9]/.test(password);
  return ok
    ? null
    : "Password must be at least 8 characters and contain at least one uppercase letter, one lowercase letter, one number and one special character";
}
