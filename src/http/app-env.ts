import type { Scope } from "../auth/scopes.ts";

/** Who is calling: set by the auth middleware, read by handlers through `c.get("auth")`. */
export interface AuthContext {
  userId: string;
  kind: "jwt" | "apiKey";
  /** JWT only: the access token's id and expiry (epoch s), needed by logout. */
  jti?: string;
  exp?: number;
  /** API key only. */
  apiKeyId?: string;
  scopes?: readonly Scope[];
}

export interface AppEnv {
  Variables: {
    requestId: string;
    auth: AuthContext;
  };
}
