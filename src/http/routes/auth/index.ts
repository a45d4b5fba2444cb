import type { Context } from "hono";
import { ValidationError } from "../../../errors.ts";
import type { AppDeps } from "../../app-env.ts";
import { audit } from "../../audit.ts";
import { clientAddress, fromTrustedProxy, originOf } from "../../client-address.ts";
import { auth, createRouter, operation, type RateLimitDeclaration } from "../../operation.ts";
import { errorResponses, jsonContent, SuccessMessageSchema } from "../../schemas.ts";
import { clearRefreshCookie, refreshTokenFromCookie, setRefreshCookie, wantsRefreshCookie } from "./refresh-cookie.ts";
import {
  LoginBody,
  LoginResponse,
  LogoutBody,
  MeSchema,
  REFRESH_REQUIRED,
  RefreshBody,
  RegisterBody,
  TokenPairSchema,
} from "./schema.ts";

// SPEC "Limits": login and register are limited per client address.
const perAddress = {
  limiter: "login",
  key: (c, s) => `login:${clientAddress(c, s.trustedProxies)}`,
} as const satisfies RateLimitDeclaration;

/** Logout with a refresh token that is not the user's valid one: the access token is revoked anyway. */
const LOGOUT_REFRESH_NOT_RECOGNISED = "Logged out; the refresh token was not recognised";

const login = operation({
  method: "post",
  path: "/login",
  tags: ["auth"],
  auth: auth.none,
  rateLimit: perAddress,
  request: { body: { ...jsonContent(LoginBody), required: true } },
  responses: {
    200: { description: "Logged in", ...jsonContent(LoginResponse) },
    ...errorResponses(400, 401, 423, 429),
  },
});

const register = operation({
  method: "post",
  path: "/register",
  tags: ["auth"],
  auth: auth.none,
  rateLimit: perAddress,
  request: { body: { ...jsonContent(RegisterBody), required: true } },
  responses: {
    201: { description: "Registered and logged in", ...jsonContent(LoginResponse) },
    ...errorResponses(400, 403, 409, 429),
  },
});

const refresh = operation({
  method: "post",
  path: "/refresh",
  tags: ["auth"],
  auth: auth.none,
  request: { body: { ...jsonContent(RefreshBody), required: true } },
  responses: { 200: { description: "New token pair", ...jsonContent(TokenPairSchema) }, ...errorResponses(400, 401) },
});

const me = operation({
  method: "get",
  path: "/me",
  tags: ["auth"],
  auth: auth.jwt,
  responses: { 200: { description: "The current user", ...jsonContent(MeSchema) }, ...errorResponses(401) },
});

const logout = operation({
  method: "post",
  path: "/logout",
  tags: ["auth"],
  auth: auth.jwt,
  request: { body: { ...jsonContent(LogoutBody), required: false } },
  responses: {
    200: {
      description:
        "Logged out: the access token is revoked. A refresh token that is not the user's (malformed, unknown or " +
        `another user's) is left alone and the message says "${LOGOUT_REFRESH_NOT_RECOGNISED}".`,
      ...jsonContent(SuccessMessageSchema),
    },
    ...errorResponses(400, 401),
  },
});

export function authRoutes(s: AppDeps) {
  const router = createRouter(s);
  // X-Forwarded-Proto is believed only from a trusted proxy (src/http/client-address.ts).
  const trustProxy = (c: Context) => fromTrustedProxy(c, s.trustedProxies);

  return router
    .openapi(login, async (c) => {
      const { email, password, rememberMe, code } = c.req.valid("json");
      const result = await s.accounts.login(email, password, rememberMe ?? false, code, originOf(c, s.trustedProxies));
      if (!wantsRefreshCookie(c)) return c.json(result, 200);
      // Dashboard login: the refresh token goes into the HttpOnly cookie, never into the body.
      const { refreshToken, ...rest } = result;
      setRefreshCookie(c, refreshToken, trustProxy(c));
      return c.json(rest, 200);
    })
    .openapi(register, async (c) => {
      const { email, password } = c.req.valid("json");
      return c.json(await s.accounts.register(email, password, s.config.ALLOW_REGISTRATION), 201);
    })
    .openapi(refresh, async (c) => {
      const token = c.req.valid("json").refreshToken ?? refreshTokenFromCookie(c);
      if (!token) throw new ValidationError(REFRESH_REQUIRED);
      const pair = await s.accounts.refresh(token);
      if (!wantsRefreshCookie(c)) return c.json(pair, 200);
      setRefreshCookie(c, pair.refreshToken, trustProxy(c));
      return c.json({ accessToken: pair.accessToken }, 200);
    })
    .openapi(me, (c) => c.json(s.accounts.me(c.get("auth").userId), 200))
    .openapi(logout, async (c) => {
      const auth = c.get("auth");
      const body = c.req.valid("json");
      const refreshToken = body?.refreshToken ?? refreshTokenFromCookie(c);
      if (wantsRefreshCookie(c)) clearRefreshCookie(c, trustProxy(c));
      const out = await s.accounts.logout(auth.userId, auth.jti as string, auth.exp as number, refreshToken);
      audit(c, s, "auth.logout", null);
      const message = out.refreshToken === "not recognised" ? LOGOUT_REFRESH_NOT_RECOGNISED : "Logged out successfully";
      return c.json({ success: true, message }, 200);
    });
}
