import { join } from "node:path";

// Bundles the dashboard's browser code (src/dashboard/ui/**) with Bun.build: one minified ES
// module, one stylesheet and the HTML page that loads them by content-hashed names. Used by
// build.ts (the result is embedded in the compiled binary), by `npm start` (built in-process on
// the first request for `/`, so a clean clone needs no generated files) and by the size test.
// Decisions in docs/decisions.md "Dashboard".

interface DashboardFile {
  /** Path the page requests, e.g. /dashboard/app-1a2b3c4d.js */
  path: string;
  contentType: string;
  body: string;
}

export interface DashboardBundle {
  html: string;
  files: DashboardFile[];
}

const UI_ENTRY = join(import.meta.dir, "ui/main.tsx");

const shortHash = (text: string) => Bun.hash(text).toString(16).padStart(16, "0").slice(0, 12);

export async function bundleDashboard(): Promise<DashboardBundle> {
  const result = await Bun.build({
    entrypoints: [UI_ENTRY],
    target: "browser",
    format: "esm",
    minify: true,
    jsx: { runtime: "automatic", importSource: "preact" },
    define: { "process.env.NODE_ENV": '"production"' },
    throw: false,
  });
  if (!result.success) {
    throw new AggregateError(result.logs, `dashboard bundle failed: ${result.logs.map(String).join("; ")}`);
  }
  let js = "";
  let css = "";
  for (const out of result.outputs) {
    if (out.path.endsWith(".js")) js += await out.text();
    else if (out.path.endsWith(".css")) css += await out.text();
  }
  if (!js) throw new Error("dashboard bundle produced no JavaScript");
  const jsPath = `/dashboard/app-${shortHash(js)}.js`;
  const cssPath = `/dashboard/app-${shortHash(css)}.css`;
  return {
    html: indexHtml(jsPath, cssPath),
    files: [
      { path: jsPath, contentType: "text/javascript; charset=utf-8", body: js },
      { path: cssPath, contentType: "text/css; charset=utf-8", body: css },
    ],
  };
}

/** The page: no inline script or style (the CSP forbids both), dark by default. */
function indexHtml(jsPath: string, cssPath: string): string {
  return `<!doctype html>
<html lang="en" data-theme="dark">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="dark light">
<title>Trading agents</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${cssPath}">
<script type="module" src="${jsPath}"></script>
</head>
<body>
<div id="app"><noscript>The dashboard needs JavaScript.</noscript></div>
</body>
</html>
`;
}
