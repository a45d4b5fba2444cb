import { type JWTPayload, errors as joseErrors, jwtVerify, SignJWT } from "jose";
import type { Clock } from "../clock.ts";
import { AuthenticationError } from "../errors.ts";

// JWTs per SPEC "Tokens" and PRODUCT.md §2: HS256 pinned on verify, claims sub/jti/typ/iat/exp.

export type TokenType = "access" | "refresh";

export const ACCESS_TTL_S = 15 * 60;
export const REFRESH_TTL_S = 24 * 60 * 60;
export const REFRESH_REMEMBER_TTL_S = 30 * 24 * 60 * 60;

export interface VerifiedToken {
  userId: string;
  jti: string;
  typ: TokenType;
  iat: number;
  exp: number;
  /** Refresh tokens only: the login's rotation family. */
  fam?: string;
  rm?: boolean;
}

export interface IssuedToken {
  token: string;
  jti: string;
  exp: number; // epoch seconds
}

export class TokenSigner {
  constructor(
    private readonly secret: Uint8Array,
    private readonly clock: Clock,
  ) {}

  async issue(
    userId: string,
    typ: TokenType,
    ttlSeconds: number,
    extra: Record<string, unknown> = {},
  ): Promise<IssuedToken> {
    const jti = crypto.randomUUID();
    const iat = Math.floor(this.clock.now() / 1000);
    const exp = iat + ttlSeconds;
    const token = await new SignJWT({ typ, ...extra })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(userId)
      .setJti(jti)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(this.secret);
    return { token, jti, exp };
  }

  /** Verifies signature (HS256 only), expiry against the injected clock, and the token type. */
  async verify(token: string, expected: TokenType): Promise<VerifiedToken> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.secret, {
        algorithms: ["HS256"],
        currentDate: new Date(this.clock.now()),
      }));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw new AuthenticationError("Token expired");
      throw new AuthenticationError("Invalid token");
    }
    const { sub, jti, typ, iat, exp } = payload;
    if (typeof sub !== "string" || typeof jti !== "string" || typeof exp !== "number" || typeof iat !== "number") {
      throw new AuthenticationError("Invalid token");
    }
    if (typ !== "access" && typ !== "refresh") throw new AuthenticationError("Invalid token");
    if (typ !== expected) throw new AuthenticationError("Invalid token type");
    return {
      userId: sub,
      jti,
      typ,
      iat,
      exp,
      fam: typeof payload.fam === "string" ? payload.fam : undefined,
      rm: payload.rm === true,
    };
  }
}
