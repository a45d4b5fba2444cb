import { signal } from "@preact/signals";

// The dashboard's only door to the service: same-origin fetches to /api/v1. The access token
// lives in memory only; the refresh token sits in an HttpOnly cookie (server: refresh-cookie.ts)
// that page scripts cannot read, so a reload resumes the session with one POST /auth/refresh.

export interface User {
  id: string;
  email: string;
  createdAt: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export const session = signal<{ accessToken: string; user: User } | null>(null);
/** False until the first attempt to resume a session from the cookie has finished. */
export const sessionChecked = signal(false);

const COOKIE_MODE = { "X-Refresh-Cookie": "1" };
let refreshing: Promise<string | null> | null = null;

async function postRefresh(): Promise<string | null> {
  const res = await fetch("/api/v1/auth/refresh", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...COOKIE_MODE },
    body: "{}",
    credentials: "same-origin",
  });
  if (!res.ok) return null;
  return ((await res.json()) as { accessToken: string }).accessToken;
}

/**
 * A fresh access token from the cookie; null when the session is gone. Tabs refresh one at a
 * time (Web Locks): refresh tokens rotate, and two tabs presenting the same one would look like
 * theft and end the session.
 */
export function refreshAccess(): Promise<string | null> {
  if (!refreshing) {
    const locks = (navigator as Navigator & { locks?: LockManager }).locks;
    const run: Promise<string | null> = locks
      ? (locks.request("trading-agent-refresh", () => postRefresh()) as unknown as Promise<string | null>)
      : postRefresh();
    refreshing = run
      .then((token) => {
        if (token && session.value) session.value = { ...session.value, accessToken: token };
        if (!token) session.value = null;
        return token;
      })
      .catch(() => null)
      .finally(() => {
        refreshing = null;
      });
  }
  return refreshing;
}

/** On page load: resume the session from the cookie when there is one. */
export async function resumeSession(): Promise<void> {
  try {
    // Without the session hint cookie (set beside the HttpOnly refresh cookie) there is nothing to
    // resume: asking anyway would log a refused refresh on every first visit.
    if (!document.cookie.split("; ").includes("trading_agent_session=1")) return;
    const token = await postRefresh();
    if (token) {
      const me = await fetch("/api/v1/auth/me", { headers: { Authorization: `Bearer ${token}` } });
      if (me.ok) session.value = { accessToken: token, user: (await me.json()) as User };
    }
  } finally {
    sessionChecked.value = true;
  }
}

/** `code`: with the second factor on, a current TOTP code or an unused recovery code. */
export async function login(email: string, password: string, rememberMe: boolean, code?: string): Promise<void> {
  const res = await fetch("/api/v1/auth/login", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...COOKIE_MODE },
    body: JSON.stringify({ email, password, rememberMe, ...(code ? { code } : {}) }),
    credentials: "same-origin",
  });
  const body = (await res.json().catch(() => ({}))) as { accessToken?: string; user?: User; error?: string };
  if (!res.ok || !body.accessToken || !body.user) throw new ApiError(res.status, body.error ?? "Login failed");
  session.value = { accessToken: body.accessToken, user: body.user };
}

/**
 * Logs out on the server first and only then shows the login form, so the refresh cookie is gone
 * by the time the form appears (a reload right after cannot bring the session back).
 */
export async function logout(): Promise<void> {
  const token = session.value?.accessToken;
  try {
    if (token) {
      await fetch("/api/v1/auth/logout", {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...COOKIE_MODE },
        body: "{}",
        credentials: "same-origin",
      }).catch(() => {});
    }
  } finally {
    session.value = null;
  }
}

async function send(
  method: string,
  path: string,
  body: unknown,
  token: string | undefined,
  extra: Record<string, string> = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...extra };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return fetch(`/api/v1${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "omit",
  });
}

/** Raw response with the access token, refreshed once on a 401. */
export async function authorized(
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<Response> {
  let res = await send(method, path, body, session.value?.accessToken, headers);
  if (res.status === 401 && session.value) {
    const token = await refreshAccess();
    if (token) res = await send(method, path, body, token, headers);
  }
  return res;
}

/** JSON call; a non-2xx answer becomes an ApiError with the spec's `error` and `details`. */
export async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<T> {
  const res = await authorized(method, path, body, headers);
  const data = (await res.json().catch(() => null)) as { error?: string; details?: unknown } | null;
  if (!res.ok) throw new ApiError(res.status, data?.error ?? `Request failed (${res.status})`, data?.details);
  return data as T;
}

export const get = <T>(path: string) => api<T>("GET", path);

/**
 * A fresh Idempotency-Key for one trade the operator confirms (the manual buy, the sell buttons):
 * its retries send it again, so a timeout's retry or a double submit trades once. From
 * getRandomValues, which a page served over plain http has too (randomUUID needs a secure context).
 */
export function newRequestKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Saves a CSV export (the export routes need the Authorization header, so a plain link cannot). */
export async function download(path: string, filename: string): Promise<void> {
  const res = await authorized("GET", path);
  if (!res.ok) throw new ApiError(res.status, `Export failed (${res.status})`);
  saveBlob(await res.blob(), filename);
}

/** Offers `blob` as a file download named `filename` (made in the page: nothing is sent anywhere). */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export const query = (params: Record<string, string | number | boolean | undefined | null>): string => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
};
