import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
// Swagger UI ships as a prebuilt bundle; imported as text so `bun build --compile` embeds it and
// the reference page needs no CDN (no request leaves the host).
import swaggerCss from "swagger-ui-dist/swagger-ui.css" with { type: "text" };
import swaggerJs from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "text" };
import { VERSION } from "../../../version.ts";
import type { AppEnv } from "../../app-env.ts";
import { finishOpenApiDocument } from "../../openapi-operations.ts";

const OPENAPI_PATH = "/api/v1/openapi.json";
const DOCS_PATH = "/api/v1/docs";

// Swagger UI sets inline style attributes, so styles allow 'unsafe-inline'; scripts never do.
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Trading Agent API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(OPENAPI_PATH)}, dom_id: "#swagger-ui", deepLinking: true, validatorUrl: "none" });\n`;

/**
 * The OpenAPI document (generated from the validating zod schemas, finished with summaries,
 * operationIds and tags) and the API reference page that renders it, both from the binary.
 */
export function mountApiDocs(app: OpenAPIHono<AppEnv>): void {
  let document: unknown = null;
  app.get(OPENAPI_PATH, (c) => {
    document ??= finishOpenApiDocument(
      app.getOpenAPI31Document({
        openapi: "3.1.0",
        info: {
          title: "Trading Agent Service",
          version: VERSION,
          description: "Main API (/api/v1) and public API (/v1). Reference page: /api/v1/docs",
        },
      }),
    );
    return c.json(document);
  });
  const asset = (body: string, type: string) => (c: Context) => {
    c.header("Content-Type", type);
    c.header("Cache-Control", "public, max-age=3600");
    c.header("Content-Security-Policy", DOCS_CSP);
    return c.body(body);
  };
  app.get(DOCS_PATH, asset(PAGE, "text/html; charset=utf-8"));
  app.get(`${DOCS_PATH}/swagger-ui.css`, asset(swaggerCss, "text/css; charset=utf-8"));
  app.get(`${DOCS_PATH}/swagger-ui-bundle.js`, asset(swaggerJs, "text/javascript; charset=utf-8"));
  app.get(`${DOCS_PATH}/init.js`, asset(INIT, "text/javascript; charset=utf-8"));
}
