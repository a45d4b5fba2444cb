import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Config, ConfigError, loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/logger.ts";
import { isLoopback, type ServerHandle, serve, startupWarnings } from "../../src/server.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, offlineEnv } from "../helpers/context.ts";

// serve() in-process: listener, start-up warnings, and the graceful shutdown of PRODUCT.md §6
// (stop accepting, let running requests finish, run the workers' shutdown hooks, close the
// database).

const dirs: string[] = [];
const handles: ServerHandle[] = [];
afterEach(async () => {
  for (const h of handles.splice(0)) await h.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function config(env: Record<string, string> = {}): Config {
  const dir = mkdtempSync(join(tmpdir(), "trading-agent-serve-"));
  dirs.push(dir);
  return loadConfig({ ...offlineEnv, HOST: "127.0.0.1", PORT: "0", DATABASE_PATH: join(dir, "trading.db"), ...env });
}

async function start(env: Record<string, string> = {}, shutdownTimeoutMs?: number) {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: "debug", write: (l) => lines.push(JSON.parse(l)) });
  const handle = await serve(config(env), {
    services: { logger, passwordCost: { memoryCost: 1024, timeCost: 1 } },
    shutdownTimeoutMs,
  });
  handles.push(handle);
  return { handle, lines };
}

describe("start-up safety warnings", () => {
  test.each([
    ["127.0.0.1", true],
    ["127.8.9.10", true],
    ["localhost", true],
    ["::1", true],
    ["[::1]", true],
    ["0.0.0.0", false],
    ["::", false],
    ["192.168.1.20", false],
    ["example.com", false],
  ])("isLoopback(%p) = %p", (host, expected) => {
    expect(isLoopback(host)).toBe(expected);
  });

  test("non-loopback HOST and a short ADMIN_PASSWORD each give a loud warning; the password never appears", () => {
    const warnings = startupWarnings(config({ HOST: "0.0.0.0", ADMIN_PASSWORD: "Sh0rt!pw" }));
    expect(warnings).toEqual([
      {
        msg: "SECURITY WARNING: listening on a non-loopback address; the API faces the network. Put a TLS reverse proxy in front of it and firewall the port, or set HOST=127.0.0.1",
        context: { host: "0.0.0.0" },
      },
      {
        msg: "SECURITY WARNING: ADMIN_PASSWORD is shorter than 12 characters; choose a longer one",
        context: { variable: "ADMIN_PASSWORD" },
      },
    ]);
    expect(JSON.stringify(warnings)).not.toContain("Sh0rt!pw");
  });

  test("loopback HOST and a 12-character password give no warning", () => {
    expect(startupWarnings(config({ HOST: "127.0.0.1", ADMIN_PASSWORD: "Twelve!Chars" }))).toEqual([]);
  });

  test("serve logs the warning at level warn before listening", async () => {
    const { lines } = await start({ ADMIN_PASSWORD: "Sh0rt!pw" });
    const msgs = lines.map((l) => `${l.level} ${l.msg}`);
    expect(msgs).toContain("warn SECURITY WARNING: ADMIN_PASSWORD is shorter than 12 characters; choose a longer one");
    expect(
      msgs.indexOf("warn SECURITY WARNING: ADMIN_PASSWORD is shorter than 12 characters; choose a longer one"),
    ).toBeLessThan(msgs.indexOf("info listening"));
    expect(JSON.stringify(lines)).not.toContain("Sh0rt!pw");
  });
});

describe("serve", () => {
  test("listens, creates the admin, and answers the API", async () => {
    const { handle, lines } = await start();
    const live = await fetch(`${handle.url}/api/v1/health/live`);
    expect(live.status).toBe(200);
    expect(((await live.json()) as { live: boolean }).live).toBe(true);
    const login = await fetch(`${handle.url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }),
    });
    expect(login.status).toBe(200);
    const listening = lines.find((l) => l.msg === "listening")!;
    expect(listening).toMatchObject({
      level: "info",
      host: "127.0.0.1",
      port: handle.port,
      database: handle.database.path,
    });
  });

  test("PUBLIC_PORT serves only /v1 on its own listener", async () => {
    const publicPort = (() => {
      const l = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
      const p = l.port;
      l.stop(true);
      return p;
    })();
    const { handle } = await start({ PUBLIC_PORT: String(publicPort) });
    expect(handle.publicPort).toBe(publicPort);
    const main = await fetch(`http://127.0.0.1:${publicPort}/api/v1/health/live`);
    expect(main.status).toBe(404);
    expect(await main.json()).toEqual({
      success: false,
      error: "Route not found: GET /api/v1/health/live",
      code: "NOT_FOUND",
    });
  });

  test("a missing admin on an empty database is a ConfigError", async () => {
    const env = { ...offlineEnv, ADMIN_EMAIL: "", ADMIN_PASSWORD: "" };
    const cfg = config(env);
    const err = await serve(cfg, { services: { logger: createLogger({ level: "silent" }) } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      "ADMIN_EMAIL and ADMIN_PASSWORD must be set: no user exists yet, and the first start creates the admin account from them",
    ]);
  });

  test("a port in use is a runtime error, not a ConfigError", async () => {
    const { handle } = await start();
    const cfg = config({ PORT: String(handle.port) });
    const err = await serve(cfg, { services: { logger: createLogger({ level: "silent" }) } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(ConfigError);
    expect((err as NodeJS.ErrnoException).code).toBe("EADDRINUSE");
  });
});

describe("graceful shutdown", () => {
  test("stops accepting, lets a running request finish, runs hooks in reverse with the database open, then closes it", async () => {
    const { handle, lines } = await start();
    const order: string[] = [];
    const db = handle.database.sqlite;
    handle.services.onShutdown(
      () => order.push(`monitor stopped (db open: ${db.query("SELECT 1 AS one").get() !== null})`),
      "monitor",
    );
    handle.services.onShutdown(async () => {
      order.push("trades drained");
    }, "trading");

    // A request whose handler is still running at stop(): its body arrives in two parts.
    let sendRest: () => void = () => {};
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`{"email":"${ADMIN_EMAIL}",`));
        sendRest = () => {
          controller.enqueue(new TextEncoder().encode(`"password":"${ADMIN_PASSWORD}"}`));
          controller.close();
        };
      },
    });
    const inflight = fetch(`${handle.url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    // Wait until the server runs the handler (blocked reading the rest of the body).
    while (handle.inflightRequests() === 0) await new Promise((r) => setImmediate(r));

    const stopped = handle.stop("test");
    const refused = await fetch(`${handle.url}/api/v1/health/live`).then(
      (r) => r.status,
      () => "refused",
    );
    expect(refused).toBe("refused");
    sendRest();
    const res = await inflight;
    expect(res.status).toBe(200);
    await stopped;

    expect(order).toEqual(["trades drained", "monitor stopped (db open: true)"]);
    expect(() => db.query("SELECT 1").get()).toThrow();
    // The login was answered between "shutting down" and "stopped".
    const at = (pred: (l: Record<string, unknown>) => boolean) => lines.findIndex(pred);
    const loginLogged = at((l) => l.msg === "request" && l.path === "/api/v1/auth/login" && l.status === 200);
    expect(at((l) => l.msg === "shutting down")).toBeLessThan(loginLogged);
    expect(loginLogged).toBeLessThan(at((l) => l.msg === "stopped"));
    expect(lines.at(-1)).toMatchObject({ msg: "stopped", reason: "test" });
  });

  test("a stuck shutdown step cannot keep the database open past the bound", async () => {
    const { handle, lines } = await start({}, 300);
    handle.services.onShutdown(() => new Promise(() => {}), "stuck worker");
    const started = performance.now();
    await handle.stop("test");
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(() => handle.database.sqlite.query("SELECT 1").get()).toThrow();
    expect(lines.find((l) => l.msg === "shutdown step timed out")).toMatchObject({
      level: "warn",
      step: "stuck worker",
    });
    expect(lines.at(-1)).toMatchObject({ msg: "stopped", reason: "test" });
  });

  test("stop() is idempotent", async () => {
    const { handle, lines } = await start();
    await Promise.all([handle.stop("a"), handle.stop("b")]);
    await handle.stop("c");
    expect(lines.filter((l) => l.msg === "stopped")).toHaveLength(1);
  });
});
