import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";

// Hot read answers kept as bytes while the database has not changed (docs/decisions.md
// "Performance"). A GET whose answer is a pure function of (caller, URL, database
// rows) — no clock, no outside source — may be answered again from the bytes it produced, as long
// as the database's change stamp (src/db/change-stamp.ts) is the one read before the handler
// ran. Any write anywhere (this process or another) changes the stamp, so a stale answer is never
// served; under constant writes it simply misses. Runs AFTER the credential middleware: the
// caller is authenticated (blacklist included) on every request, and the key holds their user id.

interface Entry {
  stamp: string;
  body: string;
  contentType: string;
}

export interface ResponseCacheOptions {
  stamp: () => string;
  /** Entries kept (a Map in insertion order; the oldest goes first). */
  max?: number;
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private readonly max: number;
  hits = 0;
  misses = 0;

  constructor(private readonly opts: ResponseCacheOptions) {
    this.max = opts.max ?? 1_000;
  }

  get size(): number {
    return this.entries.size;
  }

  /** For GET routes whose 200 answer depends only on the caller, the URL and the database. */
  middleware(): MiddlewareHandler<AppEnv> {
    return async (c, next) => {
      if (c.req.method !== "GET") return next();
      const key = keyOf(c.get("auth"), c.req.url);
      const stamp = this.opts.stamp();
      const hit = this.entries.get(key);
      if (hit && hit.stamp === stamp) {
        this.hits++;
        return c.body(hit.body, 200, { "Content-Type": hit.contentType });
      }
      this.misses++;
      await next();
      if (c.res.status !== 200) return;
      const contentType = c.res.headers.get("Content-Type") ?? "";
      if (!contentType.startsWith("application/json")) return;
      // Read under `stamp`: the handler is synchronous SQL, so nothing wrote in between unless
      // the stamp moved, which the next request sees.
      const body = await c.res.clone().text();
      if (this.opts.stamp() !== stamp) return;
      if (!hit && this.entries.size >= this.max) {
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
      this.entries.set(key, { stamp, body, contentType });
    };
  }
}

const keyOf = (auth: { kind: string; apiKeyId?: string; userId: string }, url: string) =>
  `${auth.kind}:${auth.apiKeyId ?? ""}:${auth.userId} ${url}`;
