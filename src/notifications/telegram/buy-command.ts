import type { Bot, Context } from "grammy";
import { grammy } from "../../lazy/modules.ts";
import type { Logger } from "../../logger.ts";

// Telegram's /buy <mint> <sol> [agent] (issue 44 item 5): a confirmation naming the agent, its
// mode, the token and the amount, then the same buy as POST /agents/:id/buy (the engine's
// openPosition through the guard rails' gate, recorded as manual). The request waits in memory
// under a short id (callback data holds at most 64 bytes) until confirmed or cancelled; a restart
// forgets it, and pressing then says so.

const BUY_USAGE = "Usage: /buy <token mint> <SOL amount> [agent name]";

export interface ManualBuyAction {
  agents(userId: string): Array<{ id: string; name: string; tradingMode: string }>;
  buy(
    userId: string,
    agentId: string,
    tokenAddress: string,
    amountSol: string,
  ): Promise<{ status: string; tradingMode: string }>;
}

type Linked = (fn: (ctx: Context, userId: string) => Promise<unknown>) => (ctx: Context) => Promise<void>;

interface PendingBuy {
  userId: string;
  agentId: string;
  agentName: string;
  tokenAddress: string;
  amountSol: string;
}

const BUY_DO = "bd:";
const BUY_CANCEL = "bx:";
const MINT = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const SOL = /^\d+(\.\d{1,9})?$/;
/** Pending confirmations kept at most (the oldest go first). */
const KEPT = 100;

/** Parses `/buy`'s arguments; a string is what to answer instead. */
function parseBuy(
  args: string,
  agents: Array<{ id: string; name: string; tradingMode: string }>,
): { agent: { id: string; name: string; tradingMode: string }; tokenAddress: string; amountSol: string } | string {
  const [mint, sol, ...rest] = args.trim().split(/\s+/);
  if (!mint || !sol || !MINT.test(mint) || !SOL.test(sol) || Number(sol) <= 0) return BUY_USAGE;
  const name = rest.join(" ").toLowerCase();
  const agent = name
    ? agents.find((a) => a.name.toLowerCase() === name || a.id === name)
    : agents.length === 1
      ? agents[0]
      : undefined;
  if (!agent) {
    if (agents.length === 0) return "No agents yet.";
    return name
      ? `No agent named "${name}".`
      : `Which agent? Add its name: ${agents.map((a) => a.name).join(", ")}.\n${BUY_USAGE}`;
  }
  return { agent, tokenAddress: mint, amountSol: sol };
}

export function registerBuyCommand(b: Bot, linked: Linked, actions: ManualBuyAction, log: Logger): void {
  const pending = new Map<string, PendingBuy>();
  b.command(
    "buy",
    linked(async (ctx, userId) => {
      const parsed = parseBuy(typeof ctx.match === "string" ? ctx.match : "", actions.agents(userId));
      if (typeof parsed === "string") return ctx.reply(parsed);
      const id = crypto.randomUUID().slice(0, 8);
      pending.set(id, { userId, agentId: parsed.agent.id, agentName: parsed.agent.name, ...parsed });
      if (pending.size > KEPT) pending.delete(pending.keys().next().value as string);
      const kb = new (grammy().InlineKeyboard)()
        .text("Yes, buy", `${BUY_DO}${id}`)
        .text("Cancel", `${BUY_CANCEL}${id}`);
      return ctx.reply(
        `Buy ${parsed.amountSol} SOL of ${parsed.tokenAddress} with ${parsed.agent.name} (${parsed.agent.tradingMode} mode)? The same checks as an automated entry apply.`,
        { reply_markup: kb },
      );
    }),
  );
  b.callbackQuery(
    new RegExp(`^${BUY_CANCEL}(.+)$`),
    linked(async (ctx) => {
      pending.delete(ctx.callbackQuery?.data?.slice(BUY_CANCEL.length) ?? "");
      await ctx.answerCallbackQuery();
      await ctx.editMessageText("Cancelled. Nothing was bought.");
    }),
  );
  b.callbackQuery(
    new RegExp(`^${BUY_DO}(.+)$`),
    linked(async (ctx, userId) => {
      const id = ctx.callbackQuery?.data?.slice(BUY_DO.length) ?? "";
      const p = pending.get(id);
      // Another user's request (a chat relinked meanwhile) is as unknown as a forgotten one.
      if (!p || p.userId !== userId) {
        await ctx.answerCallbackQuery();
        return ctx.editMessageText("That request is no longer pending; send /buy again.");
      }
      pending.delete(id);
      await ctx.answerCallbackQuery({ text: "Buying…" });
      try {
        const r = await actions.buy(userId, p.agentId, p.tokenAddress, p.amountSol);
        log.info("manual buy from telegram", { userId, agentId: p.agentId, tokenAddress: p.tokenAddress });
        return ctx.editMessageText(
          r.status === "opened"
            ? `Bought ${p.amountSol} SOL of ${p.tokenAddress} with ${p.agentName} (${r.tradingMode} mode).`
            : `Sent: the buy awaits the chain (${p.agentName}, ${r.tradingMode} mode).`,
        );
      } catch (err) {
        return ctx.editMessageText(`Not bought: ${err instanceof Error ? err.message : String(err)}`);
      }
    }),
  );
}
