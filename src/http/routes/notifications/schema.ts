import { z } from "@hono/zod-openapi";
import { isTimeZone, NOTIFICATION_KINDS } from "../../../notifications/preferences.ts";

const hhmm = (field: string) =>
  z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, { error: `quietHours.${field} must be HH:MM (00:00 to 23:59)` });

const QuietHoursSchema = z
  .strictObject({
    start: hhmm("start"),
    end: hhmm("end"),
    timezone: z
      .string()
      .default("UTC")
      .refine(isTimeZone, { error: "quietHours.timezone must be an IANA time zone such as Europe/Berlin" }),
  })
  .refine((q) => q.start !== q.end, { error: "quietHours.start and quietHours.end must differ" })
  .openapi("QuietHours", { example: { start: "22:00", end: "07:00", timezone: "Europe/Berlin" } });

export const PreferencesSchema = z
  .object({
    events: z.array(z.enum(NOTIFICATION_KINDS)),
    quietHours: QuietHoursSchema.nullable(),
    updatedAt: z.string().nullable(),
  })
  .openapi("NotificationPreferences");

export const UpdatePreferencesBody = z
  .strictObject({
    events: z
      .array(z.enum(NOTIFICATION_KINDS, { error: `events must be among: ${NOTIFICATION_KINDS.join(", ")}` }), {
        error: "events must be a list",
      })
      .optional(),
    quietHours: QuietHoursSchema.nullable().optional(),
  })
  .refine((b) => b.events !== undefined || b.quietHours !== undefined, {
    error: "At least one field must be provided: events or quietHours",
  })
  .openapi("UpdateNotificationPreferencesRequest", {
    example: {
      events: ["position.closed", "trade.failed"],
      quietHours: { start: "22:00", end: "07:00", timezone: "UTC" },
    },
  });

export const TelegramStatusSchema = z
  .object({
    configured: z.boolean(),
    /** false once the Bot API refused the token; null before its first answer or without a bot. */
    authorized: z.boolean().nullable(),
    /** The Bot API's (or the network's) last error, null after a successful round. */
    lastError: z.string().nullable(),
    chats: z.array(z.object({ chatId: z.string(), linkedAt: z.string() })),
  })
  .openapi("TelegramStatus");

export const LinkCodeSchema = z
  .object({
    code: z.string(),
    expiresAt: z.string(),
    instructions: z.string(),
  })
  .openapi("TelegramLinkCode");

export const ChatIdParam = z.object({
  chatId: z
    .string()
    .regex(/^-?\d{1,20}$/, { error: "Invalid chat ID format" })
    .openapi({ param: { name: "chatId", in: "path" }, example: "123456789" }),
});
