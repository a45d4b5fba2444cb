import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { type ChildService, startChildService } from "./child-service.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, offlineEnv, type TestContext } from "./context.ts";

// What the dashboard's browser tests share: Debian's chromium (CHROMIUM_PATH to override),
// launched headless for playwright-core, and the in-process service served on 127.0.0.1.

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);

export const launchChromium = () =>
  chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-dev-shm-usage"] });

/** `ctx`'s app on a free port (idleTimeout 0: the event streams stay open); stop the server after. */
function serveApp(
  ctx: TestContext,
  opts: { idleTimeout?: number } = {},
): { server: ReturnType<typeof Bun.serve>; origin: string } {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    ...opts,
    fetch: (req, srv) => ctx.app.fetch(req, { server: srv }),
  });
  return { server, origin: `http://127.0.0.1:${server.port}` };
}

/** One request of a page as Chromium's own network log saw it; `status` once its response came. */
export interface SeenRequest {
  url: string;
  status?: number;
}

/**
 * Every request `page` makes, across reloads, read from Chromium's network log over a CDP session
 * of its own. Not Playwright's request/response events: those create a Request and a Response
 * object per request in the client, and now and then a requestFinished event reached the client
 * before the Response it names ("Object with guid response@… was not bound in the connection"),
 * which failed whichever test was running. A CDP event is plain data.
 */
export async function recordRequests(
  page: Page,
  onResponse?: (r: Required<SeenRequest>) => void,
): Promise<SeenRequest[]> {
  const seen: SeenRequest[] = [];
  const byId = new Map<string, SeenRequest>();
  const cdp = await page.context().newCDPSession(page);
  cdp.on("Network.requestWillBeSent", (e) => {
    const request = { url: e.request.url };
    byId.set(e.requestId, request);
    seen.push(request);
  });
  cdp.on("Network.responseReceived", (e) => {
    const request = byId.get(e.requestId);
    if (request) request.status = e.response.status;
    onResponse?.({ url: e.response.url, status: e.response.status });
  });
  await cdp.send("Network.enable");
  return seen;
}

/**
 * The requests of `seen` that went anywhere but `origin` (inline `data:` URLs are the page's own):
 * what "nothing leaves the host" expects to be empty.
 */
export function offOrigin(seen: readonly SeenRequest[], origin: string): string[] {
  return seen.map((r) => r.url).filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith("data:"));
}

export interface ServedPage {
  origin: string;
  page: Page;
  /** Uncaught errors of the page's scripts, in order. */
  pageErrors: string[];
  /** Closes the browser and the listener (not the context the app belongs to). */
  close(): Promise<void>;
}

/** Logs the served page in as the test context's admin (ADMIN_EMAIL) and waits for the overview. */
export async function logInAsAdmin({ page, origin }: Pick<ServedPage, "page" | "origin">): Promise<void> {
  await page.goto(`${origin}/`);
  await page.getByLabel("Email").fill(ADMIN_EMAIL);
  await page.getByLabel("Password").fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("heading", { name: "Agents", exact: true }).waitFor();
}

/**
 * `ctx`'s app on a 127.0.0.1 listener and one page of a fresh headless chromium, for a test
 * file's browser flow: `prepare` sets up the browser context (permissions, init scripts) before
 * the page opens; the page's uncaught errors are collected and its default timeout set.
 */
export async function openServedPage(
  ctx: TestContext,
  opts: {
    idleTimeout?: number;
    viewport?: { width: number; height: number };
    timeoutMs?: number;
    prepare?: (context: BrowserContext, origin: string) => Promise<void>;
  } = {},
): Promise<ServedPage> {
  const { server, origin } = serveApp(ctx, opts.idleTimeout === undefined ? {} : { idleTimeout: opts.idleTimeout });
  const browser = await launchChromium();
  const close = async () => {
    await browser.close().catch(() => {});
    server.stop(true);
  };
  try {
    const context = await browser.newContext(opts.viewport ? { viewport: opts.viewport } : {});
    await opts.prepare?.(context, origin);
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (e) => pageErrors.push(e.message));
    page.setDefaultTimeout(opts.timeoutMs ?? 10_000);
    return { origin, page, pageErrors, close };
  } catch (err) {
    await close();
    throw err;
  }
}

export interface ServicePage {
  /** The service's directory (its database is `trading.db` there). */
  dir: string;
  service: ChildService;
  context: BrowserContext;
  page: Page;
  /** Every URL the page requested, in order (recordRequests). */
  requested: SeenRequest[];
  /** Closes the browser, stops the service and removes its directory. */
  close(): Promise<void>;
}

/**
 * The service as a child process (offline, its own database in a new temp directory, `env` on
 * top) and one page of a fresh headless chromium that records every request it makes, for a
 * dashboard flow against the real process.
 */
export async function startServiceWithPage(
  prefix: string,
  env: Record<string, string>,
  opts: { viewport?: { width: number; height: number }; timeoutMs?: number } = {},
): Promise<ServicePage> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const [service, browser] = await Promise.allSettled([
    startChildService(
      { ...offlineEnv, LOG_LEVEL: "warn", DATABASE_PATH: join(dir, "trading.db"), ...env },
      { cwd: dir },
    ),
    launchChromium(),
  ]);
  const close = async () => {
    if (browser.status === "fulfilled") await browser.value.close().catch(() => {});
    if (service.status === "fulfilled") await service.value.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  if (service.status === "rejected" || browser.status === "rejected") {
    await close();
    throw service.status === "rejected" ? service.reason : (browser as PromiseRejectedResult).reason;
  }
  const context = await browser.value.newContext(opts.viewport ? { viewport: opts.viewport } : {});
  const page = await context.newPage();
  page.setDefaultTimeout(opts.timeoutMs ?? 10_000);
  const requested = await recordRequests(page);
  return { dir, service: service.value, context, page, requested, close };
}
