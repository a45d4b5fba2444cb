import { existsSync } from "node:fs";
import { chromium } from "playwright-core";
import type { TestContext } from "./context.ts";

// What the dashboard's browser tests share: Debian's chromium (CHROMIUM_PATH to override),
// launched headless for playwright-core, and the in-process service served on 127.0.0.1.

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);

export const launchChromium = () =>
  chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-dev-shm-usage"] });

/** `ctx`'s app on a free port (idleTimeout 0: the event streams stay open); stop the server after. */
export function serveApp(
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
