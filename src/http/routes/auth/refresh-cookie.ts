import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { decodeJwt } from "jose";

// The dashboard's refresh token lives in a cookie page scripts cannot read: HttpOnly,
// SameSite=Strict, sent only to /api/v1/auth. A client opts in with the `X-Refresh-Cookie: 1`
// header on login, refresh and logout; the cookie is read only on requests that carry that header,
// a custom header no cross-site form or link can send (a cross-origin script would need a CORS
// preflight this service does not grant). The cookie authorises nothing but a refresh: every
// other request needs the access token in the Authorization header. Decisions in
// docs/decisions.md "Dashboard"; tests in test/dashboard/refresh-cookie.test.ts.

const REFRESH_COOKIE = "trading_agent_refresh";
const REFRESH_COOKIE_PATH = "/api/v1/auth";
const COOKIE_MODE_HEADER = "X-Refresh-Cookie";
/**
 * A readable companion of the refresh cookie holding only "1": the page tries POST /auth/refresh
 * on load only when it is there, so a first visit does not log a refused refresh (400). It grants
 * nothing; it lives and goes with the refresh cookie.
 */
const SESSION_HINT_COOKIE = "trading_agent_session";

export const wantsRefreshCookie = (c: Context): boolean => c.req.header(COOKIE_MODE_HEADER) === "1";

/** The refresh token from the cookie, only for requests that opted in. */
export const refreshTokenFromCookie = (c: Context): string | undefined =>
  wantsRefreshCookie(c) ? getCookie(c, REFRESH_COOKIE) || undefined : undefined;

const overHttps = (c: Context, trustProxy: boolean): boolean =>
  new URL(c.req.url).protocol === "https:" || (trustProxy && c.req.header("x-forwarded-proto") === "https");

/**
 * Puts the refresh token in the cookie. A "remember me" login gets a cookie that outlives the
 * browser session until the token expires; otherwise it ends with the browser session.
 */
export function setRefreshCookie(c: Context, refreshToken: string, trustProxy: boolean): void {
  const claims = decodeJwt(refreshToken);
  const lifetime = claims.rm === true && typeof claims.exp === "number" ? { expires: new Date(claims.exp * 1000) } : {};
  const secure = overHttps(c, trustProxy);
  setCookie(c, REFRESH_COOKIE, refreshToken, {
    httpOnly: true,
    sameSite: "Strict",
    path: REFRESH_COOKIE_PATH,
    secure,
    ...lifetime,
  });
  setCookie(c, SESSION_HINT_COOKIE, "1", { sameSite: "Strict", path: "/", secure, ...lifetime });
}

export function clearRefreshCookie(c: Context, trustProxy: boolean): void {
  deleteCookie(c, REFRESH_COOKIE, { path: REFRESH_COOKIE_PATH, secure: overHttps(c, trustProxy) });
  deleteCookie(c, SESSION_HINT_COOKIE, { path: "/", secure: overHttps(c, trustProxy) });
}
