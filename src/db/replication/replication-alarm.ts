import type { ReplicationReport } from "./replicator.ts";

// The operator's alert (issue 36 item 4): replication failing for more than a minute sends one
// `replication.failing` event to each admin (webhooks subscribed to it, the Telegram bot); the
// next failure after a recovery alerts again. A shorter outage (a store's restart, a network
// blip) only shows in /health and /metrics.

const ALERT_AFTER_MS = 60_000;

export interface ReplicationAlert {
  replica: string;
  failingSince: string;
  lagSeconds: number;
  message: string;
}

export class ReplicationAlarm {
  private failingSince: number | null = null;
  private alerted = false;

  constructor(
    private readonly alert: (a: ReplicationAlert) => void,
    private readonly alertAfterMs = ALERT_AFTER_MS,
  ) {}

  /** One look at the replica's state (after each metrics read). */
  observe(r: ReplicationReport, now: number): void {
    if (r.state !== "failing") {
      this.failingSince = null;
      this.alerted = false;
      return;
    }
    this.failingSince ??= now;
    if (this.alerted || now - this.failingSince <= this.alertAfterMs) return;
    this.alerted = true;
    this.alert({
      replica: r.replica,
      failingSince: new Date(this.failingSince).toISOString(),
      lagSeconds: r.lagSeconds,
      message: "commits do not reach the replica",
    });
  }
}
