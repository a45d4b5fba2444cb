// One error hierarchy for the whole service; `toErrorBody` is the single place where an error
// becomes the spec's error body (SPEC.md "Errors"). Domain code throws these; handlers never
// build error JSON by hand.

export const ErrorCode = {
  AUTHENTICATION_ERROR: "AUTHENTICATION_ERROR",
  AUTHORIZATION_ERROR: "AUTHORIZATION_ERROR",
  VALIDATION_ERROR: "VALIDATION_ERROR",
  NOT_FOUND: "NOT_FOUND",
  METHOD_NOT_ALLOWED: "METHOD_NOT_ALLOWED",
  CONFLICT: "CONFLICT",
  TRADING_ERROR: "TRADING_ERROR",
  EXTERNAL_SERVICE_ERROR: "EXTERNAL_SERVICE_ERROR",
  ACCOUNT_LOCKED: "ACCOUNT_LOCKED",
  RATE_LIMITED: "RATE_LIMITED",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  SERVICE_NOT_CONFIGURED: "SERVICE_NOT_CONFIGURED",
  SERVICE_UNAVAILABLE: "SERVICE_UNAVAILABLE",
  INTERNAL_ERROR: "INTERNAL_ERROR",
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const statusOf: Record<ErrorCode, number> = {
  AUTHENTICATION_ERROR: 401,
  AUTHORIZATION_ERROR: 403,
  VALIDATION_ERROR: 400,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  TRADING_ERROR: 400,
  EXTERNAL_SERVICE_ERROR: 502,
  ACCOUNT_LOCKED: 423,
  RATE_LIMITED: 429,
  PAYLOAD_TOO_LARGE: 413,
  SERVICE_NOT_CONFIGURED: 503,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
};

export type ErrorDetails = Record<string, unknown> | unknown[];

export class AppError extends Error {
  readonly status: number;
  /** Extra top-level body fields the spec puts beside `error` (lockedUntil, retryAfter). */
  readonly extra: Record<string, unknown>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
    extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
    this.status = statusOf[code];
    this.extra = extra;
  }
}

export class ValidationError extends AppError {
  constructor(message: string, details?: ErrorDetails) {
    super(ErrorCode.VALIDATION_ERROR, message, details);
  }
}
export class AuthenticationError extends AppError {
  constructor(message: string) {
    super(ErrorCode.AUTHENTICATION_ERROR, message);
  }
}
export class AuthorizationError extends AppError {
  constructor(message: string) {
    super(ErrorCode.AUTHORIZATION_ERROR, message);
  }
}
export class NotFoundError extends AppError {
  constructor(message: string) {
    super(ErrorCode.NOT_FOUND, message);
  }
}
/** A known path asked with a method it does not take (the answer carries `Allow`). */
export class MethodNotAllowedError extends AppError {
  constructor(message: string) {
    super(ErrorCode.METHOD_NOT_ALLOWED, message);
  }
}
export class ConflictError extends AppError {
  constructor(message: string, details?: ErrorDetails) {
    super(ErrorCode.CONFLICT, message, details);
  }
}
export class TradingError extends AppError {
  constructor(message: string, details?: ErrorDetails) {
    super(ErrorCode.TRADING_ERROR, message, details);
  }
}
// The trading loop's error taxonomy (freqtrade's TemporaryError / OperationalException):
// - TemporaryError: the world said no for now (a provider is down, a quote moved, a swap failed
//   or is still unconfirmed). Nothing changed; the monitor's next tick retries.
// - OperationalError: the service itself is in a state it cannot trade from safely (a settlement
//   handed a fill it cannot record, a position gone under a confirmed trade). The position
//   monitor stops its loop and logs an error; a human looks.
// Any other error of a trade is logged as a failed trade and retried next tick, like a temporary one.

/** Retry next tick: nothing changed. */
class TemporaryError extends AppError {}

/** Stop: the service cannot go on trading safely; the message says what is wrong. */
export class OperationalError extends AppError {
  constructor(message: string, details?: ErrorDetails) {
    super(ErrorCode.INTERNAL_ERROR, message, details);
  }
}

/** A provider (price feed, swap aggregator, RPC...) failed; the message names it. */
export class ExternalServiceError extends TemporaryError {
  constructor(
    readonly service: string,
    message: string,
    readonly statusCode?: number,
  ) {
    super(ErrorCode.EXTERNAL_SERVICE_ERROR, message, {
      service,
      ...(statusCode !== undefined ? { statusCode } : {}),
    });
  }
}
/** A live sale or close whose outcome is not known yet (502: the chain has not answered). */
export class LiveTradePendingError extends TemporaryError {
  constructor(readonly signature: string) {
    super(
      ErrorCode.EXTERNAL_SERVICE_ERROR,
      "The swap transaction was sent but is not confirmed yet; it will be reconciled from the chain",
      { service: "solanaRpc", signature, status: "pending" },
    );
  }
}

export class AccountLockedError extends AppError {
  constructor(lockedUntil: Date) {
    super(ErrorCode.ACCOUNT_LOCKED, "Account is locked due to too many failed login attempts", undefined, {
      lockedUntil: lockedUntil.toISOString(),
    });
  }
}
export class RateLimitError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super(ErrorCode.RATE_LIMITED, "Too many requests. Please try again later.", undefined, {
      retryAfter: retryAfterSeconds,
    });
  }
}
/**
 * 503 with Retry-After: the service is up but behind, and asks the client to come back rather
 * than take work it cannot do in time (signal backpressure, docs/decisions/under-load.md).
 */
export class ServiceBusyError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(ErrorCode.SERVICE_UNAVAILABLE, message, undefined, { retryAfter: retryAfterSeconds });
  }
}
export class PayloadTooLargeError extends AppError {
  constructor(limitBytes: number) {
    super(ErrorCode.PAYLOAD_TOO_LARGE, `Request body exceeds the ${limitBytes} byte limit`);
  }
}
export class ServiceNotConfiguredError extends AppError {
  constructor(message: string) {
    super(ErrorCode.SERVICE_NOT_CONFIGURED, message);
  }
}

/**
 * bun:sqlite's errors (constraint, busy, I/O, ...). Their text names tables and columns
 * ("UNIQUE constraint failed: live_trades.signature"), so it never reaches a response body, an
 * event or a stored reason: publicErrorMessage and toErrorBody replace it.
 */
export function isStorageError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  return err.name === "SQLiteError" || (typeof code === "string" && code.startsWith("SQLITE_"));
}

export const STORAGE_ERROR_MESSAGE = "The database could not record this operation";

/** The text a user may see for anything thrown: an AppError's message; never storage text. */
export function publicErrorMessage(err: unknown): string {
  if (err instanceof AppError) return err.message;
  if (isStorageError(err)) return STORAGE_ERROR_MESSAGE;
  return err instanceof Error ? err.message : String(err);
}

export interface ErrorBody {
  success: false;
  error: string;
  code?: string;
  details?: ErrorDetails;
  stack?: string;
  [extra: string]: unknown;
}

/** The one mapping from anything thrown to (status, spec error body). */
export function toErrorBody(err: unknown, opts: { development: boolean }): { status: number; body: ErrorBody } {
  if (err instanceof AppError) {
    const body: ErrorBody = { success: false, error: err.message, code: err.code, ...err.extra };
    if (err.details !== undefined) body.details = err.details;
    if (opts.development && err.stack) body.stack = err.stack;
    return { status: err.status, body };
  }
  // Anything else, storage errors included, is described by nothing but this.
  const body: ErrorBody = { success: false, error: "Internal server error", code: ErrorCode.INTERNAL_ERROR };
  if (opts.development && err instanceof Error && err.stack) body.stack = err.stack;
  return { status: 500, body };
}
