import { abortableDelay, type Clock, isoNow } from "../../clock.ts";
import type { DueDelivery, WebhookRepository } from "../../db/repositories/webhooks.ts";
import type { EventBus, ServiceEvent } from "../../events/bus.ts";
import type { Logger } from "../../logger.ts";
import type { SecretBox } from "../secret-box.ts";
import { WEBHOOK_EVENT_TYPES } from "./event-types.ts";
import type { SendResult, WebhookSender } from "./http-sender.ts";
import { afterAttempt, MAX_ATTEMPTS, shouldDisable } from "./retry-schedule.ts";
import { signatureHeaders } from "./signing.ts";
import { UnsafeUrlError } from "./ssrf-guard.ts";

// The webhook delivery queue. Every user event an endpoint subscribed to becomes a row
// in webhook_deliveries (SQLite, so it survives a restart) with its own `webhook-id`, kept on
// every retry. `tick()` sends what is due, at most `maxInFlight` at once, and records each
// attempt in one transaction. Time is the injected Clock; tests call tick() themselves, serve()
// runs `start()`, which ticks once a second and at once when something is queued.

export interface DeliveryWorkerDeps {
  repo: WebhookRepository;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  box: SecretBox;
  sender: WebhookSender;
  /** Throws UnsafeUrlError when the URL may not be called now (SSRF guard, re-checked per attempt). */
  guard: (url: string) => Promise<void>;
  maxInFlight: number;
}

export interface TickReport {
  attempted: number;
  delivered: number;
  failed: number;
}

/**
 * Finished deliveries (delivered or given up) and their attempts are kept this long, then deleted
 * (docs/decisions.md "Notifications": deliveries are a recent history, not an archive). Pending
 * ones are never pruned.
 */
export const DELIVERY_RETENTION_MS = 30 * 86_400_000;
/** How often tick() prunes: the rows age by days, so an hourly pass is plenty. */
export const PRUNE_EVERY_MS = 3_600_000;

export function newMessageId(): string {
  return `msg_${crypto.randomUUID().replaceAll("-", "")}`;
}

/** The body every endpoint receives: the event stream's event in the Standard Webhooks envelope. */
export function messageBody(type: string, time: string, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp: time, data });
}

export class WebhookDeliveryWorker {
  private readonly inFlight = new Set<string>();
  private readonly log: Logger;
  private loop: { stop: AbortController; wake: AbortController } | null = null;
  private loopDone: Promise<void> | null = null;
  /** Clock time of the last prune; the first tick prunes. */
  private lastPrune = Number.NEGATIVE_INFINITY;

  constructor(private readonly d: DeliveryWorkerDeps) {
    this.log = d.logger.child({ component: "webhooks" });
  }

  /** Subscribes to the bus: every event of a user is queued for that user's subscribed endpoints. */
  attach(): () => void {
    return this.d.events.subscribe((e) => this.enqueue(e));
  }

  enqueue(e: ServiceEvent): number {
    if (!e.userId || !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(e.type)) return 0;
    const targets = this.d.repo.enabledOf(e.userId).filter((w) => w.events.includes(e.type));
    if (targets.length === 0) return 0;
    const payload = messageBody(e.type, e.time, e.data);
    const now = this.d.clock.now();
    const createdAt = isoNow(this.d.clock);
    this.d.repo.insertDeliveries(
      targets.map((w) => ({
        id: newMessageId(),
        webhookId: w.id,
        eventType: e.type,
        payload,
        status: "pending" as const,
        nextAttemptAt: now,
        createdAt,
      })),
    );
    this.loop?.wake.abort();
    return targets.length;
  }

  /** Sends every due delivery (up to the in-flight limit) and resolves when those attempts are recorded. */
  async tick(): Promise<TickReport> {
    this.pruneIfDue();
    const free = this.d.maxInFlight - this.inFlight.size;
    const due = this.d.repo.due(this.d.clock.now(), free, [...this.inFlight]);
    for (const item of due) this.inFlight.add(item.delivery.id);
    const outcomes = await Promise.all(
      due.map((item) => this.attempt(item).finally(() => this.inFlight.delete(item.delivery.id))),
    );
    return {
      attempted: due.length,
      delivered: outcomes.filter(Boolean).length,
      failed: outcomes.filter((ok) => !ok).length,
    };
  }

  /** Deletes finished deliveries older than the retention, at most once per PRUNE_EVERY_MS of the clock. */
  pruneIfDue(): number {
    const now = this.d.clock.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return 0;
    this.lastPrune = now;
    const pruned = this.d.repo.pruneFinished(new Date(now - DELIVERY_RETENTION_MS).toISOString());
    if (pruned > 0) this.log.debug("webhook deliveries pruned", { pruned });
    return pruned;
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /** One signed POST of a stored delivery; resolves true when delivered. Never throws. */
  private async attempt({ delivery, webhook }: DueDelivery): Promise<boolean> {
    const attempt = delivery.attempts + 1;
    const result = await this.send(webhook.url, webhook.sealedSecret, delivery.id, delivery.payload);
    const now = this.d.clock.now();
    const at = new Date(now).toISOString();
    const ok = result.error === null;
    const outcome = afterAttempt(attempt, ok, now);
    const disabled = this.d.repo.recordAttempt(
      {
        deliveryId: delivery.id,
        webhookId: webhook.id,
        attempt,
        statusCode: result.statusCode,
        error: result.error,
        durationMs: result.durationMs,
        at,
        next:
          outcome.kind === "retry"
            ? { status: "pending", nextAttemptAt: outcome.nextAttemptAt }
            : { status: outcome.kind === "delivered" ? "delivered" : "failed" },
      },
      (failingSince) => {
        if (ok) return { failingSince: null };
        const since = failingSince ?? at;
        return shouldDisable(Date.parse(since), now)
          ? { failingSince: since, disable: { at, reason: `Failing since ${since}: ${result.error}` } }
          : { failingSince: since };
      },
    );
    const ctx = { webhookId: webhook.id, deliveryId: delivery.id, event: delivery.eventType, attempt };
    if (ok) this.log.debug("webhook delivered", { ...ctx, statusCode: result.statusCode });
    else
      this.log.info("webhook delivery failed", {
        ...ctx,
        error: result.error,
        final: outcome.kind === "given_up" || attempt >= MAX_ATTEMPTS,
      });
    if (disabled) {
      this.log.warn("webhook disabled after failing for 24 hours", { webhookId: webhook.id, userId: webhook.userId });
      this.d.events.publish("webhook.disabled", webhook.userId, {
        webhookId: webhook.id,
        disabledAt: disabled.at,
        reason: disabled.reason,
      });
    }
    return ok;
  }

  /** Signs and sends one message; failures (unsafe URL, unreadable secret, HTTP) come back as a result. */
  async send(url: string, sealedSecret: string, messageId: string, body: string): Promise<SendResult> {
    const secret = this.d.box.open(sealedSecret);
    if (secret === null)
      return {
        statusCode: null,
        error: "Signing secret cannot be read (the JWT secret changed); rotate the webhook secret",
        durationMs: 0,
      };
    try {
      await this.d.guard(url);
    } catch (err) {
      if (err instanceof UnsafeUrlError) return { statusCode: null, error: `Refused: ${err.message}`, durationMs: 0 };
      throw err;
    }
    const headers = signatureHeaders(secret, messageId, new Date(this.d.clock.now()), body);
    return this.d.sender.send(url, headers, body);
  }

  /** serve(): tick once a second, and at once when a delivery is queued. Sends are not awaited between ticks. */
  start(): void {
    if (this.loop) return;
    const loop = { stop: new AbortController(), wake: new AbortController() };
    this.loop = loop;
    this.loopDone = (async () => {
      while (!loop.stop.signal.aborted) {
        this.tick().catch((err) => this.log.error("webhook tick failed", { error: String(err) }));
        // The cadence is a real timer, like the position monitor's: a ManualClock's sleep returns
        // at once and would spin. Due times and back-off come from the injected clock.
        if (!loop.wake.signal.aborted)
          await abortableDelay(1_000, AbortSignal.any([loop.stop.signal, loop.wake.signal]));
        loop.wake = new AbortController();
      }
    })();
  }

  /** Stops ticking and waits for the attempts in flight to be recorded. */
  async stop(): Promise<void> {
    this.loop?.stop.abort();
    await this.loopDone;
    this.loop = null;
    while (this.inFlight.size > 0) await new Promise((r) => setTimeout(r, 10));
  }
}
