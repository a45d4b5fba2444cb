import { type Clock, isoNow } from "../clock.ts";
import type { NotificationPreferencesRepository } from "../db/repositories/notification-preferences.ts";

// Notification preferences per user: which notifications the Telegram bot sends, and
// quiet hours during which they arrive silently (Telegram's disable_notification: the phone does
// not ring, nothing is lost). Webhooks are machines: they have their own per-endpoint event list.

export const NOTIFICATION_KINDS = [
  "position.opened",
  "position.take_profit",
  "position.dca",
  "position.closed",
  "trade.failed",
  "webhook.disabled",
  "replication.failing",
  "daily_summary",
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export interface QuietHours {
  /** HH:MM, local time in `timezone`. */
  start: string;
  end: string;
  /** IANA time zone name, e.g. Europe/Berlin. */
  timezone: string;
}

export interface NotificationPreferences {
  events: NotificationKind[];
  quietHours: QuietHours | null;
  updatedAt: string | null;
}

const DEFAULT_PREFERENCES: NotificationPreferences = {
  events: [...NOTIFICATION_KINDS],
  quietHours: null,
  updatedAt: null,
};

export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Whether `at` (epoch ms) falls in the quiet hours; a window may wrap midnight (22:00–07:00). */
export function inQuietHours(q: QuietHours | null, at: number): boolean {
  if (!q) return false;
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone: q.timezone,
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).formatToParts(new Date(at));
  const hour = Number(parts.find((p) => p.type === "hour")?.value ?? 0);
  const minute = Number(parts.find((p) => p.type === "minute")?.value ?? 0);
  const m = hour * 60 + minute;
  const start = minutesOf(q.start);
  const end = minutesOf(q.end);
  return start < end ? m >= start && m < end : m >= start || m < end;
}

export class NotificationPreferencesService {
  constructor(
    private readonly repo: NotificationPreferencesRepository,
    private readonly clock: Clock,
  ) {}

  get(userId: string): NotificationPreferences {
    const row = this.repo.get(userId);
    if (!row) return { ...DEFAULT_PREFERENCES, events: [...DEFAULT_PREFERENCES.events] };
    return {
      events: row.events.filter((e): e is NotificationKind => (NOTIFICATION_KINDS as readonly string[]).includes(e)),
      quietHours: row.quietHours ?? null,
      updatedAt: row.updatedAt,
    };
  }

  /** Replaces the given fields; omitted fields keep their value. Input is validated at the edge. */
  update(
    userId: string,
    patch: { events?: NotificationKind[]; quietHours?: QuietHours | null },
  ): NotificationPreferences {
    const current = this.get(userId);
    const next = {
      userId,
      events: patch.events !== undefined ? [...new Set(patch.events)] : current.events,
      quietHours: patch.quietHours !== undefined ? patch.quietHours : current.quietHours,
      updatedAt: isoNow(this.clock),
    };
    this.repo.upsert(next);
    return this.get(userId);
  }

  wants(userId: string, kind: NotificationKind): boolean {
    return this.get(userId).events.includes(kind);
  }
}
