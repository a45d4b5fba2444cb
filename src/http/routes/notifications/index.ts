import { NotFoundError, ServiceNotConfiguredError } from "../../../errors.ts";
import type { AppDeps } from "../../app-env.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses, jsonContent, SuccessSchema } from "../../schemas.ts";
import {
  ChatIdParam,
  LinkCodeSchema,
  PreferencesSchema,
  TelegramStatusSchema,
  UpdatePreferencesBody,
} from "./schema.ts";

// /api/v1/notifications: the user's notification preferences and their Telegram
// chats. JWT only.

const common = { tags: ["notifications"], auth: auth.user };

const getPrefs = operation({
  ...common,
  method: "get",
  path: "/preferences",
  responses: { 200: { description: "Preferences", ...jsonContent(PreferencesSchema) }, ...errorResponses(401) },
});
const putPrefs = operation({
  ...common,
  method: "put",
  path: "/preferences",
  request: { body: { ...jsonContent(UpdatePreferencesBody), required: true } },
  responses: { 200: { description: "Updated", ...jsonContent(PreferencesSchema) }, ...errorResponses(400, 401) },
});
const telegramStatus = operation({
  ...common,
  method: "get",
  path: "/telegram",
  responses: {
    200: { description: "Whether the bot is configured, and the linked chats", ...jsonContent(TelegramStatusSchema) },
    ...errorResponses(401),
  },
});
const link = operation({
  ...common,
  method: "post",
  path: "/telegram/link",
  responses: {
    201: { description: "A one-time code: send /start CODE to the bot", ...jsonContent(LinkCodeSchema) },
    ...errorResponses(401, 503),
  },
});
const unlink = operation({
  ...common,
  method: "delete",
  path: "/telegram/chats/{chatId}",
  request: { params: ChatIdParam },
  responses: { 200: { description: "Unlinked", ...jsonContent(SuccessSchema) }, ...errorResponses(400, 401, 404) },
});

export function notificationRoutes(s: AppDeps) {
  const router = createRouter(s);
  const n = s.notifications;
  const telegramOrFail = () => {
    if (!n.telegram) throw new ServiceNotConfiguredError("Telegram is not configured: set TELEGRAM_BOT_TOKEN");
    return n.telegram;
  };
  return router
    .openapi(getPrefs, (c) => c.json(n.preferences.get(c.get("auth").userId), 200))
    .openapi(putPrefs, (c) => c.json(n.preferences.update(c.get("auth").userId, c.req.valid("json")), 200))
    .openapi(telegramStatus, (c) => {
      const bot = n.telegram?.bot.status() ?? { authorized: null, lastError: null };
      const chats = n.telegram?.links.links(c.get("auth").userId) ?? [];
      return c.json({ configured: n.telegram !== null, ...bot, chats }, 200);
    })
    .openapi(link, (c) => {
      const telegram = telegramOrFail();
      // A code for a bot whose token the Bot API refused could never be redeemed.
      if (telegram.bot.status().authorized === false) {
        throw new ServiceNotConfiguredError("The Telegram Bot API refused TELEGRAM_BOT_TOKEN; fix it and restart");
      }
      const { code, expiresAt } = telegram.links.create(c.get("auth").userId);
      return c.json({ code, expiresAt, instructions: `Send /start ${code} to the bot before ${expiresAt}` }, 201);
    })
    .openapi(unlink, (c) => {
      const userId = c.get("auth").userId;
      if (!n.telegram?.links.unlink(userId, c.req.valid("param").chatId)) throw new NotFoundError("Chat not linked");
      return c.json({ success: true }, 200);
    });
}
