import { createHash } from "node:crypto";
import { type Clock, isoNow } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { ConflictError, NotFoundError, ValidationError } from "../errors.ts";

// Trading signals (SPEC "Trading signal", PRODUCT.md §4): owned by the user whose API key posted
// them and visible only to that user. Raw prepared SQL: POST /trading-signals is the hottest
// write path of the service.

export interface SignalInput {
  tokenAddress: string;
  symbol?: string | null;
  signalType: string;
  signalStrength: number;
  activationReason?: string | null;
  source?: string | null;
}

export interface Signal {
  id: number;
  createdAt: string;
  updatedAt: string;
  tokenAddress: string;
  symbol: string | null;
  signalType: string;
  activationReason: string | null;
  signalStrength: number;
  source: string | null;
}

export interface SignalRow extends Signal {
  userId: string;
  processingStatus: "pending" | "processing" | "processed" | "expired";
}

export interface SignalFilter {
  tokenAddress?: string;
  signalType?: string;
  startDate?: string;
  endDate?: string;
  limit: number;
  offset: number;
}

const IDEMPOTENCY_TTL_MS = 24 * 3600_000;

const COLUMNS = `id, user_id AS userId, token_address AS tokenAddress, symbol, signal_type AS signalType,
  activation_reason AS activationReason, signal_strength AS signalStrength, source,
  processing_status AS processingStatus, created_at AS createdAt, updated_at AS updatedAt`;

export function toSignal(r: SignalRow): Signal {
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
  constructor(
    private readonly database: DatabaseHandle,
    private readonly clock: Clock,
  ) {}

  private get sqlite() {
    return this.database.sqlite;
  }

  /**
   * Creates a signal, or with an Idempotency-Key returns the one created before for the same key
   * and body (`replayed` true, nothing triggered); the same key with another body is 409. The
   * check and the insert run in one synchronous transaction, so concurrent retries cannot both
   * insert.
   */
  create(
    userId: string,
    apiKeyId: string,
    input: SignalInput,
    idempotencyKey?: string,
  ): { signal: Signal; replayed: boolean } {
    const now = isoNow(this.clock);
    return this.sqlite.transaction(() => {
      const hash = idempotencyKey ? bodyHash(input) : "";
      if (idempotencyKey) {
        const cutoff = new Date(this.clock.now() - IDEMPOTENCY_TTL_MS).toISOString();
        this.sqlite
          .query("DELETE FROM signal_idempotency_keys WHERE api_key_id = ? AND idempotency_key = ? AND created_at < ?")
          .run(apiKeyId, idempotencyKey, cutoff);
        const prior = this.sqlite
          .query<{ body_hash: string; signal_id: number }, [string, string]>(
            "SELECT body_hash, signal_id FROM signal_idempotency_keys WHERE api_key_id = ? AND idempotency_key = ?",
          )
          .get(apiKeyId, idempotencyKey);
        if (prior) {
          if (prior.body_hash !== hash)
            throw new ConflictError("Idempotency-Key was already used with a different request body");
          const existing = this.findRow(userId, prior.signal_id);
          if (existing) return { signal: toSignal(existing), replayed: true };
          // The original signal was deleted since: treat the key as fresh.
          this.sqlite
            .query("DELETE FROM signal_idempotency_keys WHERE api_key_id = ? AND idempotency_key = ?")
            .run(apiKeyId, idempotencyKey);
        }
      }
      const row = this.sqlite
        .query<
          SignalRow,
          [string, string, string, string | null, string, string | null, number, string | null, string, string]
        >(
          `INSERT INTO trading_signals (user_id, api_key_id, token_address, symbol, signal_type, activation_reason,
             signal_strength, source, processing_status, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?) RETURNING ${COLUMNS}`,
        )
        .get(
          userId,
          apiKeyId,
          input.tokenAddress,
          input.symbol ?? null,
          input.signalType,
          input.activationReason ?? null,
          input.signalStrength,
          input.source ?? null,
          now,
          now,
        ) as SignalRow;
      if (idempotencyKey) {
        this.sqlite
          .query(
            "INSERT INTO signal_idempotency_keys (api_key_id, idempotency_key, body_hash, signal_id, created_at) VALUES (?, ?, ?, ?, ?)",
          )
          .run(apiKeyId, idempotencyKey, hash, row.id, now);
      }
      return { signal: toSignal(row), replayed: false };
    })();
  }

  findRow(userId: string, id: number): SignalRow | null {
    return this.sqlite
      .query<SignalRow, [number, string]>(`SELECT ${COLUMNS} FROM trading_signals WHERE id = ? AND user_id = ?`)
      .get(id, userId);
  }

  /** For the worker: the signal whatever its owner. */
  byId(id: number): SignalRow | null {
    return this.sqlite.query<SignalRow, [number]>(`SELECT ${COLUMNS} FROM trading_signals WHERE id = ?`).get(id);
  }

  get(userId: string, id: number): Signal {
    const row = this.findRow(userId, id);
    if (!row) throw new NotFoundError("Signal not found");
    return toSignal(row);
  }

  private where(
    userId: string,
    f: Omit<SignalFilter, "limit" | "offset">,
  ): { sql: string; params: Array<string | number> } {
    const clauses = ["user_id = ?"];
    const params: Array<string | number> = [userId];
    if (f.tokenAddress) {
      clauses.push("token_address = ?");
      params.push(f.tokenAddress);
    }
    if (f.signalType) {
      clauses.push("signal_type = ?");
      params.push(f.signalType);
    }
    if (f.startDate) {
      clauses.push("created_at >= ?");
      params.push(f.startDate);
    }
    if (f.endDate) {
      clauses.push("created_at <= ?");
      params.push(f.endDate);
    }
    return { sql: clauses.join(" AND "), params };
  }

  list(userId: string, f: SignalFilter): Signal[] {
    if (f.startDate && f.endDate && f.startDate > f.endDate)
      throw new ValidationError("startDate must not be after endDate");
    const w = this.where(userId, f);
    return this.sqlite
      .query<SignalRow, Array<string | number>>(
        `SELECT ${COLUMNS} FROM trading_signals WHERE ${w.sql} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
      )
      .all(...w.params, f.limit, f.offset)
      .map(toSignal);
  }

  /**
   * Rows for the CSV export, newest first, read lazily so a large export stays flat in memory.
   * Pages are cut at the last row's (created_at, id) (keyset), not by OFFSET: each page seeks the
   * (user_id, created_at) index instead of skipping every row before it, and a signal posted while
   * the export is read cannot shift a row into the next page twice.
   */
  *iterate(userId: string, f: Omit<SignalFilter, "limit" | "offset">, pageSize = 1000): Generator<Signal> {
    const w = this.where(userId, f);
    const first = this.sqlite.query<SignalRow, Array<string | number>>(
      `SELECT ${COLUMNS} FROM trading_signals WHERE ${w.sql} ORDER BY created_at DESC, id DESC LIMIT ?`,
    );
    // created_at <= ? bounds the index range; the OR picks the rows after the cursor within it.
    const next = this.sqlite.query<SignalRow, Array<string | number>>(
      `SELECT ${COLUMNS} FROM trading_signals WHERE ${w.sql} AND created_at <= ? AND (created_at < ? OR id < ?)
       ORDER BY created_at DESC, id DESC LIMIT ?`,
    );
    let page = first.all(...w.params, pageSize);
    for (;;) {
      for (const r of page) yield toSignal(r);
      if (page.length < pageSize) return;
      const last = page[page.length - 1]!;
      page = next.all(...w.params, last.createdAt, last.createdAt, last.id, pageSize);
    }
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
    const now = isoNow(this.clock);
    const updated = this.sqlite
      .query<SignalRow, Array<string | number | null>>(
        `UPDATE trading_signals SET token_address = ?, symbol = ?, signal_type = ?, signal_strength = ?,
           activation_reason = ?, source = ?, updated_at = ? WHERE id = ? AND user_id = ? RETURNING ${COLUMNS}`,
      )
      .get(
        next.tokenAddress,
        next.symbol,
        next.signalType,
        next.signalStrength,
        next.activationReason,
        next.source,
        now,
        id,
        userId,
      );
    return toSignal(updated as SignalRow);
  }

  delete(userId: string, id: number): void {
    const res = this.sqlite.query("DELETE FROM trading_signals WHERE id = ? AND user_id = ?").run(id, userId);
    if (res.changes === 0) throw new NotFoundError("Signal not found");
  }

  deleteAll(userId: string): number {
    return this.sqlite.query("DELETE FROM trading_signals WHERE user_id = ?").run(userId).changes;
  }

  markStatus(id: number, status: SignalRow["processingStatus"]): void {
    const now = isoNow(this.clock);
    this.sqlite
      .query(
        "UPDATE trading_signals SET processing_status = ?, processed_at = CASE WHEN ? IN ('processed','expired') THEN ? ELSE processed_at END WHERE id = ?",
      )
      .run(status, status, now, id);
  }

  /**
   * Start-up recovery (PRODUCT.md §4): unfinished signals younger than maxAgeSeconds are
   * returned for processing (oldest first); older ones are marked expired, never traded late.
   */
  recoverUnfinished(maxAgeSeconds: number): { resume: number[]; expired: number[] } {
    const cutoff = new Date(this.clock.now() - maxAgeSeconds * 1000).toISOString();
    const rows = this.sqlite
      .query<{ id: number; created_at: string }, []>(
        "SELECT id, created_at FROM trading_signals WHERE processing_status IN ('pending','processing') ORDER BY id",
      )
      .all();
    const resume: number[] = [];
    const expired: number[] = [];
    for (const r of rows) (r.created_at >= cutoff ? resume : expired).push(r.id);
    for (const id of expired) this.markStatus(id, "expired");
    return { resume, expired };
  }
}
