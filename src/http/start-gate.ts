import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Server } from "bun";
import { isoNow } from "../clock.ts";
import type { AppEnv } from "./app-env.ts";
import { edgeHeaders, requestIdFor } from "./middleware/edge.ts";

// The listeners' fetch while `serve` loads the domain and the routes after listening
// (src/server.ts, docs/decisions.md "Performance", "Start-up and memory"). Until the
// apps exist, GET /api/v1/health/live answers with the route's body and the headers every
// response carries (the process is up: what liveness means); every other request waits for the
// apps and is answered by them, so nothing is answered by half a service. If the start fails,
// the waiting requests get 503 while the listeners close.

export type AppName = "main" | "public";
export type Apps = Record<AppName, OpenAPIHono<AppEnv> | undefined>;

/** The listeners' fetch until and after the apps exist (see the top of this file). */
export class StartGate {
  private apps: Apps | undefined;
  private readonly ready: Promise<Apps | undefined>;
  private settle: (apps: Apps | undefined) => void = () => {};

  constructor(private readonly clock: { now(): number }) {
    this.ready = new Promise((resolve) => (this.settle = resolve));
  }

  open(apps: Apps): void {
    this.apps = apps;
    this.settle(apps);
  }

  /** The start failed: waiting requests get 503 (the listeners are being closed). */
  fail(): void {
    this.settle(undefined);
  }

  fetch(name: AppName, req: Request, server: Server<undefined>): Response | Promise<Response> {
    const app = this.apps?.[name];
    if (app) return app.fetch(req, { server });
    if (name === "main" && req.method === "GET" && new URL(req.url).pathname === LIVE_PATH)
      return liveAnswer(req, this.clock);
    return this.ready.then((apps) => apps?.[name]?.fetch(req, { server }) ?? unavailable());
  }
}

const LIVE_PATH = "/api/v1/health/live";

/** GET /api/v1/health/live's body with the headers every response carries (middleware/edge.ts). */
function liveAnswer(req: Request, clock: { now(): number }): Response {
  return new Response(JSON.stringify({ live: true, timestamp: isoNow(clock) }), {
    headers: edgeHeaders(requestIdFor(req.headers.get("x-request-id")), "application/json"),
  });
}

function unavailable(): Response {
  return Response.json({ success: false, error: "Service unavailable: start-up failed" }, { status: 503 });
}
