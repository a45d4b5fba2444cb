import { HOOKS_PATH } from "../signals/signal-hooks.ts";

// A signal hook's URL is its credential (docs/decisions/signal-hooks.md): wherever the service
// writes a request's path (the request log, the unhandled-error line, a 404 or 405 body) the
// token is cut first.

const HOOK_PREFIX = `${HOOKS_PATH}/`;

/** The path with a hook token replaced by `…`; any other path as it is. */
export function redactPath(path: string): string {
  if (!path.startsWith(HOOK_PREFIX)) return path;
  const rest = path.slice(HOOK_PREFIX.length);
  const slash = rest.indexOf("/");
  return `${HOOK_PREFIX}…${slash === -1 ? "" : rest.slice(slash)}`;
}
