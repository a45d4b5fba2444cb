import { eq } from "drizzle-orm";
import type { DatabaseHandle } from "../client.ts";
import { notificationPreferences } from "../schema/index.ts";

// notification_preferences, written only from here.

export type PreferencesRow = typeof notificationPreferences.$inferSelect;

export class NotificationPreferencesRepository {
  constructor(private readonly database: DatabaseHandle) {}

  get(userId: string): PreferencesRow | undefined {
    return this.database.db
      .select()
      .from(notificationPreferences)
      .where(eq(notificationPreferences.userId, userId))
      .get();
  }

  upsert(row: PreferencesRow): void {
    this.database.db
      .insert(notificationPreferences)
      .values(row)
      .onConflictDoUpdate({
        target: notificationPreferences.userId,
        set: { events: row.events, quietHours: row.quietHours, updatedAt: row.updatedAt },
      })
      .run();
  }
}
