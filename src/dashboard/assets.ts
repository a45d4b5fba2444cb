import type { DashboardBundle } from "./bundle-ui.ts";

// Where the dashboard's files come from. The compiled binary carries them as a string that
// build.ts defines at compile time (TRADING_AGENT_DASHBOARD_BUNDLE, the JSON of a
// DashboardBundle); `bun src/main.ts` (npm start, tests) bundles src/dashboard/ui on the first
// request instead, so nothing generated has to be committed or built before start. Either way
// every byte is served by this process: no CDN, works offline.

export interface ServedFile {
  contentType: string;
  body: Uint8Array<ArrayBuffer>;
  /** gzip of body, sent to clients that accept it (the JavaScript budget is for compressed bytes). */
  gzip: Uint8Array<ArrayBuffer>;
  etag: string;
}

export interface DashboardAssets {
  html: ServedFile;
  files: Map<string, ServedFile>;
}

const encoder = new TextEncoder();

function served(contentType: string, text: string): ServedFile {
  const body = encoder.encode(text) as Uint8Array<ArrayBuffer>;
  return {
    contentType,
    body,
    gzip: Bun.gzipSync(body) as Uint8Array<ArrayBuffer>,
    etag: `"${Bun.hash(body).toString(16)}"`,
  };
}

function toAssets(bundle: DashboardBundle): DashboardAssets {
  return {
    html: served("text/html; charset=utf-8", bundle.html),
    files: new Map(bundle.files.map((f) => [f.path, served(f.contentType, f.body)])),
  };
}

let loading: Promise<DashboardAssets> | null = null;

/** The dashboard's files, built once per process (memoized; a failed build is retried next time). */
export function loadDashboardAssets(): Promise<DashboardAssets> {
  if (!loading) {
    loading = (async () => {
      const embedded = process.env.TRADING_AGENT_DASHBOARD_BUNDLE;
      if (embedded) return toAssets(JSON.parse(embedded) as DashboardBundle);
      const { bundleDashboard } = await import("./bundle-ui.ts");
      return toAssets(await bundleDashboard());
    })();
    loading.catch(() => {
      loading = null;
    });
  }
  return loading;
}
