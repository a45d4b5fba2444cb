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

export function createLogger(opts: LoggerOptions, base: LogContext = {}): Logger {
  const write = opts.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const emit = (level: Exclude<LogLevel, "silent">, msg: string, ctx?: LogContext) => {
    if (rank[level] < rank[opts.level]) return;
    const requestId = requestContext.getStore()?.requestId;
    const record: LogContext = { level, time: new Date().toISOString(), msg, ...base, ...ctx };
    if (requestId && record.requestId === undefined) record.requestId = requestId;
    let line = JSON.stringify(record, redactReplacer);
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

function redactReplacer(key: string, value: unknown): unknown {
  if (key && SECRET_KEYS.test(key) && value !== undefined && value !== null) return "[REDACTED]";
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (typeof value === "bigint") return value.toString();
  return value;
}
