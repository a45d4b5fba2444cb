import { abortableDelay, type Clock } from "../../clock.ts";
import type { TelegramRepository } from "../../db/repositories/telegram.ts";
import type { EventBus, ServiceEvent } from "../../events/bus.ts";
import type { Logger } from "../../logger.ts";
import { inQuietHours, type NotificationPreferencesService } from "../preferences.ts";
import type { TelegramBot } from "./bot.ts";
import { alertMessage, type DailySummary, eventMessage, kindOf, type Names, summaryMessage } from "./messages.ts";

// Telegram notifications: each user event the user wants (preferences) goes to every
// chat they linked; during their quiet hours it is sent silently. The daily summary goes once per
// UTC day, from SUMMARY_HOUR_UTC on, covering the 24 hours before it.

const SUMMARY_HOUR_UTC = 8;

export interface NotifierDeps {
  bot: TelegramBot;
  repo: TelegramRepository;
  prefs: NotificationPreferencesService;
  clock: Clock;
  logger: Logger;
  names(e: ServiceEvent): Names;
  summary(userId: string, since: string, until: string): Promise<DailySummary>;
}

export class TelegramNotifier {
  private readonly pending = new Set<Promise<void>>();
  private readonly log: Logger;

  constructor(private readonly d: NotifierDeps) {
    this.log = d.logger.child({ component: "telegram" });
  }

  attach(events: EventBus): () => void {
    return events.subscribe((e) => {
      if (!e.userId || (!kindOf(e) && !alertMessage(e))) return;
      const p = this.notify(e).finally(() => this.pending.delete(p));
      this.pending.add(p);
    });
  }

  /** Resolves when every notification started so far has been sent (or has failed). */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  async notify(e: ServiceEvent): Promise<void> {
    const alert = alertMessage(e);
    if (alert && e.userId) {
      const chats = this.d.repo.linksOf(e.userId);
      await Promise.all(chats.map((c) => this.sendTo(c.chatId, alert, false, e.type)));
      return;
    }
    const kind = kindOf(e);
    if (!e.userId || !kind) return;
    const chats = this.d.repo.linksOf(e.userId);
    if (chats.length === 0) return;
    const prefs = this.d.prefs.get(e.userId);
    if (!prefs.events.includes(kind)) return;
    const text = eventMessage(e, this.d.names(e));
    if (!text) return;
    const silent = inQuietHours(prefs.quietHours, this.d.clock.now());
    await Promise.all(chats.map((c) => this.sendTo(c.chatId, text, silent, e.type)));
  }

  private async sendTo(chatId: string, text: string, silent: boolean, what: string): Promise<boolean> {
    try {
      await this.d.bot.send(chatId, text, silent);
      return true;
    } catch (err) {
      this.log.warn("telegram message failed", {
        chatId,
        what,
        error: err instanceof Error ? err.message : String(err),
      });
      return false;
    }
  }

  /** Sends the daily summary to every chat that has not had today's; returns how many were sent. */
  async summaryTick(): Promise<number> {
    const now = this.d.clock.now();
    const today = new Date(now).toISOString().slice(0, 10);
    if (new Date(now).getUTCHours() < SUMMARY_HOUR_UTC) return 0;
    const until = `${today}T${String(SUMMARY_HOUR_UTC).padStart(2, "0")}:00:00.000Z`;
    const since = new Date(Date.parse(until) - 24 * 3_600_000).toISOString();
    let sent = 0;
    for (const link of this.d.repo.summaryDue(today)) {
      const prefs = this.d.prefs.get(link.userId);
      if (prefs.events.includes("daily_summary")) {
        const text = summaryMessage(await this.d.summary(link.userId, since, until));
        if (!(await this.sendTo(link.chatId, text, inQuietHours(prefs.quietHours, now), "daily_summary"))) continue;
        sent++;
      }
      this.d.repo.markSummarySent(link.chatId, today);
    }
    return sent;
  }

  private loop: AbortController | null = null;

  /** serve(): checks for due summaries every 10 minutes (a real timer; the date comes from the clock). */
  start(): void {
    if (this.loop) return;
    const ctl = new AbortController();
    this.loop = ctl;
    void (async () => {
      while (!ctl.signal.aborted) {
        await this.summaryTick().catch((err) => this.log.warn("daily summary failed", { error: String(err) }));
        await abortableDelay(10 * 60_000, ctl.signal);
      }
    })();
  }

  async stop(): Promise<void> {
    this.loop?.abort();
    this.loop = null;
    await this.flush();
  }
}
