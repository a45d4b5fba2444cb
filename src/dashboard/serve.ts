import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppDeps, AppEnv } from "../http/app-env.ts";
import { auth, createRouter, operation } from "../http/operation.ts";
import { errorResponses } from "../http/schemas.ts";
import { type DashboardAssets, loadDashboardAssets, type ServedFile } from "./assets.ts";

// GET / (the page) and GET /dashboard/<hashed file> on the main port only (app.ts
// mounts this in createApp, never in createPublicApp). The page talks to /api/v1 on the same
// origin, so the policy below allows nothing but this origin: no inline script or style, no
// third-party host, no framing.

export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const page = operation({
  method: "get",
  path: "/",
  tags: ["dashboard"],
  summary: "The web dashboard (HTML page)",
  auth: auth.none,
  responses: { 200: { description: "The dashboard page", content: { "text/html": { schema: z.string() } } } },
});

const asset = operation({
  method: "get",
  path: "/dashboard/{file}",
  tags: ["dashboard"],
  summary: "A script or stylesheet of the dashboard (content-hashed name)",
  auth: auth.none,
  request: { params: z.object({ file: z.string().openapi({ example: "app-0123456789ab.js" }) }) },
  responses: {
    200: { description: "The file", content: { "text/javascript": { schema: z.string() } } },
    ...errorResponses(404),
  },
});

export function dashboardRoutes(s: AppDeps, load: () => Promise<DashboardAssets> = loadDashboardAssets) {
  const router = createRouter(s);
  router.openapi(page, async (c) => send(c, (await load()).html, "no-cache") as never);
  router.openapi(asset, async (c) => {
    const file = (await load()).files.get(c.req.path);
    if (!file) return c.notFound() as never;
    // Names carry a content hash: a new build is a new name, so the old one can be kept forever.
    return send(c, file, "public, max-age=31536000, immutable") as never;
  });
  return router;
}

function send(c: Context<AppEnv>, file: ServedFile, cacheControl: string): Response {
  const headers: Record<string, string> = {
    "Content-Type": file.contentType,
    "Content-Security-Policy": DASHBOARD_CSP,
    "Cache-Control": cacheControl,
    ETag: file.etag,
    Vary: "Accept-Encoding",
  };
  if (c.req.header("if-none-match") === file.etag) return c.body(null, 304, headers);
  const gzip = /\bgzip\b/.test(c.req.header("accept-encoding") ?? "");
  if (gzip) headers["Content-Encoding"] = "gzip";
  return c.body(gzip ? file.gzip : file.body, 200, headers);
}
