import type { Bot, Context } from "grammy";
import type { Update } from "grammy/types";
import { abortableDelay } from "../../clock.ts";
import { grammy } from "../../lazy/modules.ts";
import type { Logger } from "../../logger.ts";
import type { CloseAllAnswer, CloseAllMode } from "../../trading/close-all.ts";
import { type ManualBuyAction, registerBuyCommand } from "./buy-command.ts";
import type { LinkCodes } from "./link-codes.ts";
import {
  type AgentLine,
  closeAllDoneText,
  closeAllQuestion,
  HELP_TEXT,
  NOT_LINKED_TEXT,
  PAUSED_ALL_TEXT,
  type PositionLine,
  positionsMessage,
  resumedAllText,
  statusMessage,
} from "./messages.ts";

// The Telegram bot, on grammY. Only linked chats get data: every command except
// /start and /help answers an unlinked chat with how to link, nothing more. /close asks for
// confirmation with inline buttons and then closes through the same engine path as the API
// (closeReason manual). Updates come by long polling (no public URL needed); `pollOnce()` is one
// getUpdates round, which tests drive against the fake Bot API.

interface AgentSummary {
  id: string;
  name: string;
  tradingMode: string;
  automatedTradingSimulation: boolean;
  automatedTradingLive: boolean;
}

/** What the bot may do for a linked user; wired to the agents service and the trading engine. */
export interface TelegramActions {
  agents(userId: string): AgentSummary[];
  /** off: both automation flags; on: the flag of the agent's current mode. */
  setAutomation(userId: string, agentId: string, on: boolean): void;
  openPositions(userId: string): Promise<PositionLine[]>;
  closePosition(userId: string, positionId: string): Promise<{ profitLossSol: number; profitLossUsd: number }>;
  /** /pauseall: no entries in either mode (POST /trading/pause {"mode": "all"}). */
  pauseAll(userId: string): void;
  /** /resumeall: entries again in both modes; the modes whose tripped breaker it cleared. */
  resumeAll(userId: string): string[];
  /** /closeall: how many positions it would close now, and the close (POST /trading/close-all). */
  openCount(userId: string, mode: CloseAllMode): number;
  closeAll(userId: string, mode: CloseAllMode, pause: boolean): Promise<CloseAllAnswer>;
  /** /buy: the same buy as POST /agents/:id/buy (src/trading/manual-buy.ts). */
  buy: ManualBuyAction["buy"];
}

export interface TelegramBotDeps {
  token: string;
  apiRoot: string;
  logger: Logger;
  links: LinkCodes;
  actions: TelegramActions;
}

export interface TelegramBotStatus {
  /** true after the Bot API answered, false once it refused the token, null before any answer. */
  authorized: boolean | null;
  lastError: string | null;
}

/**
 * The Bot API refuses an unknown token with 401 Unauthorized (404 Not Found for a malformed one):
 * the bot is then not authorized until a round succeeds. Other failures (network, 5xx, 409
 * conflict with another poller) say nothing about the token and keep what was known.
 */
function failedStatus(err: unknown, previous: TelegramBotStatus): TelegramBotStatus {
  const code = (err as { error_code?: unknown }).error_code;
  const description = (err as { description?: unknown }).description;
  const lastError =
    typeof code === "number"
      ? `${code}${typeof description === "string" ? ` ${description}` : ""}`
      : err instanceof Error
        ? err.message
        : String(err);
  const refused = code === 401 || code === 404;
  return { authorized: refused ? false : previous.authorized, lastError };
}

/** 5 s after the first failure, doubling to 5 minutes; a refused token waits 5 minutes at once. */
export function pollBackoffMs(failuresInARow: number, refused: boolean): number {
  if (refused) return 300_000;
  return Math.min(5_000 * 2 ** Math.max(0, failuresInARow - 1), 300_000);
}

// Callback data (at most 64 bytes): a prefix and the position id.
const CLOSE_ASK = "ca:";
const CLOSE_DO = "cd:";
const CANCEL = "cx";
const CLOSE_ALL = "xa:";
const PAUSE_CLOSE_ALL = "xp:";
const CLOSE_ALL_MODES: readonly string[] = ["simulation", "live", "all"];

export class TelegramBot {
  readonly bot: Bot;
  private offset = 0;
  private readonly log: Logger;

  constructor(private readonly d: TelegramBotDeps) {
    this.log = d.logger.child({ component: "telegram" });
    this.bot = new (grammy().Bot)(d.token, { client: { apiRoot: d.apiRoot } });
    this.register();
  }

  private userOf(ctx: Context): string | null {
    const chatId = ctx.chat?.id;
    return chatId === undefined ? null : this.d.links.userOfChat(String(chatId));
  }

  /** Wraps a handler that needs a linked chat; an unlinked one gets only the linking hint. */
  private linked(fn: (ctx: Context, userId: string) => Promise<unknown>) {
    return async (ctx: Context) => {
      const userId = this.userOf(ctx);
      if (!userId) {
        if (ctx.callbackQuery) await ctx.answerCallbackQuery({ text: "This chat is not linked." });
        else await ctx.reply(NOT_LINKED_TEXT);
        return;
      }
      await fn(ctx, userId);
    };
  }

  private register(): void {
    const b = this.bot;
    b.command("start", async (ctx) => {
      const code = (ctx.match ?? "").trim();
      if (!code) {
        await ctx.reply(this.userOf(ctx) ? `This chat is linked.\n\n${HELP_TEXT}` : NOT_LINKED_TEXT);
        return;
      }
      const userId = this.d.links.redeem(code, String(ctx.chat.id));
      if (!userId) {
        await ctx.reply("That code is unknown or has expired. Create a new one and send /start CODE again.");
        return;
      }
      this.log.info("telegram chat linked", { userId, chatId: ctx.chat.id });
      await ctx.reply(`Linked. You will get notifications here.\n\n${HELP_TEXT}`);
    });
    b.command("help", (ctx) => ctx.reply(HELP_TEXT));
    b.command(
      "unlink",
      this.linked(async (ctx) => {
        this.d.links.unlinkChat(String(ctx.chat?.id));
        await ctx.reply("Unlinked. This chat gets no more notifications.");
      }),
    );
    b.command(
      "status",
      this.linked(async (ctx, userId) => {
        const positions = await this.d.actions.openPositions(userId);
        const lines: AgentLine[] = this.d.actions.agents(userId).map((a) => ({
          name: a.name,
          tradingMode: a.tradingMode,
          automated: a.tradingMode === "live" ? a.automatedTradingLive : a.automatedTradingSimulation,
          openPositions: positions.filter((p) => p.agentName === a.name).length,
        }));
        await ctx.reply(statusMessage(lines));
      }),
    );
    b.command(
      "positions",
      this.linked(async (ctx, userId) => ctx.reply(positionsMessage(await this.d.actions.openPositions(userId)))),
    );
    b.command(
      "close",
      this.linked(async (ctx, userId) => {
        const positions = await this.d.actions.openPositions(userId);
        if (positions.length === 0) return ctx.reply("No open positions.");
        const kb = new (grammy().InlineKeyboard)();
        for (const p of positions) kb.text(`${p.tokenSymbol} (${p.agentName})`, `${CLOSE_ASK}${p.id}`).row();
        kb.text("Cancel", CANCEL);
        return ctx.reply("Which position should be closed?", { reply_markup: kb });
      }),
    );
    b.command(
      "pause",
      this.linked((ctx, userId) => this.toggle(ctx, userId, false)),
    );
    b.command(
      "resume",
      this.linked((ctx, userId) => this.toggle(ctx, userId, true)),
    );
    b.command(
      "pauseall",
      this.linked(async (ctx, userId) => {
        this.d.actions.pauseAll(userId);
        this.log.info("trading paused from telegram", { userId });
        await ctx.reply(PAUSED_ALL_TEXT);
      }),
    );
    b.command(
      "resumeall",
      this.linked(async (ctx, userId) => {
        const cleared = this.d.actions.resumeAll(userId);
        this.log.info("trading resumed from telegram", { userId, clearedBreakers: cleared });
        await ctx.reply(resumedAllText(cleared));
      }),
    );

    this.registerCloseAll();
    b.callbackQuery(
      CANCEL,
      this.linked(async (ctx) => {
        await ctx.answerCallbackQuery();
        await ctx.editMessageText("Cancelled. Nothing was closed.");
      }),
    );
    b.callbackQuery(
      new RegExp(`^${CLOSE_ASK}(.+)$`),
      this.linked(async (ctx, userId) => {
        const id = ctx.callbackQuery?.data?.slice(CLOSE_ASK.length) ?? "";
        const p = (await this.d.actions.openPositions(userId)).find((x) => x.id === id);
        await ctx.answerCallbackQuery();
        if (!p) return ctx.editMessageText("That position is no longer open.");
        const kb = new (grammy().InlineKeyboard)().text("Yes, close it", `${CLOSE_DO}${p.id}`).text("Cancel", CANCEL);
        return ctx.editMessageText(
          `Close ${p.tokenSymbol} (${p.agentName})? All ${p.amount} tokens are sold at market; P/L now ${p.profitLossSol.toFixed(4)} SOL.`,
          { reply_markup: kb },
        );
      }),
    );
    b.callbackQuery(
      new RegExp(`^${CLOSE_DO}(.+)$`),
      this.linked(async (ctx, userId) => {
        const id = ctx.callbackQuery?.data?.slice(CLOSE_DO.length) ?? "";
        await ctx.answerCallbackQuery({ text: "Closing…" });
        try {
          const r = await this.d.actions.closePosition(userId, id);
          await ctx.editMessageText(
            `Closed. P/L ${r.profitLossSol >= 0 ? "+" : ""}${r.profitLossSol.toFixed(4)} SOL (${r.profitLossUsd.toFixed(2)} USD).`,
          );
        } catch (err) {
          await ctx.editMessageText(`Could not close: ${err instanceof Error ? err.message : String(err)}`);
        }
      }),
    );
    registerBuyCommand(b, (fn) => this.linked(fn), this.d.actions, this.log);
    b.on(
      "message",
      this.linked((ctx) => ctx.reply(`Unknown command.\n\n${HELP_TEXT}`)),
    );
  }

  /** /closeall and its confirmation buttons (the same verb as POST /trading/close-all). */
  private registerCloseAll(): void {
    const b = this.bot;
    b.command(
      "closeall",
      this.linked((ctx, userId) => this.askCloseAll(ctx, userId)),
    );
    b.callbackQuery(
      new RegExp(`^(${CLOSE_ALL}|${PAUSE_CLOSE_ALL})(simulation|live|all)$`),
      this.linked(async (ctx, userId) => {
        const data = ctx.callbackQuery?.data ?? "";
        const pause = data.startsWith(PAUSE_CLOSE_ALL);
        const mode = data.slice(CLOSE_ALL.length) as CloseAllMode;
        await ctx.answerCallbackQuery({ text: "Closing…" });
        const answer = await this.d.actions.closeAll(userId, mode, pause);
        this.log.info("close-all from telegram", { userId, mode, pause, positions: answer.results.length });
        await ctx.editMessageText(closeAllDoneText(answer));
      }),
    );
  }

  /** /closeall [mode]: the question with the count, and the buttons; nothing closes before one is pressed. */
  private async askCloseAll(ctx: Context, userId: string): Promise<unknown> {
    const mode = (typeof ctx.match === "string" ? ctx.match : "").trim().toLowerCase() || "all";
    if (!CLOSE_ALL_MODES.includes(mode)) return ctx.reply("Usage: /closeall [simulation|live|all]");
    const count = this.d.actions.openCount(userId, mode as CloseAllMode);
    if (count === 0) return ctx.reply(`No open positions${mode === "all" ? "" : ` in ${mode} mode`}.`);
    const kb = new (grammy().InlineKeyboard)()
      .text(`Yes, close ${count}`, `${CLOSE_ALL}${mode}`)
      .row()
      .text("Pause and close all", `${PAUSE_CLOSE_ALL}${mode}`)
      .row()
      .text("Cancel", CANCEL);
    return ctx.reply(closeAllQuestion(count, mode as CloseAllMode), { reply_markup: kb });
  }

  /** /pause and /resume: the named agent (name or id), or every agent without an argument. */
  private async toggle(ctx: Context, userId: string, on: boolean): Promise<unknown> {
    const arg = (typeof ctx.match === "string" ? ctx.match : "").trim().toLowerCase();
    const agents = this.d.actions.agents(userId);
    const chosen = arg && arg !== "all" ? agents.filter((a) => a.id === arg || a.name.toLowerCase() === arg) : agents;
    if (chosen.length === 0) return ctx.reply(arg ? `No agent named "${arg}".` : "No agents yet.");
    for (const a of chosen) this.d.actions.setAutomation(userId, a.id, on);
    this.log.info(on ? "automation resumed from telegram" : "automation paused from telegram", {
      userId,
      agents: chosen.map((a) => a.id),
    });
    return ctx.reply(
      `${on ? "Resumed" : "Paused"} automated trading of ${chosen.length === agents.length && !arg ? "all agents" : chosen.map((a) => a.name).join(", ")}.`,
    );
  }

  /** One update, through the handlers; a handler failure is logged, never thrown (the poll goes on). */
  async handle(update: Update): Promise<void> {
    try {
      if (!this.bot.isInited()) await this.bot.init();
      await this.bot.handleUpdate(update);
    } catch (err) {
      this.log.warn("telegram update failed", { error: err instanceof Error ? err.message : String(err) });
    }
  }

  private state: TelegramBotStatus = { authorized: null, lastError: null };

  /** What the Bot API said last (PRODUCT.md §7: GET /notifications/telegram shows it). */
  status(): TelegramBotStatus {
    return { ...this.state };
  }

  /** One getUpdates round (long polling for `timeoutSeconds`); returns how many updates were handled. */
  async pollOnce(timeoutSeconds = 0, signal?: AbortSignal): Promise<number> {
    let updates: Update[];
    try {
      updates = await this.bot.api.getUpdates(
        { offset: this.offset, timeout: timeoutSeconds, allowed_updates: ["message", "callback_query"] },
        // grammY types its signal with the abort-controller polyfill; the runtime's is the same shape.
        signal as Parameters<typeof this.bot.api.getUpdates>[1],
      );
    } catch (err) {
      if (!signal?.aborted) {
        const next = failedStatus(err, this.state);
        // The token is a secret: never in a status the API shows (nor a log line built from it).
        this.state = { ...next, lastError: next.lastError?.replaceAll(this.d.token, "***") ?? null };
      }
      throw err;
    }
    this.state = { authorized: true, lastError: null };
    for (const u of updates) {
      this.offset = u.update_id + 1;
      await this.handle(u);
    }
    return updates.length;
  }

  private running: AbortController | null = null;
  private loopDone: Promise<void> | null = null;

  /**
   * serve(): long polling until stop(). A failed round waits before the next (a real timer: a
   * ManualClock would spin), longer after each failure in a row (pollBackoffMs); the same error
   * again is logged at debug level, so a refused token does not fill the log.
   */
  start(): void {
    if (this.running) return;
    const ctl = new AbortController();
    this.running = ctl;
    this.loopDone = (async () => {
      let failures = 0;
      let lastLogged: string | null = null;
      while (!ctl.signal.aborted) {
        try {
          await this.pollOnce(30, ctl.signal);
          failures = 0;
          lastLogged = null;
        } catch (err) {
          if (ctl.signal.aborted) break;
          failures += 1;
          const error = this.state.lastError ?? String(err);
          const wait = pollBackoffMs(failures, this.state.authorized === false);
          const fields = { error, authorized: this.state.authorized, retryInSeconds: wait / 1000 };
          if (error !== lastLogged) this.log.warn("telegram polling failed", fields);
          else this.log.debug("telegram polling failed", fields);
          lastLogged = error;
          await abortableDelay(wait, ctl.signal);
        }
      }
    })();
  }

  async stop(): Promise<void> {
    this.running?.abort();
    await this.loopDone;
    this.running = null;
  }

  async send(chatId: string, text: string, silent: boolean): Promise<void> {
    await this.bot.api.sendMessage(chatId, text, { disable_notification: silent });
  }
}
