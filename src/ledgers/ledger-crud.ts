import { type Clock, isoNow } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { requireOwnedAgent } from "../db/repositories/agents.ts";
import type { LedgerRepository } from "../db/repositories/ledgers.ts";
import { ConflictError, NotFoundError, ValidationError } from "../errors.ts";
import type { Logger } from "../logger.ts";

// One CRUD for the three per-agent ledgers (agent balances, agent transactions, historical swaps;
// SPEC "... endpoints"): a row is reached through its agent, another user's id is a 404, an update
// needs at least one field, every write is logged. Each ledger supplies only what differs.

export interface LedgerSpec<R, I, V> {
  repo: LedgerRepository<R, I>;
  /** 404 text, e.g. "Transaction not found". */
  notFound: string;
  /** Log messages of the three writes and the id field they carry. */
  log: { created: string; updated: string; deleted: string; idField: string };
  view(row: R): V;
  /** The timestamp columns an update sets (updatedAt, or lastUpdated for balances). */
  stamp(now: string): Partial<I>;
  /** 400 text of an update without fields. */
  emptyUpdate: string;
  /** 409 text when an insert breaks a unique index; absent: the error propagates. */
  conflict?: string;
}

export class LedgerCrud<R extends { agentId: string }, I, V> {
  constructor(
    private readonly spec: LedgerSpec<R, I, V>,
    private readonly database: DatabaseHandle,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  now(): string {
    return isoNow(this.clock);
  }

  /** 404 "Agent not found" unless the agent is the user's. */
  requireAgent(userId: string, agentId: string): void {
    requireOwnedAgent(this.database, userId, agentId);
  }

  owned(userId: string, id: string): R {
    const row = this.spec.repo.findOwned(userId, id);
    if (!row) throw new NotFoundError(this.spec.notFound);
    return row;
  }

  get(userId: string, id: string): V {
    return this.spec.view(this.owned(userId, id));
  }

  create(userId: string, row: I & { id: string; agentId: string }, logFields: Record<string, unknown> = {}): V {
    this.requireAgent(userId, row.agentId);
    try {
      this.spec.repo.insert(row);
    } catch (err) {
      if (this.spec.conflict && String(err).includes("UNIQUE")) throw new ConflictError(this.spec.conflict);
      throw err;
    }
    this.logger.info(this.spec.log.created, { agentId: row.agentId, [this.spec.log.idField]: row.id, ...logFields });
    return this.get(userId, row.id);
  }

  /**
   * Applies the fields that were sent; `check` sees the stored row and the changes first (a rule
   * across fields, such as saleTime not before purchaseTime).
   */
  update(userId: string, id: string, patch: Partial<I>, check?: (row: R, changes: Partial<I>) => void): V {
    const changes = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<I>;
    if (Object.keys(changes).length === 0) throw new ValidationError(this.spec.emptyUpdate);
    const row = this.owned(userId, id);
    check?.(row, changes);
    this.spec.repo.update(id, { ...changes, ...this.spec.stamp(this.now()) });
    this.logger.info(this.spec.log.updated, {
      agentId: row.agentId,
      [this.spec.log.idField]: id,
      fields: Object.keys(changes),
    });
    return this.get(userId, id);
  }

  delete(userId: string, id: string): void {
    const row = this.owned(userId, id);
    this.spec.repo.remove(id);
    this.logger.info(this.spec.log.deleted, { agentId: row.agentId, [this.spec.log.idField]: id });
  }
}
