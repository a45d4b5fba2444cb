import type { EventBus } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import type { SignalQueue } from "./signal-queue.ts";
import type { Signal, SignalService } from "./signal-service.ts";

/** What happens once a new signal is stored: event, log, queue (SPEC "Events" item 1). */
export class SignalIntake {
  private readonly listeners: Array<(userId: string, signal: Signal) => void> = [];

  constructor(
    private readonly events: EventBus,
    private readonly queue: SignalQueue,
    private readonly logger: Logger,
  ) {}

  accepted(userId: string, signal: Signal): void {
    this.logger.info("signal received", {
      signalId: signal.id,
      userId,
      tokenAddress: signal.tokenAddress,
      signalType: signal.signalType,
      signalStrength: signal.signalStrength,
    });
    this.events.publish("signal.created", userId, { signal });
    for (const l of this.listeners) l(userId, signal);
    this.queue.enqueue(signal.id);
  }

  /** Metrics and other observers hook in here. */
  onAccepted(l: (userId: string, signal: Signal) => void): void {
    this.listeners.push(l);
  }

  /** Start-up recovery: resume young unfinished signals, expire old ones (PRODUCT.md §4). */
  recover(signals: SignalService, maxAgeSeconds: number): { resume: number[]; expired: number[] } {
    const r = signals.recoverUnfinished(maxAgeSeconds);
    for (const id of r.expired) this.logger.warn("signal expired unprocessed", { signalId: id });
    for (const id of r.resume) this.queue.enqueue(id);
    if (r.resume.length || r.expired.length)
      this.logger.info("signal recovery", { resumed: r.resume.length, expired: r.expired.length });
    return r;
  }
}
