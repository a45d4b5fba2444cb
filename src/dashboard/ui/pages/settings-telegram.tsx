import { useEffect, useState } from "preact/hooks";
import { api, get } from "../api.ts";
import { ConfirmButton, ErrorNote, Section, useLoad } from "../components.tsx";
import { fmtTime } from "../format.ts";

// Telegram on the settings page: whether the bot is configured, a one-time
// code to link a chat (`/start CODE` to the bot before it expires), the linked chats. While a
// code is on screen the chat list is fetched every few seconds, so the new chat appears on its own.
// A token the Bot API refused is shown as such, with its error, and no code is offered: it could
// never be redeemed.

interface TelegramStatus {
  configured: boolean;
  /** false once the Bot API refused the token; null before its first answer. */
  authorized: boolean | null;
  lastError: string | null;
  chats: Array<{ chatId: string; linkedAt: string }>;
}
interface LinkCode {
  code: string;
  expiresAt: string;
}

const POLL_MS = 3_000;

export function TelegramSection() {
  const { data, error, reload } = useLoad(() => get<TelegramStatus>("/notifications/telegram"), []);
  const [code, setCode] = useState<LinkCode | null>(null);
  const [linkError, setLinkError] = useState<unknown>(null);
  const chatCount = data?.chats.length ?? 0;
  const [countAtCode, setCountAtCode] = useState(0);

  // Poll while a code is shown; stop once a chat was added or the code expired.
  useEffect(() => {
    if (!code) return;
    if (chatCount > countAtCode || Date.parse(code.expiresAt) <= Date.now()) {
      if (chatCount > countAtCode) setCode(null);
      return;
    }
    const timer = setTimeout(reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [code, data]);

  const link = async () => {
    setLinkError(null);
    try {
      setCountAtCode(chatCount);
      setCode(await api<LinkCode>("POST", "/notifications/telegram/link"));
    } catch (err) {
      setLinkError(err);
    }
  };

  return (
    <Section title="Telegram">
      <ErrorNote error={error} />
      {data && !data.configured && (
        <p>
          The Telegram bot is not configured. Create a bot with @BotFather, set <code>TELEGRAM_BOT_TOKEN</code> in the
          service's environment and restart it.
        </p>
      )}
      {data?.configured && (
        <>
          {data.authorized === false ? (
            <div class="notice" role="alert">
              <p>
                <span class="badge warn">bot token refused</span> The Telegram Bot API refused{" "}
                <code>TELEGRAM_BOT_TOKEN</code>
                {data.lastError ? ` (${data.lastError})` : ""}. Check the token with @BotFather, set it in the service's
                environment and restart it; until then no chat can be linked and nothing is sent.
              </p>
            </div>
          ) : (
            <p>
              <span class={`badge ${data.authorized ? "ok" : "warn"}`}>
                {data.authorized ? "bot connected" : "bot configured, not yet reached"}
              </span>{" "}
              Messages about your positions and trades go to every chat linked here; the bot answers only linked chats.
              {data.lastError && <span class="muted small"> Last error: {data.lastError}</span>}
            </p>
          )}
          {data.authorized === false ? null : code ? (
            <div class="notice" role="status" aria-label="Link code">
              <p>Send this message to your bot before {fmtTime(code.expiresAt)} (the code works once):</p>
              <p class="big">
                <code>/start {code.code}</code>
              </p>
              <div class="row wrap">
                <button type="button" onClick={reload}>
                  Refresh chats
                </button>
                <button type="button" onClick={() => setCode(null)}>
                  Hide code
                </button>
              </div>
            </div>
          ) : (
            <button type="button" class="primary" onClick={link}>
              Link a chat
            </button>
          )}
          <ErrorNote error={linkError} />
          <h3>Linked chats</h3>
          {chatCount === 0 ? (
            <p class="muted">No chat linked yet.</p>
          ) : (
            <ul class="plain">
              {data.chats.map((c) => (
                <li key={c.chatId} class="row" aria-label={`Chat ${c.chatId}`}>
                  <span>
                    Chat <code>{c.chatId}</code> <span class="muted small">linked {fmtTime(c.linkedAt)}</span>
                  </span>
                  <ConfirmButton
                    label="Unlink"
                    confirmLabel="Confirm unlink"
                    question={`Stop messages to chat ${c.chatId}?`}
                    danger
                    onConfirm={async () => {
                      await api("DELETE", `/notifications/telegram/chats/${encodeURIComponent(c.chatId)}`);
                      reload();
                    }}
                  />
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </Section>
  );
}
