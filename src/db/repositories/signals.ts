import type { Database } from "bun:sqlite";
import type { signalIdempotencyKeys, tradingSignals } from "../schema/trading.ts";

// trading_signals and signal_idempotency_keys: the one module that writes them. Raw prepared SQL:
// POST /trading-signals is the hottest write path of the service. (The strategy lab's specific
// reads stay in strategy-lab-signals.ts; its signal import writes through insertImported here.)

type SignalColumns = typeof tradingSignals.$inferSelect;
export type SignalStatus = "pending" | "processing" | "processed" | "expired";

/** A stored signal (without the api key and processedAt the API never shows). */
export type SignalRecord = Omit<SignalColumns, "apiKeyId" | "processedAt" | "processingStatus"> & {
  processingStatus: SignalStatus;
};

/**
 * A signal as the processor decides it: with who sent it (src/trading/rules/signal-source.ts), the
 * key's name read at decision time (a renamed key is matched by its new name).
 */
export type DecidableSignal = SignalRecord & {
  apiKeyId: string | null;
  apiKeyName: string | null;
};

export type NewSignal = Pick<
  SignalColumns,
  "tokenAddress" | "symbol" | "signalType" | "activationReason" | "signalStrength" | "source"
>;

export interface SignalQuery {
  tokenAddress?: string;
  /** The signal's symbol, any case. */
  symbol?: string;
  signalType?: string;
  startDate?: string;
  endDate?: string;
}

export type ImportedSignalRow = NewSignal & Pick<SignalColumns, "createdAt">;

type Param = string | number | null;

const COLUMNS = `id, user_id AS userId, token_address AS tokenAddress, symbol, signal_type AS signalType,
  activation_reason AS activationReason, signal_strength AS signalStrength, source,
  processing_status AS processingStatus, created_at AS createdAt, updated_at AS updatedAt`;

const DECIDABLE_COLUMNS = `${COLUMNS}, api_key_id AS apiKeyId,
  (SELECT k.name FROM api_keys k WHERE k.id = trading_signals.api_key_id) AS apiKeyName`;

function where(userId: string, f: SignalQuery): { sql: string; params: Param[] } {
  const clauses = ["user_id = ?"];
  const params: Param[] = [userId];
  if (f.tokenAddress) {
    clauses.push("token_address = ?");
    params.push(f.tokenAddress);
  }
  if (f.symbol) {
    clauses.push("symbol = ? COLLATE NOCASE");
    params.push(f.symbol);
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

export class SignalRepository {
  constructor(private readonly sqlite: Database) {}

  /**
   * Runs `fn` in one synchronous transaction (idempotency check and insert together), or inside
   * the caller's: a group commit already gives each write its own savepoint.
   */
  atomically<T>(fn: () => T): T {
    return this.sqlite.inTransaction ? fn() : this.sqlite.transaction(fn)();
  }

  /**
   * A new signal, pending processing, or already processed when nothing can act on it. The
   * record is built from what was written and the new rowid: a RETURNING clause would read back
   * values we already hold, at a cost the insert notices (docs/decisions.md "Performance").
   */
  insert(
    userId: string,
    apiKeyId: string | null,
    s: NewSignal,
    now: string,
    status: "pending" | "processed" = "pending",
  ): SignalRecord {
    const r = this.sqlite
      .query<never, Param[]>(
        `INSERT INTO trading_signals (user_id, api_key_id, token_address, symbol, signal_type, activation_reason,
           signal_strength, source, processing_status, processed_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        userId,
        apiKeyId,
        s.tokenAddress,
        s.symbol,
        s.signalType,
        s.activationReason,
        s.signalStrength,
        s.source,
        status,
        status === "processed" ? now : null,
        now,
        now,
      );
    return {
      id: Number(r.lastInsertRowid),
      userId,
      tokenAddress: s.tokenAddress,
      symbol: s.symbol,
      signalType: s.signalType,
      activationReason: s.activationReason,
      signalStrength: s.signalStrength,
      source: s.source,
      processingStatus: status,
      createdAt: now,
      updatedAt: now,
    };
  }

  /**
   * Inserts imported signals (status processed: never queued, never traded) in one transaction.
   * A row equal to a signal the user already has (same createdAt, token, type and source) is
   * skipped, so importing the same file twice, or an export into its own account, adds nothing.
   */
  insertImported(
    userId: string,
    rows: readonly ImportedSignalRow[],
    now: string,
  ): { inserted: Array<Pick<SignalColumns, "id" | "tokenAddress" | "createdAt">>; skipped: number } {
    const exists = this.sqlite.query<{ one: number }, [string, string, string, string, string | null]>(
      `SELECT 1 AS one FROM trading_signals WHERE user_id = ? AND created_at = ? AND token_address = ?
          AND signal_type = ? AND source IS ? LIMIT 1`,
    );
    const ins = this.sqlite.query<{ id: number }, Param[]>(
      `INSERT INTO trading_signals (user_id, api_key_id, token_address, symbol, signal_type, activation_reason,
         signal_strength, source, processing_status, processed_at, created_at, updated_at)
       VALUES (?, NULL, ?, ?, ?, ?, ?, ?, 'processed', ?, ?, ?) RETURNING id`,
    );
    return this.atomically(() => {
      const inserted: Array<Pick<SignalColumns, "id" | "tokenAddress" | "createdAt">> = [];
      let skipped = 0;
      for (const r of rows) {
        if (exists.get(userId, r.createdAt, r.tokenAddress, r.signalType, r.source)) {
          skipped++;
          continue;
        }
        const { id } = ins.get(
          userId,
          r.tokenAddress,
          r.symbol,
          r.signalType,
          r.activationReason,
          r.signalStrength,
          r.source,
          now,
          r.createdAt,
          now,
        )!;
        inserted.push({ id, tokenAddress: r.tokenAddress, createdAt: r.createdAt });
      }
      return { inserted, skipped };
    });
  }

  owned(userId: string, id: number): SignalRecord | null {
    return this.sqlite
      .query<SignalRecord, [number, string]>(`SELECT ${COLUMNS} FROM trading_signals WHERE id = ? AND user_id = ?`)
      .get(id, userId);
  }

  /** For the worker: the signal whatever its owner. */
  byId(id: number): DecidableSignal | null {
    return this.sqlite
      .query<DecidableSignal, [number]>(`SELECT ${DECIDABLE_COLUMNS} FROM trading_signals WHERE id = ?`)
      .get(id);
  }

  /** The signals of `ids` that exist, by id (a batch of the signal queue: one statement per 500). */
  byIds(ids: readonly number[]): Map<number, DecidableSignal> {
    const out = new Map<number, DecidableSignal>();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const rows = this.sqlite
        .query<DecidableSignal, number[]>(
          `SELECT ${DECIDABLE_COLUMNS} FROM trading_signals WHERE id IN (${chunk.map(() => "?").join(",")})`,
        )
        .all(...chunk);
      for (const r of rows) out.set(r.id, r);
    }
    return out;
  }

  /** Newest first. */
  list(userId: string, f: SignalQuery, limit: number, offset: number): SignalRecord[] {
    const w = where(userId, f);
    return this.sqlite
      .query<SignalRecord, Param[]>(
        `SELECT ${COLUMNS} FROM trading_signals WHERE ${w.sql} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
      )
      .all(...w.params, limit, offset);
  }

  /**
   * Newest first, read lazily so a large export stays flat in memory. Pages are cut at the last
   * row's (created_at, id) (keyset), not by OFFSET: each page seeks the (user_id, created_at)
   * index instead of skipping every row before it, and a signal posted while the export is read
   * cannot shift a row into the next page twice.
   */
  *iterate(userId: string, f: SignalQuery, pageSize: number): Generator<SignalRecord> {
    const w = where(userId, f);
    const first = this.sqlite.query<SignalRecord, Param[]>(
      `SELECT ${COLUMNS} FROM trading_signals WHERE ${w.sql} ORDER BY created_at DESC, id DESC LIMIT ?`,
    );
    // created_at <= ? bounds the index range; the OR picks the rows after the cursor within it.
    const next = this.sqlite.query<SignalRecord, Param[]>(
      `SELECT ${COLUMNS} FROM trading_signals WHERE ${w.sql} AND created_at <= ? AND (created_at < ? OR id < ?)
       ORDER BY created_at DESC, id DESC LIMIT ?`,
    );
    let page = first.all(...w.params, pageSize);
    for (;;) {
      yield* page;
      if (page.length < pageSize) return;
      const last = page[page.length - 1]!;
      page = next.all(...w.params, last.createdAt, last.createdAt, last.id, pageSize);
    }
  }

  update(userId: string, id: number, s: NewSignal, now: string): SignalRecord | null {
    return this.sqlite
      .query<SignalRecord, Param[]>(
        `UPDATE trading_signals SET token_address = ?, symbol = ?, signal_type = ?, signal_strength = ?,
           activation_reason = ?, source = ?, updated_at = ? WHERE id = ? AND user_id = ? RETURNING ${COLUMNS}`,
      )
      .get(s.tokenAddress, s.symbol, s.signalType, s.signalStrength, s.activationReason, s.source, now, id, userId);
  }

  /** False when the user has no such signal. */
  deleteOwned(userId: string, id: number): boolean {
    return this.sqlite.query("DELETE FROM trading_signals WHERE id = ? AND user_id = ?").run(id, userId).changes > 0;
  }

  deleteAllOf(userId: string): number {
    return this.sqlite.query("DELETE FROM trading_signals WHERE user_id = ?").run(userId).changes;
  }

  /** processed and expired stamp processed_at. */
  setStatus(id: number, status: SignalStatus, now: string): void {
    this.sqlite
      .query(
        "UPDATE trading_signals SET processing_status = ?, processed_at = CASE WHEN ? IN ('processed','expired') THEN ? ELSE processed_at END WHERE id = ?",
      )
      .run(status, status, now, id);
  }

  /** Signals not finished (pending or processing), oldest first. */
  unfinished(): Array<{ id: number; createdAt: string }> {
    return this.sqlite
      .query<{ id: number; createdAt: string }, []>(
        "SELECT id, created_at AS createdAt FROM trading_signals WHERE processing_status IN ('pending','processing') ORDER BY id",
      )
      .all();
  }

  /**
   * Distinct tokens the user cares about now: their agents' open positions (newest first), then
   * their signals since `sinceIso` (the public API's latest whale trades).
   */
  watchedTokens(userId: string, sinceIso: string, max: number): string[] {
    const rows = this.sqlite
      .query<{ token: string }, [string, string, number]>(
        `SELECT token FROM (
           SELECT p.token_address AS token, 0 AS rank, max(p.opened_at) AS at FROM positions p JOIN agents a ON a.id = p.agent_id
            WHERE a.user_id = ?1 AND p.status = 'open' GROUP BY p.token_address
           UNION ALL
           SELECT s.token_address AS token, 1 AS rank, max(s.created_at) AS at FROM trading_signals s
            WHERE s.user_id = ?1 AND s.created_at >= ?2 GROUP BY s.token_address
         ) ORDER BY rank, at DESC LIMIT ?3 * 2`,
      )
      .all(userId, sinceIso, max);
    return [...new Set(rows.map((r) => r.token))].slice(0, max);
  }

  // ---- Idempotency-Key of POST /trading-signals (PRODUCT.md §4)

  idempotencyKey(
    apiKeyId: string,
    key: string,
  ): Pick<typeof signalIdempotencyKeys.$inferSelect, "bodyHash" | "signalId"> | null {
    return this.sqlite
      .query<{ bodyHash: string; signalId: number }, [string, string]>(
        "SELECT body_hash AS bodyHash, signal_id AS signalId FROM signal_idempotency_keys WHERE api_key_id = ? AND idempotency_key = ?",
      )
      .get(apiKeyId, key);
  }

  /** Forgets the key if it was stored before `before` (ISO), or at all when `before` is absent. */
  forgetIdempotencyKey(apiKeyId: string, key: string, before?: string): void {
    this.sqlite
      .query(
        "DELETE FROM signal_idempotency_keys WHERE api_key_id = ? AND idempotency_key = ? AND (? IS NULL OR created_at < ?)",
      )
      .run(apiKeyId, key, before ?? null, before ?? null);
  }

  saveIdempotencyKey(apiKeyId: string, key: string, bodyHash: string, signalId: number, now: string): void {
    this.sqlite
      .query(
        "INSERT INTO signal_idempotency_keys (api_key_id, idempotency_key, body_hash, signal_id, created_at) VALUES (?, ?, ?, ?, ?)",
      )
      .run(apiKeyId, key, bodyHash, signalId, now);
  }

  /**
   * Who sent the signal that opened a position (rules/signal-source.ts), or null when that is
   * unknown: opened without a signal, or the signal was deleted since.
   */
  originOfPosition(positionId: string): Pick<DecidableSignal, "apiKeyId" | "apiKeyName" | "source"> | null {
    return this.sqlite
      .query<Pick<DecidableSignal, "apiKeyId" | "apiKeyName" | "source">, [string]>(
        `SELECT s.api_key_id AS apiKeyId, (SELECT k.name FROM api_keys k WHERE k.id = s.api_key_id) AS apiKeyName,
           s.source AS source
           FROM positions p JOIN trading_signals s ON s.id = p.signal_id WHERE p.id = ?`,
      )
      .get(positionId);
  }
}
