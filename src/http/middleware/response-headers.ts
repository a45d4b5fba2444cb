import type { Context } from "hono";

/**
 * Sets headers on the finished response in place. Hono's `c.header()` after the handler copies
 * the whole Response for every call (it cannot know whether the headers are mutable), which was
 * the largest single cost of a cached read (docs/decisions.md "Performance (issue 16)"). Headers
 * of a Response made by the app are mutable; one that is not (a proxied fetch() answer) falls
 * back to `c.header()`.
 */
export function setResponseHeaders(c: Context, headers: ReadonlyArray<readonly [string, string]>): void {
  try {
    const h = c.res.headers;
    for (const [name, value] of headers) h.set(name, value);
  } catch {
    for (const [name, value] of headers) c.header(name, value);
  }
}
