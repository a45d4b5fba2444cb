// A local fake of the Telegram Bot API on 127.0.0.1, speaking its wire format: POST
// /bot<token>/<method> with a JSON body, answered with {ok: true, result} or {ok: false,
// error_code, description}. Implements getMe, getUpdates (long polling with offset
// confirmation), sendMessage, editMessageText and answerCallbackQuery. Tests play the user with
// userSends() and press(), and read what the bot sent with messagesTo().

type Json = Record<string, any>;

interface SentMessage {
  message_id: number;
  chat_id: string;
  text: string;
  reply_markup?: { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> };
  disable_notification?: boolean;
  edited: boolean;
}

export interface FakeTelegram {
  url: string;
  token: string;
  env(): Record<string, string>;
  /** Every request: method and body (for assertions that the bot never sent data). */
  requests: Array<{ method: string; body: Json }>;
  userSends(chatId: number, text: string): void;
  /** Presses an inline button by its text on the bot's message; returns the callback query id. */
  press(chatId: number, messageId: number, buttonText: string): string;
  messagesTo(chatId: number): SentMessage[];
  lastMessageTo(chatId: number): SentMessage | undefined;
  answeredCallbacks: Array<{ callback_query_id: string; text?: string }>;
  pendingUpdates(): number;
  /** getUpdates long polls being held open right now. */
  openPolls(): number;
  /** Long polls the client gave up before they were answered (a bot's stop() aborts its poll). */
  cancelledPolls(): number;
  close(): Promise<void>;
}

export async function startFakeTelegram(token = "123456:TEST-fake-bot-token-abcdefghijklmnop"): Promise<FakeTelegram> {
  let nextUpdateId = 1000;
  let nextMessageId = 1;
  let nextCallbackId = 1;
  const updates: Json[] = [];
  const waiters = new Set<() => void>();
  let openPolls = 0;
  let cancelledPolls = 0;
  const messages: SentMessage[] = [];
  const requests: Array<{ method: string; body: Json }> = [];
  const answeredCallbacks: Array<{ callback_query_id: string; text?: string }> = [];
  const botUser = { id: 123456, is_bot: true, first_name: "Trading Agent", username: "trading_agent_test_bot" };
  const now = () => Math.floor(Date.now() / 1000);
  const userOf = (chatId: number) => ({ id: chatId, is_bot: false, first_name: `User ${chatId}` });
  const chatOf = (chatId: number) => ({ id: chatId, type: "private", first_name: `User ${chatId}` });
  const wireMessage = (m: SentMessage) => ({
    message_id: m.message_id,
    date: now(),
    chat: chatOf(Number(m.chat_id)),
    from: botUser,
    text: m.text,
    ...(m.reply_markup ? { reply_markup: m.reply_markup } : {}),
  });

  const push = (u: Json) => {
    updates.push({ update_id: nextUpdateId++, ...u });
    for (const w of waiters) w();
  };
  const ok = (result: unknown) => Response.json({ ok: true, result });
  const fail = (code: number, description: string) =>
    Response.json({ ok: false, error_code: code, description }, { status: code });

  const methods: Record<string, (b: Json, signal: AbortSignal) => Promise<Response> | Response> = {
    getMe: () => ok(botUser),
    getUpdates: async (b, signal) => {
      const offset = Number(b.offset ?? 0);
      // Confirming: updates below the offset are gone for good (Bot API semantics).
      while (updates.length > 0 && updates[0]!.update_id < offset) updates.shift();
      const timeout = Number(b.timeout ?? 0);
      if (updates.length === 0 && timeout > 0) {
        openPolls++;
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(t);
            waiters.delete(done);
            signal.removeEventListener("abort", cancelled);
            resolve();
          };
          const cancelled = () => {
            cancelledPolls++;
            done();
          };
          const t = setTimeout(done, timeout * 1000);
          waiters.add(done);
          signal.addEventListener("abort", cancelled, { once: true });
        });
        openPolls--;
      }
      return ok(updates.filter((u) => u.update_id >= offset).slice(0, Number(b.limit ?? 100)));
    },
    sendMessage: (b) => {
      if (!b.chat_id || typeof b.text !== "string" || b.text === "")
        return fail(400, "Bad Request: message text is empty");
      const m: SentMessage = {
        message_id: nextMessageId++,
        chat_id: String(b.chat_id),
        text: b.text,
        reply_markup: b.reply_markup,
        disable_notification: b.disable_notification,
        edited: false,
      };
      messages.push(m);
      return ok(wireMessage(m));
    },
    editMessageText: (b) => {
      const m = messages.find((x) => x.chat_id === String(b.chat_id) && x.message_id === Number(b.message_id));
      if (!m) return fail(400, "Bad Request: message to edit not found");
      m.text = b.text;
      m.reply_markup = b.reply_markup;
      m.edited = true;
      return ok(wireMessage(m));
    },
    answerCallbackQuery: (b) => {
      answeredCallbacks.push({ callback_query_id: String(b.callback_query_id), text: b.text });
      return ok(true);
    },
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      const m = new URL(req.url).pathname.match(/^\/bot([^/]+)\/(\w+)$/);
      if (!m) return fail(404, "Not Found");
      if (m[1] !== token) return fail(401, "Unauthorized");
      const text = await req.text();
      const body = text ? (JSON.parse(text) as Json) : {};
      requests.push({ method: m[2]!, body });
      const handler = methods[m[2]!];
      return handler ? handler(body, req.signal) : fail(404, "Not Found: method not found");
    },
  });
  const url = `http://127.0.0.1:${server.port}`;

  return {
    url,
    token,
    env: () => ({ TELEGRAM_BOT_TOKEN: token, TELEGRAM_API_URL: url }),
    requests,
    answeredCallbacks,
    userSends(chatId, text) {
      const command = text.startsWith("/") ? (text.split(/\s/)[0] ?? "") : "";
      push({
        message: {
          message_id: nextMessageId++,
          date: now(),
          chat: chatOf(chatId),
          from: userOf(chatId),
          text,
          ...(command ? { entities: [{ type: "bot_command", offset: 0, length: command.length }] } : {}),
        },
      });
    },
    press(chatId, messageId, buttonText) {
      const m = messages.find((x) => x.chat_id === String(chatId) && x.message_id === messageId);
      const button = m?.reply_markup?.inline_keyboard.flat().find((b) => b.text === buttonText);
      if (!m || !button) throw new Error(`no button "${buttonText}" on message ${messageId} in chat ${chatId}`);
      const id = String(nextCallbackId++);
      push({
        callback_query: {
          id,
          from: userOf(chatId),
          message: wireMessage(m),
          chat_instance: `ci-${chatId}`,
          data: button.callback_data,
        },
      });
      return id;
    },
    messagesTo: (chatId) => messages.filter((m) => m.chat_id === String(chatId)),
    lastMessageTo: (chatId) => messages.filter((m) => m.chat_id === String(chatId)).at(-1),
    pendingUpdates: () => updates.length,
    openPolls: () => openPolls,
    cancelledPolls: () => cancelledPolls,
    close: async () => {
      for (const w of waiters) w();
      await server.stop(true);
    },
  };
}
