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

export const UserSchema = z.object({ id: z.string().uuid(), email: z.string(), createdAt: z.string() }).openapi("User");

export const TokenPairSchema = z
  .object({
    accessToken: z.string(),
    refreshToken: z.string().optional().openapi({
      description: "Absent when the request sent `X-Refresh-Cookie: 1`: the token is then in an HttpOnly cookie",
    }),
  })
  .openapi("TokenPair");
export const LoginResponse = TokenPairSchema.extend({ user: UserSchema }).openapi("LoginResponse");
