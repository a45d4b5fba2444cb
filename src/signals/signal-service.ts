import { createHash } from "node:crypto";
import { type Clock, isoNow } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import {
  type DecidableSignal,
  type SignalRecord,
  SignalRepository,
  type SignalStatus,
} from "../db/repositories/signals.ts";
import { ConflictError, NotFoundError, ValidationError } from "../errors.ts";
import type { SignalCreatedEvent } from "../events/bus.ts";
import { type SignalProcessing, signalProcessing } from "./signal-decisions.ts";

// Trading signals (SPEC "Trading signal", PRODUCT.md §4): owned by the user whose API key posted
// them and visible only to that user. Storage: src/db/repositories/signals.ts.

export interface SignalInput {
  tokenAddress: string;
  symbol?: string | null;
  signalType: string;
  signalStrength: number;
  activationReason?: string | null;
  source?: string | null;
}

/** A signal as the API shows it (the same shape the signal.created event carries). */
export type Signal = SignalCreatedEvent["signal"];

export interface SignalFilter {
  tokenAddress?: string;
  symbol?: string;
  signalType?: string;
  startDate?: string;
  endDate?: string;
  limit: number;
  offset: number;
}

/** How long an Idempotency-Key is remembered (PRODUCT.md §4); the manual trades' keys too. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
/** Same key, other body: the 409's text (POST /trading-signals and the manual trades). */
export const KEY_REUSED_MESSAGE = "Idempotency-Key was already used with a different request body";

/** The API fields of a stored signal (or of a row that carries more). */
export function toSignal(r: Signal): Signal {
  return {
    id: r.id,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    tokenAddress: r.tokenAddress,
    symbol: r.symbol,
    signalType: r.signalType,
    activationReason: r.activationReason,
    signalStrength: r.signalStrength,
    source: r.source,
  };
}

/** Canonical JSON of the accepted fields, hashed: the same body means the same request. */
function bodyHash(input: SignalInput): string {
  const canonical = JSON.stringify([
    input.tokenAddress,
    input.symbol ?? null,
    input.signalType,
    input.signalStrength,
    input.activationReason ?? null,
    input.source ?? null,
  ]);
  return createHash("sha256").update(canonical).digest("hex");
}

export class SignalService {
  private readonly rows: SignalRepository;

  constructor(
    private readonly database: DatabaseHandle,
    private readonly clock: Clock,
  ) {
    this.rows = new SignalRepository(database.sqlite);
  }

  /**
   * Creates a signal, or with an Idempotency-Key returns the one created before for the same key
   * and body (`replayed` true, nothing triggered); the same key with another body is 409. The
   * check and the insert run in one synchronous transaction, so concurrent retries cannot both
   * insert. `status` "processed" stores a signal nothing can act on as already processed.
   */
  create(
    userId: string,
    apiKeyId: string | null,
    input: SignalInput,
    idempotencyKey?: string,
    status: "pending" | "processed" = "pending",
  ): { signal: Signal; replayed: boolean } {
    const now = isoNow(this.clock);
    return this.rows.atomically(() => {
      const hash = idempotencyKey ? bodyHash(input) : "";
      if (idempotencyKey && apiKeyId) {
        const cutoff = new Date(this.clock.now() - IDEMPOTENCY_TTL_MS).toISOString();
        this.rows.forgetIdempotencyKey(apiKeyId, idempotencyKey, cutoff);
        const prior = this.rows.idempotencyKey(apiKeyId, idempotencyKey);
        if (prior) {
          if (prior.bodyHash !== hash) throw new ConflictError(KEY_REUSED_MESSAGE);
          const existing = this.findRow(userId, prior.signalId);
          if (existing) return { signal: toSignal(existing), replayed: true };
          // The original signal was deleted since: treat the key as fresh.
          this.rows.forgetIdempotencyKey(apiKeyId, idempotencyKey);
        }
      }
      const row = this.rows.insert(userId, apiKeyId, fields(input), now, status);
      if (idempotencyKey && apiKeyId) this.rows.saveIdempotencyKey(apiKeyId, idempotencyKey, hash, row.id, now);
      return { signal: toSignal(row), replayed: false };
    });
  }

  findRow(userId: string, id: number): SignalRecord | null {
    return this.rows.owned(userId, id);
  }

  /** For the worker: the signal whatever its owner. */
  byId(id: number): DecidableSignal | null {
    return this.rows.byId(id);
  }

  byIds(ids: readonly number[]): Map<number, DecidableSignal> {
    return this.rows.byIds(ids);
  }

  /** Who sent the signal that opened a position; null when unknown (an exit signal's source rule). */
  originOfPosition(positionId: string) {
    return this.rows.originOfPosition(positionId);
  }

  get(userId: string, id: number): Signal {
    const row = this.findRow(userId, id);
    if (!row) throw new NotFoundError("Signal not found");
    return toSignal(row);
  }

  /** The signal with what each of the user's agents made of it (docs/decisions.md "Signal decisions"). */
  getWithProcessing(userId: string, id: number): Signal & { processing: SignalProcessing } {
    const row = this.findRow(userId, id);
    if (!row) throw new NotFoundError("Signal not found");
    return { ...toSignal(row), processing: signalProcessing(this.database, [row]).get(row.id)! };
  }

  list(userId: string, f: SignalFilter): Signal[] {
    return this.records(userId, f).map(toSignal);
  }

  /** The list with each signal's processing (`include=processing`). */
  listWithProcessing(userId: string, f: SignalFilter): Array<Signal & { processing: SignalProcessing }> {
    const rows = this.records(userId, f);
    const processing = signalProcessing(this.database, rows);
    return rows.map((r) => ({ ...toSignal(r), processing: processing.get(r.id)! }));
  }

  private records(userId: string, f: SignalFilter): SignalRecord[] {
    if (f.startDate && f.endDate && f.startDate > f.endDate)
      throw new ValidationError("startDate must not be after endDate");
    return this.rows.list(userId, f, f.limit, f.offset);
  }

  /** Rows for the CSV export, newest first, read lazily (keyset pages, see the repository). */
  *iterate(userId: string, f: Omit<SignalFilter, "limit" | "offset">, pageSize = 1000): Generator<Signal> {
    for (const r of this.rows.iterate(userId, f, pageSize)) yield toSignal(r);
  }

  update(userId: string, id: number, patch: Partial<SignalInput>): Signal {
    const row = this.findRow(userId, id);
    if (!row) throw new NotFoundError("Signal not found");
    const next = {
      tokenAddress: patch.tokenAddress ?? row.tokenAddress,
      symbol: patch.symbol !== undefined ? patch.symbol : row.symbol,
      signalType: patch.signalType ?? row.signalType,
      signalStrength: patch.signalStrength ?? row.signalStrength,
      activationReason: patch.activationReason !== undefined ? patch.activationReason : row.activationReason,
      source: patch.source !== undefined ? patch.source : row.source,
    };
    const updated = this.rows.update(userId, id, next, isoNow(this.clock));
    if (!updated) throw new NotFoundError("Signal not found");
    return toSignal(updated);
  }

  delete(userId: string, id: number): void {
    if (!this.rows.deleteOwned(userId, id)) throw new NotFoundError("Signal not found");
  }

  deleteAll(userId: string): number {
    return this.rows.deleteAllOf(userId);
  }

  markStatus(id: number, status: SignalStatus): void {
    this.rows.setStatus(id, status, isoNow(this.clock));
  }

  /**
   * Start-up recovery (PRODUCT.md §4): every unfinished signal, oldest first, to be decided. None
   * is dropped for age (issue 35, docs/decisions/under-load.md): a signal that got a 201 is
   * decided; a buy that is too old by then opens nothing and says `stale` per agent, and an exit
   * signal still closes.
   */
  recoverUnfinished(): Array<{ id: number; createdAt: string }> {
    return this.rows.unfinished();
  }
}

/** The stored columns of an input (absent optional fields stored as null). */
const fields = (input: SignalInput) => ({
  tokenAddress: input.tokenAddress,
  symbol: input.symbol ?? null,
  signalType: input.signalType,
  activationReason: input.activationReason ?? null,
  signalStrength: input.signalStrength,
  source: input.source ?? null,
});
