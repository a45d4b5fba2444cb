import { z } from "@hono/zod-openapi";

const required = "Email and password are required";

export const LoginBody = z
  .object({
    email: z
      .string({ error: required })
      .min(1, { error: required })
      .max(320, { error: "Email must be at most 320 characters" }),
    password: z
      .string({ error: required })
      .min(1, { error: required })
      .max(1024, { error: "Password must be at most 1024 characters" }),
    rememberMe: z.boolean({ error: "rememberMe must be a boolean" }).optional(),
    code: z
      .string({ error: "code must be a string" })
      .max(64, { error: "code must be at most 64 characters" })
      .optional()
      .openapi({ description: "With the second factor on: a current TOTP code or an unused recovery code" }),
  })
  .openapi("LoginRequest", { example: { email: "admin@example.com", password: "S3cure!pass", rememberMe: false } });

export const RegisterBody = z
  .object({
    email: z
      .string({ error: required })
      .min(1, { error: required })
      .max(320, { error: "Email must be at most 320 characters" })
      .email({ error: "Invalid email address" }),
    password: z
      .string({ error: required })
      .min(1, { error: required })
      .max(1024, { error: "Password must be at most 1024 characters" }),
  })
  .openapi("RegisterRequest", { example: { email: "new.user@example.com", password: "S3cure!pass" } });

export const REFRESH_REQUIRED = "Refresh token is required";

/** refreshToken may instead come from the dashboard's cookie (refresh-cookie.ts). */
export const RefreshBody = z
  .object({
    refreshToken: z.string({ error: REFRESH_REQUIRED }).min(1, { error: REFRESH_REQUIRED }).optional(),
  })
  .openapi("RefreshRequest", { example: { refreshToken: "<refresh token>" } });

export const LogoutBody = z
  .object({ refreshToken: z.string().min(1).optional() })
  .openapi("LogoutRequest", { example: { refreshToken: "<refresh token>" } });

const UserSchema = z.object({ id: z.string().uuid(), email: z.string(), createdAt: z.string() }).openapi("User");

export const MeSchema = UserSchema.extend({
  twoFactorEnabled: z.boolean().openapi({ description: "Login asks for a second factor (POST /auth/2fa/enable)" }),
}).openapi("Me");

export const TokenPairSchema = z
  .object({
    accessToken: z.string(),
    refreshToken: z.string().optional().openapi({
      description: "Absent when the request sent `X-Refresh-Cookie: 1`: the token is then in an HttpOnly cookie",
    }),
  })
  .openapi("TokenPair");
export const LoginResponse = TokenPairSchema.extend({ user: UserSchema }).openapi("LoginResponse");

const CODE_REQUIRED_400 = "code is required";
export const TwoFactorCodeBody = z
  .object({
    code: z
      .string({ error: CODE_REQUIRED_400 })
      .min(1, { error: CODE_REQUIRED_400 })
      .max(64, { error: "code must be at most 64 characters" }),
  })
  .openapi("TwoFactorCode", { example: { code: "123456" } });

export const TwoFactorSetupResponse = z
  .object({
    secret: z.string().openapi({ description: "Base32 TOTP secret (RFC 6238, SHA-1, 6 digits, 30 s)" }),
    otpauthUrl: z.string().openapi({ description: "otpauth://totp/… URI for an authenticator app's QR scanner" }),
  })
  .openapi("TwoFactorSetup");

export const TwoFactorEnableResponse = z
  .object({
    success: z.literal(true),
    recoveryCodes: z.array(z.string()).openapi({ description: "Ten single-use codes, shown this once" }),
  })
  .openapi("TwoFactorEnabled");
