import type { GroupCommit } from "../db/group-commit.ts";
import type { EventBus } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import type { SignalQueue } from "./signal-queue.ts";
import type { Signal, SignalInput, SignalService } from "./signal-service.ts";

// POST /trading-signals → here → SignalQueue. Concurrent posts share one SQLite transaction
// (group commit, src/db/group-commit.ts; docs/decisions.md "Performance"): each
// insert runs in its own savepoint of the turn's transaction, so an Idempotency-Key conflict
// fails only its own request, and submit() resolves only after the commit: a 201 never leaves
// before its signal is durable. The key's use is counted in the same transaction, and so is the
// processed status of a signal whose owner has no agent. The event, log line and queueing follow
// the commit.

export interface SubmitResult {
  signal: Signal;
  replayed: boolean;
}

export interface SignalIntakeDeps {
  events: EventBus;
  queue: SignalQueue;
  logger: Logger;
  signals: SignalService;
  commits: GroupCommit;
  /** Counts `count` requests of an API key; called inside the group commit, once per key and commit. */
  recordKeyUse?: (apiKeyId: string, count: number) => void;
  /** Whether the user has any agent (an index probe, inside the group commit; asked once per owner and commit). */
  hasAgents?: (userId: string) => boolean;
  /** Whether start-up recovery runs (ensureRecovered); off in a few tests' own wiring. */
  recovery?: boolean;
}

export class SignalIntake {
  private readonly listeners: Array<(userId: string, signal: Signal) => void> = [];
  private recoveryDone = false;
  /**
   * Per commit (GroupCommit.atBatchEnd): the keys' uses, written as one UPDATE per key, and
   * whether each owner has agents, which nothing in the batch's transaction can change (agents are
   * not created in a group commit). A busy bot's signals of one turn cost one of each, not one per signal.
   */
  private readonly keyUses = new Map<string, number>();
  private readonly ownersWithAgents = new Map<string, boolean>();
  private readonly endOfBatch = () => {
    try {
      for (const [id, n] of this.keyUses) this.d.recordKeyUse?.(id, n);
    } finally {
      this.keyUses.clear();
      this.ownersWithAgents.clear();
    }
  };

  constructor(private readonly d: SignalIntakeDeps) {}

  /** Whether start-up recovery has run: until then /health/ready answers false. */
  get recovered(): boolean {
    return this.recoveryDone;
  }

  /**
   * Stores a signal (SignalService.create: Idempotency-Key replay and conflict rules) in the next
   * group commit; resolves once it is committed. A new signal is then announced and queued.
   */
  async submit(userId: string, apiKeyId: string, input: SignalInput, idempotencyKey?: string): Promise<SubmitResult> {
    // serve() recovers before the door opens; a signal arriving first by any other way (an app
    // built without serve) still finds the unfinished ones queued ahead of it.
    this.ensureRecovered();
    const r = await this.d.commits.write(() => {
      // An owner without agents: the processor would find no one to evaluate and only mark the
      // signal processed in a later commit. It is stored processed in this one instead, and not
      // queued (decided when it arrives, as the processor's own check would be).
      const status = this.statusOfNew(userId);
      const created = this.d.signals.create(userId, apiKeyId, input, idempotencyKey, status);
      this.keyUses.set(apiKeyId, (this.keyUses.get(apiKeyId) ?? 0) + 1); // last: nothing after it can throw
      return { ...created, queued: status === "pending" };
    });
    if (!r.replayed) this.accepted(userId, r.signal, r.queued);
    return { signal: r.signal, replayed: r.replayed };
  }

  /**
   * A signal of a built-in source (copy trading): no API key, no Idempotency-Key. `claim` runs
   * first in the same commit and records the source's own once-only key; when it answers false
   * (already recorded: an overlapping poll, a restart) nothing is stored and the answer is null.
   * `link` then stores the new signal's id beside that record, still in the same commit.
   */
  async submitOnce(
    userId: string,
    input: SignalInput,
    claim: () => boolean,
    link: (signalId: number) => void,
  ): Promise<Signal | null> {
    this.ensureRecovered(); // as submit(): unfinished signals are queued ahead of a new one
    const r = await this.d.commits.write(() => {
      if (!claim()) return null;
      const status = this.statusOfNew(userId);
      const { signal } = this.d.signals.create(userId, null, input, undefined, status);
      link(signal.id);
      return { signal, queued: status === "pending" };
    });
    if (!r) return null;
    this.accepted(userId, r.signal, r.queued);
    return r.signal;
  }

  /**
   * Inside a group commit: "processed" for an owner without agents (nothing can act on the signal),
   * else "pending". Registers the batch's end, which writes the key uses and forgets the answers.
   */
  private statusOfNew(userId: string): "pending" | "processed" {
    this.d.commits.atBatchEnd("signal-intake", this.endOfBatch);
    if (!this.d.hasAgents) return "pending";
    let has = this.ownersWithAgents.get(userId);
    if (has === undefined) {
      has = this.d.hasAgents(userId);
      this.ownersWithAgents.set(userId, has);
    }
    return has ? "pending" : "processed";
  }

  /** What happens once a new signal is stored: event, log, queue (SPEC "Events" item 1). */
  private accepted(userId: string, signal: Signal, queued: boolean): void {
    this.d.logger.info("signal received", {
      signalId: signal.id,
      userId,
      tokenAddress: signal.tokenAddress,
      signalType: signal.signalType,
      signalStrength: signal.signalStrength,
    });
    this.d.events.publish("signal.created", userId, { signal });
    for (const l of this.listeners) l(userId, signal);
    if (queued) this.d.queue.enqueue(signal.id, Date.parse(signal.createdAt));
  }

  /** Metrics and other observers hook in here. */
  onAccepted(l: (userId: string, signal: Signal) => void): void {
    this.listeners.push(l);
  }

  /**
   * Start-up recovery (PRODUCT.md §4), before the door opens: every unfinished signal is queued
   * again, oldest first, before any new signal can be. Once.
   */
  ensureRecovered(): void {
    if (this.recoveryDone || !this.d.recovery) return;
    this.recover(this.d.signals);
  }

  /**
   * Start-up recovery: resume every unfinished signal; none expires (a buy too old by the time it
   * is decided is refused as stale per agent by the processor; an exit signal still acts).
   */
  recover(signals: SignalService): { resume: number[] } {
    this.recoveryDone = true;
    const unfinished = signals.recoverUnfinished();
    for (const u of unfinished) this.d.queue.enqueue(u.id, Date.parse(u.createdAt));
    if (unfinished.length) this.d.logger.info("signal recovery", { resumed: unfinished.length });
    return { resume: unfinished.map((u) => u.id) };
  }
}
