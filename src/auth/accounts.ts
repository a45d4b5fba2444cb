import { and, eq, isNull, sql } from "drizzle-orm";
import { type Clock, isoNow } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { refreshTokens, users } from "../db/schema/index.ts";
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
import { type PasswordHasher, passwordRuleViolation } from "./passwords.ts";
import { ACCESS_TTL_S, REFRESH_REMEMBER_TTL_S, REFRESH_TTL_S, type TokenSigner } from "./tokens.ts";

// Accounts: login with lockout, refresh with rotation and reuse detection, logout, registration,
// and the admin bootstrap (SPEC "Authentication", PRODUCT.md §2).

export const MAX_FAILED_LOGINS = 5;
export const LOCK_MS = 15 * 60 * 1000;

export interface PublicUser {
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

const normalizeEmail = (email: string) => email.trim().toLowerCase();

export class AccountService {
  // A real argon2id hash, verified against for unknown emails so that timing does not tell
  // which emails exist.
  private dummyHash: Promise<string> | null = null;

  constructor(
    private readonly database: DatabaseHandle,
    private readonly passwords: PasswordHasher,
    private readonly signer: TokenSigner,
    private readonly blacklist: AccessTokenBlacklist,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  private get db() {
    return this.database.db;
  }

  // Every JWT request looks its user up: prepared once (a drizzle query rebuilt per call cost
  // more than the rest of an authenticated read; bench/ "Performance").
  private findUserStmt?: ReturnType<AccountService["prepareFindUser"]>;
  private prepareFindUser() {
    return this.db
      .select()
      .from(users)
      .where(eq(users.id, sql.placeholder("id")))
      .prepare();
  }

  findUser(id: string) {
    this.findUserStmt ??= this.prepareFindUser();
    return this.findUserStmt.get({ id });
  }

  me(userId: string): PublicUser {
    const user = this.findUser(userId);
    if (!user?.isActive) throw new AuthenticationError("Invalid token");
    return toPublic(user);
  }

  /**
   * The per-address limiter runs before this (in the route); here the lockout is checked before
   * any hashing, so a locked account costs the server nothing.
   */
  async login(emailInput: string, password: string, rememberMe: boolean): Promise<LoginResult> {
    const email = normalizeEmail(emailInput);
    const user = this.db.select().from(users).where(eq(users.email, email)).get();
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
    const ok = await this.passwords.verify(password, user.passwordHash);
    if (!ok) {
      failed += 1;
      const lock = failed >= MAX_FAILED_LOGINS;
      const lockedUntil = lock ? new Date(now + LOCK_MS) : null;
      this.db
        .update(users)
        .set({
          failedLoginAttempts: lock ? 0 : failed,
          lockedUntil: lockedUntil ? lockedUntil.toISOString() : null,
          updatedAt: isoNow(this.clock),
        })
        .where(eq(users.id, user.id))
        .run();
      this.logger.warn("login failed", { userId: user.id, reason: "wrong password", failedAttempts: failed });
      if (lockedUntil) {
        this.logger.warn("account locked", { userId: user.id, lockedUntil: lockedUntil.toISOString() });
        throw new AccountLockedError(lockedUntil);
      }
      throw new AuthenticationError("Invalid email or password");
    }
    if (failed !== 0 || user.lockedUntil) {
      this.db
        .update(users)
        .set({ failedLoginAttempts: 0, lockedUntil: null, updatedAt: isoNow(this.clock) })
        .where(eq(users.id, user.id))
        .run();
    }
    const { accessToken, refreshToken } = await this.issuePair(user.id, crypto.randomUUID(), rememberMe);
    this.logger.info("login succeeded", { userId: user.id });
    return { accessToken, refreshToken, user: toPublic(user) };
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
    this.db
      .insert(refreshTokens)
      .values({
        jti: refresh.jti,
        userId,
        familyId,
        tokenHash: sha256Hex(refresh.token),
        rememberMe,
        expiresAt: new Date(refresh.exp * 1000).toISOString(),
        createdAt: isoNow(this.clock),
      })
      .run();
    return { accessToken: access.token, refreshToken: refresh.token, refreshJti: refresh.jti };
  }

  /**
   * Rotation: the presented token is revoked and replaced. Presenting a token that was already
   * rotated means someone kept a copy: the whole family is revoked (PRODUCT.md §2).
   */
  async refresh(token: string): Promise<TokenPair> {
    const claims = await this.signer.verify(token, "refresh");
    const row = this.db.select().from(refreshTokens).where(eq(refreshTokens.jti, claims.jti)).get();
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
    const res = this.db
      .update(refreshTokens)
      .set({ revokedAt: isoNow(this.clock), replacedBy: pair.refreshJti })
      .where(and(eq(refreshTokens.jti, row.jti), isNull(refreshTokens.revokedAt)))
      .returning({ jti: refreshTokens.jti })
      .all();
    if (res.length === 0) {
      this.revokeFamily(row.familyId);
      throw new AuthenticationError("Token has been revoked");
    }
    return { accessToken: pair.accessToken, refreshToken: pair.refreshToken };
  }

  private revokeFamily(familyId: string): void {
    this.db
      .update(refreshTokens)
      .set({ revokedAt: isoNow(this.clock) })
      .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)))
      .run();
  }

  /** Blacklists the access token for its remaining life and revokes a supplied refresh token. */
  async logout(userId: string, accessJti: string, accessExp: number, refreshToken?: string): Promise<void> {
    this.blacklist.revoke(accessJti, accessExp);
    if (refreshToken) {
      let claims: Awaited<ReturnType<typeof this.signer.verify>>;
      try {
        claims = await this.signer.verify(refreshToken, "refresh");
      } catch (err) {
        // An already expired refresh token needs no revoking; anything else is a bad request.
        if (err instanceof AuthenticationError && err.message === "Token expired") return;
        throw err;
      }
      if (claims.userId !== userId) throw new AuthenticationError("Invalid token");
      this.db
        .update(refreshTokens)
        .set({ revokedAt: isoNow(this.clock) })
        .where(and(eq(refreshTokens.jti, claims.jti), isNull(refreshTokens.revokedAt)))
        .run();
    }
    this.logger.info("logout", { userId });
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
      this.db.insert(users).values({ id, email, passwordHash, createdAt: now, updatedAt: now }).run();
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
    const anyUser = this.db.select({ id: users.id }).from(users).limit(1).get();
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
    const admin = this.db.select().from(users).where(eq(users.isAdmin, true)).limit(1).get();
    if (!admin) {
      const existing = this.db.select().from(users).where(eq(users.email, email)).get();
      if (existing) {
        this.db
          .update(users)
          .set({ isAdmin: true, passwordHash: await this.passwords.hash(password), updatedAt: now })
          .where(eq(users.id, existing.id))
          .run();
        return "updated";
      }
      this.db
        .insert(users)
        .values({
          id: crypto.randomUUID(),
          email,
          passwordHash: await this.passwords.hash(password),
          isAdmin: true,
          createdAt: now,
          updatedAt: now,
        })
        .run();
      return "created";
    }
    const emailChanged = admin.email !== email;
    const passwordChanged = !(await this.passwords.verify(password, admin.passwordHash));
    if (!emailChanged && !passwordChanged) return "unchanged";
    if (emailChanged) {
      const clash = this.db.select({ id: users.id }).from(users).where(eq(users.email, email)).get();
      if (clash) throw new ConflictError(`ADMIN_EMAIL is already used by another account`);
    }
    this.db
      .update(users)
      .set({
        email,
        ...(passwordChanged ? { passwordHash: await this.passwords.hash(password) } : {}),
        failedLoginAttempts: 0,
        lockedUntil: null,
        updatedAt: now,
      })
      .where(eq(users.id, admin.id))
      .run();
    return "updated";
  }
}

function toPublic(user: { id: string; email: string; createdAt: string }): PublicUser {
  return { id: user.id, email: user.email, createdAt: user.createdAt };
}
