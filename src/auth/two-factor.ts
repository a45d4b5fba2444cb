import { randomBytes } from "node:crypto";
import { type Clock, isoNow } from "../clock.ts";
import type { Db } from "../db/client.ts";
import { TwoFactorRepository } from "../db/repositories/two-factor.ts";
import { type UserRecord, UserRepository } from "../db/repositories/users.ts";
import { AuthenticationError, ConflictError, ValidationError } from "../errors.ts";
import { sha256Hex } from "./hashing.ts";
import type { LoginOrigin } from "./origin.ts";
import { base32Decode, matchTotp, newTotpSecret, otpauthUrl } from "./totp.ts";
import { INVALID_CODE } from "./two-factor-shape.ts";

// The second factor (PRODUCT.md §2, docs/decisions/box-on-the-internet.md): a TOTP secret sealed
// in the database, ten single-use recovery codes stored as SHA-256, and the last accepted time
// step per user so that a code is accepted once.

const RECOVERY_CODES = 10;

/** Seals the secret at rest: the service's SecretBox (src/notifications/secret-box.ts) under its own purpose. */
interface Sealer {
  seal(plain: string): string;
  open(sealed: string): string | null;
}

export interface TwoFactorSetup {
  secret: string;
  otpauthUrl: string;
}

export class TwoFactorService {
  private readonly rows: TwoFactorRepository;
  private readonly users: UserRepository;
  /** Told when a user turned the second factor off: the security notice (src/composition/login-watch.ts). */
  private disabledObserver: (userId: string, origin: LoginOrigin) => void = () => {};

  constructor(
    db: Db,
    private readonly box: Sealer,
    private readonly clock: Clock,
  ) {
    this.rows = new TwoFactorRepository(db);
    this.users = new UserRepository(db);
  }

  /** A new secret kept pending: login is unchanged until enable() confirms a code from it. */
  setup(userId: string): TwoFactorSetup {
    const user = this.activeUser(userId);
    if (user.totpSecret) throw new ConflictError("Two-factor authentication is already enabled");
    const secret = newTotpSecret();
    this.rows.setPending(userId, this.box.seal(secret), isoNow(this.clock));
    return { secret, otpauthUrl: otpauthUrl(secret, user.email) };
  }

  /** Confirms the pending secret with a current code; answers the recovery codes, shown once. */
  enable(userId: string, code: string): { recoveryCodes: string[] } {
    const user = this.activeUser(userId);
    if (user.totpSecret) throw new ConflictError("Two-factor authentication is already enabled");
    const pending = user.totpPendingSecret ? this.box.open(user.totpPendingSecret) : null;
    if (!pending) throw new ValidationError("Start with POST /api/v1/auth/2fa/setup");
    const step = matchTotp(base32Decode(pending), typed(code), this.clock.now(), null);
    if (step === null) throw new ValidationError(INVALID_CODE);
    const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    this.rows.enable(userId, this.box.seal(pending), step, codes.map(recoveryHash), isoNow(this.clock));
    return { recoveryCodes: codes };
  }

  /** Needs a current code (or an unused recovery code: the phone may be what was lost). */
  disable(userId: string, code: string, origin: LoginOrigin): void {
    const user = this.activeUser(userId);
    if (!user.totpSecret) throw new ConflictError("Two-factor authentication is not enabled");
    if (!this.accept(user, code)) throw new ValidationError(INVALID_CODE);
    this.rows.disable(userId, isoNow(this.clock));
    this.disabledObserver(userId, origin);
  }

  /** Set once by the composition, after the notifications it reports to exist. */
  observeDisable(observer: (userId: string, origin: LoginOrigin) => void): void {
    this.disabledObserver = observer;
  }

  /**
   * True when `code` is a TOTP code of a step after the last accepted one, or an unused recovery
   * code; either is spent by accepting it. A secret sealed under another JWT secret opens to
   * nothing and accepts only recovery codes (reset-2fa is the way out).
   */
  accept(user: UserRecord, code: string): boolean {
    if (!user.totpSecret) return false;
    const text = typed(code);
    const secret = this.box.open(user.totpSecret);
    if (secret && /^\d{6}$/.test(text)) {
      const step = matchTotp(base32Decode(secret), text, this.clock.now(), user.totpLastStep);
      return step !== null && this.rows.useStep(user.id, step);
    }
    return this.rows.useRecoveryCode(user.id, recoveryHash(text), isoNow(this.clock));
  }

  private activeUser(userId: string): UserRecord {
    const user = this.users.byId(userId);
    if (!user?.isActive) throw new AuthenticationError("Invalid token");
    return user;
  }
}

/** A code as typed: the space authenticator apps show between the digit groups does not matter. */
const typed = (code: string) => code.replace(/\s+/g, "");

/** Ten lower-case base32 characters in two groups of five: 50 bits each. */
function newRecoveryCode(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  const chars = Array.from(randomBytes(10), (b) => alphabet[b & 31]).join("");
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** Case and the dash do not matter when a recovery code is typed back. */
function recoveryHash(code: string): string {
  return sha256Hex(code.toLowerCase().replace(/[^a-z0-9]/g, ""));
}
