import { AsyncLocalStorage } from "node:async_hooks";

// JSON lines on stdout (PRODUCT.md §1): level, time, msg, then context. The request id travels in
// AsyncLocalStorage so that domain code deep in a request logs it without being handed it.

type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export type LogContext = Record<string, unknown>;

export interface Logger {
  debug(msg: string, ctx?: LogContext): void;
  info(msg: string, ctx?: LogContext): void;
  warn(msg: string, ctx?: LogContext): void;
  error(msg: string, ctx?: LogContext): void;
  child(ctx: LogContext): Logger;
}

export const requestContext = new AsyncLocalStorage<{ requestId: string }>();

// Field names whose values are never written, whatever the caller passes.
const SECRET_KEYS =
  /^(password|newPassword|passwordHash|secret|secretKey|privateKey|token|accessToken|refreshToken|apiKey|key|authorization|jwtSecret)$/i;

export interface LoggerOptions {
  level: LogLevel;
  /** Where lines go; stdout by default. Tests capture lines here. */
  write?: (line: string) => void;
  /** Exact secret strings (wallet keys, JWT secret) scrubbed from every line as a last defence. */
  secrets?: () => readonly string[];
}

let pendingLines: string[] = [];
let flushQueued = false;

/** Writes the lines logged so far (a process that exits writes what is left first). */
function flushStdout(): void {
  flushQueued = false;
  if (pendingLines.length === 0) return;
  const text = `${pendingLines.join("\n")}\n`;
  pendingLines = [];
  process.stdout.write(text);
}

/**
 * A line to stdout, written with the others logged in the same run of the event loop at its end
 * (a microtask, never a timer): the signals one commit answers cost one write to stdout, not one
 * each, and every line is out before the loop waits for anything.
 */
function toStdout(line: string): void {
  pendingLines.push(line);
  if (flushQueued) return;
  flushQueued = true;
  queueMicrotask(flushStdout);
}

process.on("exit", flushStdout);

export function createLogger(opts: LoggerOptions, base: LogContext = {}): Logger {
  const write = opts.write ?? toStdout;
  const emit = (level: Exclude<LogLevel, "silent">, msg: string, ctx?: LogContext) => {
    if (rank[level] < rank[opts.level]) return;
    const requestId = requestContext.getStore()?.requestId;
    const record: LogContext = { level, time: new Date().toISOString(), msg, ...base, ...ctx };
    if (requestId && record.requestId === undefined) record.requestId = requestId;
    let line = plainRecord(record) ? JSON.stringify(record) : JSON.stringify(record, redactReplacer);
    for (const s of opts.secrets?.() ?? [])
      if (s.length >= 8 && line.includes(s)) line = line.split(s).join("[REDACTED]");
    write(line);
  };
  return {
    debug: (m, c) => emit("debug", m, c),
    info: (m, c) => emit("info", m, c),
    warn: (m, c) => emit("warn", m, c),
    error: (m, c) => emit("error", m, c),
    child: (ctx) => createLogger(opts, { ...base, ...ctx }),
  };
}

/**
 * Only strings, numbers and booleans, under names that are not secret: what the replacer would
 * leave as it is, so the line is written without calling it for every field.
 */
function plainRecord(record: LogContext): boolean {
  for (const key in record) {
    const value = record[key];
    if (value === undefined || value === null) continue;
    if (typeof value === "object" || typeof value === "bigint" || SECRET_KEYS.test(key)) return false;
  }
  return true;
}

function redactReplacer(key: string, value: unknown): unknown {
  if (key && SECRET_KEYS.test(key) && value !== undefined && value !== null) return "[REDACTED]";
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (typeof value === "bigint") return value.toString();
  return value;
}
