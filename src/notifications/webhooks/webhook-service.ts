import { type Clock, isoNow } from "../../clock.ts";
import type { WebhookRepository, WebhookRow } from "../../db/repositories/webhooks.ts";
import { NotFoundError, ValidationError } from "../../errors.ts";
import type { SecretBox } from "../secret-box.ts";
import { messageBody, newMessageId, type WebhookDeliveryWorker } from "./delivery-worker.ts";
import { TEST_EVENT_TYPE } from "./event-types.ts";
import { generateWebhookSecret } from "./signing.ts";
import { UnsafeUrlError } from "./ssrf-guard.ts";
import type { WebhookView } from "./webhook-view.ts";

// Webhook endpoints per user: create (the secret is returned once, then only kept
// sealed), list, get, update, delete, test, deliveries. Another user's id answers 404.

const MAX_WEBHOOKS_PER_USER = 20;

export interface WebhookInput {
  url: string;
  events: string[];
  description?: string;
}

export interface WebhookPatch {
  url?: string;
  events?: string[];
  description?: string;
  enabled?: boolean;
}

function toView(w: WebhookRow): WebhookView {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    description: w.description,
    enabled: w.enabled,
    status: !w.enabled ? "disabled" : w.failingSince ? "failing" : "active",
    failingSince: w.failingSince,
    disabledAt: w.disabledAt,
    disabledReason: w.disabledReason,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
  };
}

export class WebhookService {
  constructor(
    private readonly d: {
      repo: WebhookRepository;
      clock: Clock;
      box: SecretBox;
      worker: WebhookDeliveryWorker;
      guard: (url: string) => Promise<void>;
    },
  ) {}

  private async checkUrl(url: string): Promise<void> {
    try {
      await this.d.guard(url);
    } catch (err) {
      if (err instanceof UnsafeUrlError) throw new ValidationError(err.message, [`url: ${err.message}`]);
      throw err;
    }
  }

  async create(userId: string, input: WebhookInput): Promise<WebhookView & { secret: string }> {
    if (this.d.repo.listOf(userId).length >= MAX_WEBHOOKS_PER_USER)
      throw new ValidationError(`At most ${MAX_WEBHOOKS_PER_USER} webhooks per user`);
    await this.checkUrl(input.url);
    const secret = generateWebhookSecret();
    const now = isoNow(this.d.clock);
    const row: WebhookRow = {
      id: crypto.randomUUID(),
      userId,
      url: input.url,
      description: input.description ?? "",
      events: [...new Set(input.events)],
      enabled: true,
      sealedSecret: this.d.box.seal(secret),
      failingSince: null,
      disabledAt: null,
      disabledReason: null,
      createdAt: now,
      updatedAt: now,
    };
    this.d.repo.insert(row);
    return { ...toView(row), secret };
  }

  list(userId: string): WebhookView[] {
    return this.d.repo.listOf(userId).map(toView);
  }

  private owned(userId: string, id: string): WebhookRow {
    const w = this.d.repo.owned(userId, id);
    if (!w) throw new NotFoundError("Webhook not found");
    return w;
  }

  get(userId: string, id: string): WebhookView {
    return toView(this.owned(userId, id));
  }

  async update(userId: string, id: string, patch: WebhookPatch): Promise<WebhookView> {
    const w = this.owned(userId, id);
    if (patch.url !== undefined && patch.url !== w.url) await this.checkUrl(patch.url);
    const now = isoNow(this.d.clock);
    const enabling = patch.enabled === true && !w.enabled;
    const disabling = patch.enabled === false && w.enabled;
    this.d.repo.update(id, {
      ...(patch.url !== undefined ? { url: patch.url } : {}),
      ...(patch.events !== undefined ? { events: [...new Set(patch.events)] } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
      // Re-enabling starts afresh; turning an endpoint off drops what was still queued for it.
      ...(enabling ? { failingSince: null, disabledAt: null, disabledReason: null } : {}),
      ...(disabling ? { disabledAt: now, disabledReason: "Disabled by the user", failingSince: null } : {}),
      updatedAt: now,
    });
    if (disabling) this.d.repo.giveUpPending(id, now);
    return this.get(userId, id);
  }

  delete(userId: string, id: string): void {
    if (!this.d.repo.delete(userId, id)) throw new NotFoundError("Webhook not found");
  }

  /** Rotates the signing secret; the new one is returned once, like at creation. */
  rotateSecret(userId: string, id: string): { secret: string } {
    this.owned(userId, id);
    const secret = generateWebhookSecret();
    this.d.repo.update(id, { sealedSecret: this.d.box.seal(secret), updatedAt: isoNow(this.d.clock) });
    return { secret };
  }

  /**
   * Sends one signed `webhook.test` message now and reports the outcome (also listed among the
   * deliveries). Not retried, and it does not count towards disabling the endpoint.
   */
  async test(userId: string, id: string) {
    const w = this.owned(userId, id);
    const deliveryId = newMessageId();
    const now = isoNow(this.d.clock);
    const body = messageBody(TEST_EVENT_TYPE, now, { webhookId: w.id, message: "Test message from trading-agent" });
    this.d.repo.insertDeliveries([
      {
        id: deliveryId,
        webhookId: w.id,
        eventType: TEST_EVENT_TYPE,
        payload: body,
        status: "failed",
        nextAttemptAt: 0,
        createdAt: now,
      },
    ]);
    const r = await this.d.worker.send(w.url, w.sealedSecret, deliveryId, body);
    this.d.repo.recordAttempt(
      {
        deliveryId,
        webhookId: w.id,
        attempt: 1,
        statusCode: r.statusCode,
        error: r.error,
        durationMs: r.durationMs,
        at: isoNow(this.d.clock),
        next: { status: r.error === null ? "delivered" : "failed" },
      },
      null,
    );
    return {
      success: r.error === null,
      deliveryId,
      statusCode: r.statusCode,
      error: r.error,
      durationMs: r.durationMs,
    };
  }

  deliveries(userId: string, id: string, page: { limit: number; offset: number }) {
    this.owned(userId, id);
    return this.d.repo.attemptsOf(id, page).map((a) => ({
      deliveryId: a.deliveryId,
      event: a.eventType,
      time: a.at,
      attempt: a.attempt,
      statusCode: a.statusCode,
      error: a.error,
      durationMs: a.durationMs,
      deliveryStatus: a.deliveryStatus,
    }));
  }
}
