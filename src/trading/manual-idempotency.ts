import { createHash } from "node:crypto";
import { type Clock, isoNow } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { SignalRepository } from "../db/repositories/signals.ts";
import { ConflictError } from "../errors.ts";
import { IDEMPOTENCY_TTL_MS, KEY_REUSED_MESSAGE } from "../signals/signal-service.ts";

// Idempotency-Key of the manual trades (POST /agents/:id/buy, POST /agent-positions/:a/:p/sell;
// docs/decisions/operator-experience-v.md "Idempotency-Key on the manual trades"). A key names
// the request's manual signal in signal_idempotency_keys, the table of POST /trading-signals'
// keys, in the caller's key space (the API key, or `user:<id>` for a login: API key ids are UUIDs,
// so the two never meet). The repeat is answered from what that signal traded (the engine's trade
// key of agent and signal), never traded again. A first request that traded nothing (refused,
// failed, cut off by a restart before sending) leaves the key free, so a retry after the cause is
// gone trades; one still running makes the repeat a 409.

export const IN_PROGRESS_MESSAGE = "A request with this Idempotency-Key is still in progress";

/** A request's Idempotency-Key in its caller's key space. */
export interface RequestKey {
  scope: string;
  key: string;
}

/** The caller's key space: the API key when one is used, else the user (a JWT). */
export function requestKey(
  auth: { userId: string; apiKeyId?: string },
  key: string | undefined,
): RequestKey | undefined {
  return key === undefined ? undefined : { scope: auth.apiKeyId ?? `user:${auth.userId}`, key };
}

/** What the request asks, tagged by its route: the same key on another route is another body. */
const hashOf = (request: readonly unknown[]) => createHash("sha256").update(JSON.stringify(request)).digest("hex");

export class ManualRequestKeys {
  /** Signals whose request is running in this process: their key answers "in progress". */
  private readonly running = new Set<number>();
  private readonly signals: SignalRepository;

  constructor(
    database: DatabaseHandle,
    private readonly clock: Clock,
  ) {
    this.signals = new SignalRepository(database.sqlite);
  }

  /**
   * The signal of the first request with this key and body when it traded (the caller answers
   * from it), null when the request is to run. Another body is 409, a first request still running
   * too. `traded` says whether a signal left a trade (or a live swap in doubt) behind.
   */
  prior(k: RequestKey | undefined, request: readonly unknown[], traded: (signalId: number) => boolean): number | null {
    if (!k) return null;
    this.signals.forgetIdempotencyKey(k.scope, k.key, new Date(this.clock.now() - IDEMPOTENCY_TTL_MS).toISOString());
    const first = this.signals.idempotencyKey(k.scope, k.key);
    if (!first) return null;
    if (first.bodyHash !== hashOf(request)) throw new ConflictError(KEY_REUSED_MESSAGE);
    if (traded(first.signalId)) return first.signalId;
    if (this.running.has(first.signalId)) throw new ConflictError(IN_PROGRESS_MESSAGE);
    // Over, and nothing traded (a restart cut it off before any swap was sent): the key is free.
    this.signals.forgetIdempotencyKey(k.scope, k.key);
    return null;
  }

  /**
   * Runs the trade of a request whose signal was just stored, its key written first (in the same
   * synchronous step as prior() and the signal's insert, so a concurrent repeat sees it). A trade
   * that fails having traded nothing frees the key: the retry of a refusal trades once allowed.
   */
  async run<T>(
    k: RequestKey | undefined,
    request: readonly unknown[],
    signalId: number,
    traded: (signalId: number) => boolean,
    trade: () => Promise<T>,
  ): Promise<T> {
    if (k) this.signals.saveIdempotencyKey(k.scope, k.key, hashOf(request), signalId, isoNow(this.clock));
    this.running.add(signalId);
    try {
      return await trade();
    } catch (err) {
      if (k && !traded(signalId)) this.signals.forgetIdempotencyKey(k.scope, k.key);
      throw err;
    } finally {
      this.running.delete(signalId);
    }
  }
}
