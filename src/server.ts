import type { Server } from "bun";
import { systemClock } from "./clock.ts";
import { type Config, ConfigError } from "./config.ts";
import { type DatabaseHandle, openDatabase } from "./db/client.ts";
import { acquireInstanceLock, type InstanceLock } from "./db/instance-lock.ts";
import { clearRestoreMarker, readRestoreMarker } from "./db/replication/restore.ts";
import { adminExists } from "./db/repositories/admin-presence.ts";
import { AppError } from "./errors.ts";
import { StartGate } from "./http/start-gate.ts";
import { SHUTDOWN_TIMEOUT_MS } from "./lifecycle.ts";
import type { ServiceOptions, Services } from "./services.ts";
import { VERSION } from "./version.ts";

// `trading-agent serve`: config → database + migrations → Bun.serve → (load the domain and the
// HTTP layer) → services → (first start: admin account) → apps → (later starts: admin account
// check) → background workers. The handle's stop() is the graceful shutdown of PRODUCT.md §6,
// shared by the CLI's signal handlers and the tests.
//
// Listening comes before the domain and the routes are loaded (docs/decisions.md
// "Performance", "Start-up and memory"): evaluating them is most of a start. Until the apps exist,
// src/http/start-gate.ts answers /health/live and holds every other request for the apps.

/**
 * A request within this long means the API is in use: the signal queue then decides in small
 * batches, so a drain does not hold requests for long (SignalQueue.shareWith).
 */
const API_IN_USE_MS = 100;

/** Shorter than this draws a warning: the spec sets no rule for ADMIN_PASSWORD, so warn, don't refuse. */
const ADMIN_PASSWORD_MIN_RECOMMENDED = 12;

export interface ServeOptions {
  /** Passed to createServices (tests: logger, clock, password cost). */
  services?: ServiceOptions;
  shutdownTimeoutMs?: number;
  /** Variables that look like ours but are not read (src/cli/unknown-variables.ts): logged once. */
  configWarnings?: readonly string[];
}

export interface ServerHandle {
  services: Services;
  database: DatabaseHandle;
  /** Base URL of the main listener, e.g. http://127.0.0.1:3000 */
  url: string;
  port: number;
  publicPort: number | undefined;
  /** Request handlers running right now (a streaming response counts until it is returned). */
  inflightRequests(): number;
  /** Graceful shutdown; idempotent. Resolves once the database is closed. */
  stop(reason?: string): Promise<void>;
}

export interface StartupWarning {
  msg: string;
  context: Record<string, unknown>;
}

/** True for names and addresses that only this machine can reach. */
export function isLoopback(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h) || /^::ffff:127(\.\d{1,3}){3}$/.test(h);
}

/** The loud start-up warnings (docs/decisions.md "Binary, CLI and operations"). Never includes a secret or its length. */
export function startupWarnings(config: Config): StartupWarning[] {
  const out: StartupWarning[] = [];
  if (!isLoopback(config.HOST)) {
    out.push({
      msg: "SECURITY WARNING: listening on a non-loopback address; the API faces the network. Put a TLS reverse proxy in front of it and firewall the port, or set HOST=127.0.0.1",
      context: { host: config.HOST },
    });
  }
  if (config.ADMIN_PASSWORD !== undefined && config.ADMIN_PASSWORD.length < ADMIN_PASSWORD_MIN_RECOMMENDED) {
    out.push({
      msg: `SECURITY WARNING: ADMIN_PASSWORD is shorter than ${ADMIN_PASSWORD_MIN_RECOMMENDED} characters; choose a longer one`,
      context: { variable: "ADMIN_PASSWORD" },
    });
  }
  return out;
}

/**
 * Starts the service. Throws ConfigError for problems the operator must fix in the configuration
 * (the CLI exits 2) and anything else for runtime failures such as a port in use (exit 1); in
 * both cases what was opened is closed again.
 */
export async function serve(config: Config, opts: ServeOptions = {}): Promise<ServerHandle> {
  // One service per data directory: a second one stops here, naming the first (exit 1).
  const lock = acquireInstanceLock(config.DATABASE_PATH);
  let database: DatabaseHandle;
  try {
    database = openDatabase(config.DATABASE_PATH, { sync: config.DB_SYNC });
  } catch (err) {
    lock.release();
    throw err;
  }
  let services: Services | undefined;
  const servers: Server<undefined>[] = [];
  const gate = new StartGate(opts.services?.clock ?? systemClock);
  try {
    const inflight = new InflightCounter();
    const main = Bun.serve({
      hostname: config.HOST,
      port: config.PORT,
      // Explicit, always: the idle limit is the operator's (HTTP_IDLE_TIMEOUT_SECONDS, not Bun's 10 s),
      // and when left unset Bun prints a plain-text warning into the JSON log.
      idleTimeout: config.HTTP_IDLE_TIMEOUT_SECONDS,
      fetch: (req, srv) => inflight.track(gate.fetch("main", req, srv)),
    });
    servers.push(main);
    let publicServer: Server<undefined> | undefined;
    if (config.PUBLIC_PORT !== undefined) {
      // PRODUCT.md §1: PUBLIC_PORT additionally serves the public API (/v1/...) alone: an app
      // with only those routes, so /api/v1/*, /metrics and the OpenAPI document are 404 there.
      publicServer = Bun.serve({
        hostname: config.HOST,
        port: config.PUBLIC_PORT,
        idleTimeout: config.HTTP_IDLE_TIMEOUT_SECONDS,
        fetch: (req, srv) => inflight.track(gate.fetch("public", req, srv)),
      });
      servers.push(publicServer);
    }

    // Evaluating a module graph holds the loop: a turn between the two large ones answers a health probe.
    await nextTurn();
    const { createServices } = await import("./services.ts");
    await nextTurn();
    const [{ createApp, createPublicApp }, { createAppDeps }] = await Promise.all([
      import("./app.ts"),
      import("./http/deps.ts"),
    ]);
    await nextTurn();
    services = createServices(config, database, opts.services);
    services.signalQueue.shareWith(() => inflight.receivedWithin(API_IN_USE_MS));
    const log = services.logger;
    for (const w of startupWarnings(config)) log.warn(w.msg, w.context);
    for (const w of opts.configWarnings ?? []) log.warn(`CONFIGURATION WARNING: ${w}`);

    const svc = services;
    const ensureAdmin = async () => {
      try {
        const admin = await svc.accounts.ensureAdmin(config.ADMIN_EMAIL, config.ADMIN_PASSWORD);
        log.info("admin account", { result: admin });
      } catch (err) {
        if (err instanceof AppError) throw new ConfigError([err.message]);
        throw err;
      }
    };
    // The first start creates the admin before anyone can reach the login.
    const firstStart = !adminExists(database.sqlite);
    if (firstStart) await ensureAdmin();

    // Signals left unfinished by the last run are queued (or expired) before the API can accept a
    // new one, so they keep their place ahead of it; /health/ready is false until then.
    services.signalIntake.ensureRecovered();
    await reconcileAfterRestore(database.path, services);
    const deps = createAppDeps(services);
    gate.open({ main: createApp(deps), public: publicServer ? createPublicApp(deps) : undefined });

    // On later starts after the apps are up (docs/decisions.md "Performance"): checking
    // ADMIN_PASSWORD is an argon2id verification, slow by design; /health/live answers meanwhile.
    // A configuration problem still stops the start (the listeners are closed below).
    if (!firstStart) await ensureAdmin();

    await services.start();
    announceLiveTrading(config, services);
    const port = main.port ?? config.PORT;
    log.info("listening", {
      host: config.HOST,
      port,
      // Where to point a browser: a wildcard address is reached through loopback on this machine.
      dashboard: `${browserOrigin(config.HOST, port)}/`,
      ...(publicServer ? { publicPort: publicServer.port } : {}),
      database: database.path,
      version: VERSION,
    });

    const drain: Drain = {
      lock,
      log,
      servers,
      inflight,
      services,
      database,
      timeoutMs: opts.shutdownTimeoutMs ?? SHUTDOWN_TIMEOUT_MS,
    };
    let stopping: Promise<void> | undefined;

    return {
      services,
      database,
      url: `http://${config.HOST.includes(":") ? `[${config.HOST}]` : config.HOST}:${port}`,
      port,
      publicPort: publicServer?.port,
      inflightRequests: () => inflight.count,
      stop: (reason = "stop") => (stopping ??= shutdown(drain, reason)),
    };
  } catch (err) {
    gate.fail();
    for (const srv of servers) srv.stop(true);
    await services?.stop({ timeoutMs: 2_000 });
    database.close();
    lock.release();
    throw err;
  }
}

/**
 * With live trading on (issue 34): one line saying so, with what it trades through, and a loud
 * warning when the node is missing or does not answer (GET /health is degraded meanwhile). The
 * RPC URL's host only: a provider's key often sits in its path or query.
 */
function announceLiveTrading(config: Config, services: Services): void {
  if (!config.LIVE_TRADING_ENABLED) return;
  const log = services.logger;
  const rpcHost = config.SOLANA_RPC_URL === "" ? null : new URL(config.SOLANA_RPC_URL).host;
  log.info("LIVE TRADING ENABLED: agents in live mode with live automation trade real funds", {
    wallets: services.liveWallets.size,
    rpcHost,
    swapApi: config.SWAP_API,
    jito: config.JITO_BLOCK_ENGINE_URL !== "",
  });
  const live = services.trading.live;
  if (!live) {
    log.warn("LIVE TRADING WARNING: SOLANA_RPC_URL is empty; no live trade can be sent and /health is degraded");
    return;
  }
  void live.rpc.call("getBlockHeight", [{ commitment: "confirmed" }]).catch((err) =>
    log.warn(
      "LIVE TRADING WARNING: the Solana node does not answer; live trades fail until it does and /health is degraded",
      {
        rpcHost,
        error: err instanceof Error ? err.message : String(err),
      },
    ),
  );
}

interface Drain {
  lock: InstanceLock;
  log: Services["logger"];
  servers: Server<undefined>[];
  inflight: InflightCounter;
  services: Services;
  database: DatabaseHandle;
  timeoutMs: number;
}

/** The graceful stop, each step bounded by what is left of one shutdown timeout. */
async function shutdown(d: Drain, reason: string): Promise<void> {
  const { log, servers, inflight, database } = d;
  const deadline = performance.now() + d.timeoutMs;
  const left = () => Math.max(0, deadline - performance.now());
  log.info("shutting down", { reason, timeoutMs: d.timeoutMs });
  // 1. Stop accepting: new connections are refused from here on.
  const closed = Promise.all(servers.map((srv) => srv.stop(false)));
  // 1b. End the market's reads (prices, market data): a request or a monitor tick waiting on a
  //     provider that hangs ends now instead of at its timeout; quotes and swaps are not touched.
  d.services.market.stopReads();
  // 2. Let the handlers already running finish (a streaming response such as the SSE feed
  //    counts only until its Response is returned; its stream is closed by its shutdown hook).
  if (!(await within(inflight.idle(), left())))
    log.warn("requests still running at the shutdown bound", { count: inflight.count });
  // 3. Workers drain: trades in flight finish, the monitor stops, streams close (hooks).
  await d.services.stop({ timeoutMs: left() });
  // 4. Wait for the connections to end, then cut what is left.
  if (!(await within(closed, left()))) {
    log.warn("closing connections still open at the shutdown bound");
    await Promise.all(servers.map((srv) => srv.stop(true)));
  }
  // 5. Checkpoint the WAL into the database file and close it; the directory is free again.
  database.close();
  d.lock.release();
  log.info("stopped", { reason });
}

/**
 * The first start after `trading-agent restore` (docs/backups.md): the copy may hold live swaps
 * whose outcome it never learned (sent just before the machine was lost). They are asked of the
 * chain before the API opens, so no one closes or trades a position whose swap is in doubt on the
 * copy's word alone; the position monitor's own reconciliation goes on from there. The marker
 * stays until a pass ran: a start without live trading configured, or whose pass failed, asks again
 * next time (the monitor asks every tick meanwhile).
 */
async function reconcileAfterRestore(databasePath: string, services: Services): Promise<void> {
  const marker = readRestoreMarker(databasePath);
  if (!marker) return;
  const log = services.logger;
  const live = services.trading.live;
  if (!live) {
    log.warn("first start after a restore without live trading configured: pending live swaps are not asked yet", {
      restoredFrom: marker.replica,
    });
    return;
  }
  try {
    const report = await live.reconcile();
    log.info("first start after a restore: live swaps reconciled with the chain", {
      restoredFrom: marker.replica,
      ...report,
    });
    clearRestoreMarker(databasePath);
  } catch (err) {
    log.warn("first start after a restore: the live reconciliation failed; the monitor retries each tick", {
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

/** http://host:port for a browser: IPv6 in brackets, a wildcard address as loopback. */
export function browserOrigin(host: string, port: number): string {
  const reachable = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  return `http://${reachable.includes(":") ? `[${reachable}]` : reachable}:${port}`;
}

/** Lets the event loop run the I/O that is waiting (accepted connections, their requests). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Counts request handlers that have not returned their Response yet. */
class InflightCounter {
  count = 0;
  private waiters: Array<() => void> = [];
  /** When the last request arrived (performance.now()). */
  private lastArrivalMs = Number.NEGATIVE_INFINITY;

  track(res: Response | Promise<Response>): Response | Promise<Response> {
    this.lastArrivalMs = performance.now();
    if (!(res instanceof Promise)) return res;
    this.count++;
    return res.finally(() => {
      this.count--;
      if (this.count === 0) for (const w of this.waiters.splice(0)) w();
    });
  }

  /** Whether a request arrived within the last `ms`. */
  receivedWithin(ms: number): boolean {
    return performance.now() - this.lastArrivalMs < ms;
  }

  idle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }
}

/** Resolves true when `p` settles within `ms`, false otherwise (p keeps running). */
async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      p.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
