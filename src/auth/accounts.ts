import { type Clock, isoNow } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { UserRepository } from "../db/repositories/users.ts";
import {
  AccountLockedError,
  AppError,
  AuthenticationError,
  AuthorizationError,
  ConflictError,
  ErrorCode,
  ValidationError,
} from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { AccessTokenBlacklist } from "./blacklist.ts";
import { sha256Hex } from "./hashing.ts";
import type { LoginOrigin } from "./origin.ts";
import { type PasswordHasher, passwordRuleViolation } from "./passwords.ts";
import { ACCESS_TTL_S, REFRESH_REMEMBER_TTL_S, REFRESH_TTL_S, type TokenSigner } from "./tokens.ts";
import type { TwoFactorService } from "./two-factor.ts";
import { CODE_REQUIRED, INVALID_CODE } from "./two-factor-shape.ts";

// Accounts: login with lockout, refresh with rotation and reuse detection, logout, registration,
// and the admin bootstrap (SPEC "Authentication", PRODUCT.md §2).

const MAX_FAILED_LOGINS = 5;
const LOCK_MS = 15 * 60 * 1000;

interface PublicUser {
  id: string;
  email: string;
  createdAt: string;
}

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

export interface LoginResult extends TokenPair {
  user: PublicUser;
}

/**
 * Told of each login attempt on a known account: the audit log and the new-login notices
 * (src/composition/login-watch.ts). Unknown emails are told nothing: there is no account to tell.
 */
export interface LoginObserver {
  succeeded(userId: string, origin: LoginOrigin): void;
  failed(userId: string, origin: LoginOrigin, reason: string): void;
  locked(userId: string, origin: LoginOrigin, lockedUntil: string): void;
  /** ADMIN_PASSWORD changed between starts (ensureAdmin). */
  passwordChanged(userId: string): void;
}

const quietObserver: LoginObserver = { succeeded() {}, failed() {}, locked() {}, passwordChanged() {} };

const normalizeEmail = (email: string) => email.trim().toLowerCase();

export class AccountService {
  // A real argon2id hash, verified against for unknown emails so that timing does not tell
  // which emails exist.
  private dummyHash: Promise<string> | null = null;
  private readonly users: UserRepository;

  constructor(
    database: DatabaseHandle,
    private readonly passwords: PasswordHasher,
    private readonly signer: TokenSigner,
    private readonly blacklist: AccessTokenBlacklist,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly twoFactor: TwoFactorService,
    private observer: LoginObserver = quietObserver,
  ) {
    this.users = new UserRepository(database.db);
  }

  /** Set once by the composition, after the notifications it reports to exist. */
  observeLogins(observer: LoginObserver): void {
    this.observer = observer;
  }

  findUser(id: string) {
    return this.users.byId(id);
  }

  /** The user and whether login asks for a second factor (the dashboard's Security page). */
  me(userId: string): PublicUser & { twoFactorEnabled: boolean } {
    const user = this.findUser(userId);
    if (!user?.isActive) throw new AuthenticationError("Invalid token");
    // A pending (set up, not confirmed) secret does not count: login does not ask for it yet.
    return { ...toPublic(user), twoFactorEnabled: user.totpSecret !== null };
  }

  /**
   * The per-address limiter runs before this (in the route); here the lockout is checked before
   * any hashing, so a locked account costs the server nothing. With the second factor on, a
   * missing or wrong code counts toward the lockout like a wrong password (PRODUCT.md §2).
   */
  async login(
    emailInput: string,
    password: string,
    rememberMe: boolean,
    code?: string,
    origin: LoginOrigin = { ip: "local", userAgent: null },
  ): Promise<LoginResult> {
    const email = normalizeEmail(emailInput);
    const user = this.users.byEmail(email);
    if (!user?.isActive) {
      this.dummyHash ??= this.passwords.hash(crypto.randomUUID());
      await this.passwords.verify(password, await this.dummyHash);
      this.logger.info("login failed", { reason: "unknown email" });
      throw new AuthenticationError("Invalid email or password");
    }
    const now = this.clock.now();
    let failed = user.failedLoginAttempts;
    if (user.lockedUntil) {
      const until = Date.parse(user.lockedUntil);
      if (until > now) throw new AccountLockedError(new Date(until));
      // The lock has run out: the counter starts again (SPEC state table).
      failed = 0;
    }
    if (!(await this.passwords.verify(password, user.passwordHash))) {
      this.countFailure(user.id, failed, origin, "wrong password", "Invalid email or password");
    }
    if (user.totpSecret) {
      if (code === undefined || code.trim() === "") {
        this.countFailure(user.id, failed, origin, "two-factor code missing", CODE_REQUIRED);
      }
      if (!this.twoFactor.accept(user, code)) {
        this.countFailure(user.id, failed, origin, "wrong two-factor code", INVALID_CODE);
      }
    }
    if (failed !== 0 || user.lockedUntil) {
      this.users.update(user.id, { failedLoginAttempts: 0, lockedUntil: null, updatedAt: isoNow(this.clock) });
    }
    const { accessToken, refreshToken } = await this.issuePair(user.id, crypto.randomUUID(), rememberMe);
    this.logger.info("login succeeded", { userId: user.id });
    this.observer.succeeded(user.id, origin);
    return { accessToken, refreshToken, user: toPublic(user) };
  }

  /** One more failure: locks the account at the fifth, and throws what the caller answers. */
  private countFailure(userId: string, before: number, origin: LoginOrigin, reason: string, message: string): never {
    const failed = before + 1;
    const lock = failed >= MAX_FAILED_LOGINS;
    const lockedUntil = lock ? new Date(this.clock.now() + LOCK_MS) : null;
    this.users.update(userId, {
      failedLoginAttempts: lock ? 0 : failed,
      lockedUntil: lockedUntil ? lockedUntil.toISOString() : null,
      updatedAt: isoNow(this.clock),
    });
    this.logger.warn("login failed", { userId, reason, failedAttempts: failed });
    this.observer.failed(userId, origin, reason);
    if (lockedUntil) {
      this.logger.warn("account locked", { userId, lockedUntil: lockedUntil.toISOString() });
      this.observer.locked(userId, origin, lockedUntil.toISOString());
      throw new AccountLockedError(lockedUntil);
    }
    throw new AuthenticationError(message);
  }

  private async issuePair(
    userId: string,
    familyId: string,
    rememberMe: boolean,
  ): Promise<TokenPair & { refreshJti: string }> {
    const access = await this.signer.issue(userId, "access", ACCESS_TTL_S);
    const refresh = await this.signer.issue(userId, "refresh", rememberMe ? REFRESH_REMEMBER_TTL_S : REFRESH_TTL_S, {
      fam: familyId,
      rm: rememberMe,
    });
    this.users.insertRefreshToken({
      jti: refresh.jti,
      userId,
      familyId,
      tokenHash: sha256Hex(refresh.token),
      rememberMe,
      expiresAt: new Date(refresh.exp * 1000).toISOString(),
      createdAt: isoNow(this.clock),
    });
    return { accessToken: access.token, refreshToken: refresh.token, refreshJti: refresh.jti };
  }

  /**
   * Rotation: the presented token is revoked and replaced. Presenting a token that was already
   * rotated means someone kept a copy: the whole family is revoked (PRODUCT.md §2).
   */
  async refresh(token: string): Promise<TokenPair> {
    const claims = await this.signer.verify(token, "refresh");
    const row = this.users.refreshToken(claims.jti);
    if (!row || row.tokenHash !== sha256Hex(token) || row.userId !== claims.userId) {
      throw new AuthenticationError("Invalid token");
    }
    if (row.revokedAt) {
      if (row.replacedBy) {
        this.revokeFamily(row.familyId);
        this.logger.warn("refresh token reuse detected; token family revoked", {
          userId: row.userId,
          familyId: row.familyId,
        });
      }
      throw new AuthenticationError("Token has been revoked");
    }
    const user = this.findUser(row.userId);
    if (!user?.isActive) throw new AuthenticationError("Invalid token");
    const pair = await this.issuePair(row.userId, row.familyId, row.rememberMe);
    // Compare-and-set: of two concurrent refreshes with the same token only one wins.
    if (!this.users.revokeRefreshToken(row.jti, isoNow(this.clock), pair.refreshJti)) {
      this.revokeFamily(row.familyId);
      throw new AuthenticationError("Token has been revoked");
    }
    return { accessToken: pair.accessToken, refreshToken: pair.refreshToken };
  }

  private revokeFamily(familyId: string): void {
    this.users.revokeRefreshFamily(familyId, isoNow(this.clock));
  }

  /**
   * Blacklists the access token for its remaining life and revokes a supplied refresh token of
   * the same user. The access token is revoked whatever the refresh token is: a refresh token that
   * is malformed, forged, another user's or unknown is not an error (the logout happened) but is
   * reported as not recognised (docs/decisions.md "Authentication").
   */
  async logout(
    userId: string,
    accessJti: string,
    accessExp: number,
    refreshToken?: string,
  ): Promise<{ refreshToken: "none" | "revoked" | "not recognised" }> {
    this.blacklist.revoke(accessJti, accessExp);
    const outcome = refreshToken ? await this.revokeRefreshOf(userId, refreshToken) : "none";
    this.logger.info("logout", { userId, refreshToken: outcome });
    return { refreshToken: outcome };
  }

  private async revokeRefreshOf(userId: string, token: string): Promise<"revoked" | "not recognised"> {
    let claims: Awaited<ReturnType<typeof this.signer.verify>>;
    try {
      claims = await this.signer.verify(token, "refresh");
    } catch (err) {
      // An already expired refresh token needs no revoking: it is one of ours, just spent.
      if (err instanceof AuthenticationError) return err.message === "Token expired" ? "revoked" : "not recognised";
      throw err;
    }
    const row = this.users.refreshToken(claims.jti);
    if (!row || row.tokenHash !== sha256Hex(token) || row.userId !== userId || claims.userId !== userId) {
      return "not recognised";
    }
    this.users.revokeRefreshToken(claims.jti, isoNow(this.clock));
    return "revoked";
  }

  async register(emailInput: string, password: string, allowed: boolean): Promise<LoginResult> {
    if (!allowed) throw new AuthorizationError("Registration is disabled");
    const violation = passwordRuleViolation(password);
    if (violation) throw new ValidationError(violation);
    const email = normalizeEmail(emailInput);
    const now = isoNow(this.clock);
    const id = crypto.randomUUID();
    const passwordHash = await this.passwords.hash(password);
    try {
      this.users.insert({ id, email, passwordHash, createdAt: now, updatedAt: now });
    } catch (err) {
      if (String(err).includes("UNIQUE")) throw new ConflictError("Email already registered");
      throw err;
    }
    this.logger.info("user registered", { userId: id });
    return this.login(email, password, false);
  }

  /**
   * Start-up bootstrap (SPEC "Admin account"): create the admin when no user exists; on later
   * starts update the admin's email or password when either changed. Returns what it did.
   */
  async ensureAdmin(
    emailInput: string | undefined,
    password: string | undefined,
  ): Promise<"created" | "updated" | "unchanged" | "skipped"> {
    const anyUser = this.users.anyExists();
    if (!emailInput || !password) {
      if (!anyUser) {
        throw new AppError(
          ErrorCode.VALIDATION_ERROR,
          "ADMIN_EMAIL and ADMIN_PASSWORD must be set: no user exists yet, and the first start creates the admin account from them",
        );
      }
      return "skipped";
    }
    const email = normalizeEmail(emailInput);
    const now = isoNow(this.clock);
    const admin = this.users.firstAdmin();
    if (!admin) {
      const existing = this.users.byEmail(email);
      if (existing) {
        this.users.update(existing.id, {
          isAdmin: true,
          passwordHash: await this.passwords.hash(password),
          updatedAt: now,
        });
        return "updated";
      }
      this.users.insert({
        id: crypto.randomUUID(),
        email,
        passwordHash: await this.passwords.hash(password),
        isAdmin: true,
        createdAt: now,
        updatedAt: now,
      });
      return "created";
    }
    const emailChanged = admin.email !== email;
    const passwordChanged = !(await this.passwords.verify(password, admin.passwordHash));
    if (!emailChanged && !passwordChanged) return "unchanged";
    if (emailChanged) {
      const clash = this.users.byEmail(email);
      if (clash) throw new ConflictError(`ADMIN_EMAIL is already used by another account`);
    }
    this.users.update(admin.id, {
      email,
      ...(passwordChanged ? { passwordHash: await this.passwords.hash(password) } : {}),
      failedLoginAttempts: 0,
      lockedUntil: null,
      updatedAt: now,
    });
    if (passwordChanged) this.observer.passwordChanged(admin.id);
    return "updated";
  }
}

function toPublic(user: { id: string; email: string; createdAt: string }): PublicUser {
  return { id: user.id, email: user.email, createdAt: user.createdAt };
}
