import type { ServiceEvent } from "../../events/bus.ts";
import type { CloseAllAnswer, CloseAllMode } from "../../trading/close-all.ts";
import type { NotificationKind } from "../preferences.ts";

// Telegram message texts, plain text (no parse_mode, so nothing needs escaping). Pure
// functions of an event and the names the notifier looked up.

export interface Names {
  agentName: string | null;
  tokenSymbol: string | null;
}

export interface PositionLine {
  id: string;
  agentName: string;
  tokenSymbol: string;
  tokenAddress: string;
  amount: number;
  entryPriceSol: number;
  currentPriceSol: number;
  profitLossSol: number;
  profitLossPercent: number;
}

export interface AgentLine {
  name: string;
  tradingMode: string;
  automated: boolean;
  openPositions: number;
}

export interface DailySummary {
  since: string;
  until: string;
  closedTrades: number;
  wins: number;
  losses: number;
  realizedProfitLossSol: string;
  realizedProfitLossUsd: string;
  openPositions: number;
  unrealizedProfitLossSol: string;
}

const shortAddress = (a: string) => (a.length > 12 ? `${a.slice(0, 4)}…${a.slice(-4)}` : a);
const signed = (n: number | string, digits = 4) => {
  const v = typeof n === "string" ? Number(n) : n;
  return `${v >= 0 ? "+" : ""}${v.toFixed(digits)}`;
};
const str = (v: unknown) => (typeof v === "string" || typeof v === "number" ? String(v) : "");

function token(e: ServiceEvent, n: Names): string {
  const sym = n.tokenSymbol ?? (typeof e.data.tokenSymbol === "string" ? e.data.tokenSymbol : null);
  return sym || shortAddress(str(e.data.tokenAddress));
}
const agent = (n: Names) => (n.agentName ? ` (${n.agentName})` : "");

const CLOSE_REASONS: Record<string, string> = {
  manual: "manual close",
  stop_loss: "stop-loss",
  stale_trade: "stale trade",
  take_profit: "take-profit",
  signal: "exit signal",
};

/** The notification kind of an event, or null when it is not one the bot tells about. */
export function kindOf(e: ServiceEvent): NotificationKind | null {
  switch (e.type) {
    case "position.opened":
      return "position.opened";
    case "position.closed":
      return "position.closed";
    case "trade.failed":
      return "trade.failed";
    case "webhook.disabled":
      return "webhook.disabled";
    case "replication.failing":
      return "replication.failing";
    case "position.updated":
      if (e.data.change === "take_profit") return "position.take_profit";
      if (e.data.change === "dca") return "position.dca";
      return null;
    default:
      return null;
  }
}

export function eventMessage(e: ServiceEvent, n: Names): string | null {
  switch (kindOf(e)) {
    case "position.opened":
      return `🟢 Opened ${token(e, n)}${agent(n)}\nBought ${str(e.data.amount)} at ${str(e.data.entryPriceSol)} SOL each`;
    case "position.take_profit":
      return `🎯 Take-profit level ${str(e.data.levelsHit)} on ${token(e, n)}${agent(n)}\nRemaining ${str(e.data.remainingAmount)}, realized ${signed(str(e.data.realizedProfitSol))} SOL`;
    case "position.dca":
      return `➕ DCA order ${str(e.data.dcaOrders)} on ${token(e, n)}${agent(n)}\nAverage entry now ${str(e.data.entryPriceSol)} SOL, holding ${str(e.data.remainingAmount)}`;
    case "position.closed": {
      const reason = CLOSE_REASONS[str(e.data.reason)] ?? str(e.data.reason);
      return `🔴 Closed ${token(e, n)}${agent(n)} by ${reason}\nP/L ${signed(str(e.data.profitLossSol))} SOL (${signed(str(e.data.profitLossUsd), 2)} USD)`;
    }
    case "trade.failed":
      return `⚠️ ${str(e.data.side) === "sell" ? "Sale" : "Buy"} of ${token(e, n)}${agent(n)} failed\n${str(e.data.reason)}`;
    case "webhook.disabled":
      return `🔕 A webhook endpoint was disabled after failing for 24 hours.\n${str(e.data.reason)}\nRe-enable it once it answers again.`;
    case "replication.failing":
      return `🗄️ Backups: the database has not reached its replica ${str(e.data.replica)} since ${str(e.data.failingSince).slice(0, 16).replace("T", " ")} UTC (${str(e.data.lagSeconds)} s behind).\n${str(e.data.message)}\nTrading goes on; check the replica's reachability and credentials.`;
    default:
      return null;
  }
}

export function positionsMessage(positions: PositionLine[]): string {
  if (positions.length === 0) return "No open positions.";
  return [
    `Open positions (${positions.length}):`,
    ...positions.map(
      (p, i) =>
        `${i + 1}. ${p.tokenSymbol || shortAddress(p.tokenAddress)} (${p.agentName}): ${p.amount} at ${p.entryPriceSol} SOL, now ${p.currentPriceSol} SOL, P/L ${signed(p.profitLossSol)} SOL (${signed(p.profitLossPercent, 2)}%)`,
    ),
  ].join("\n");
}

export function statusMessage(agents: AgentLine[]): string {
  if (agents.length === 0) return "No agents yet.";
  return [
    `Agents (${agents.length}):`,
    ...agents.map(
      (a) =>
        `• ${a.name}: ${a.tradingMode}, automation ${a.automated ? "on" : "paused"}, ${a.openPositions} open position${a.openPositions === 1 ? "" : "s"}`,
    ),
  ].join("\n");
}

export function summaryMessage(s: DailySummary): string {
  return [
    `📊 Daily summary (${s.since.slice(0, 16).replace("T", " ")} – ${s.until.slice(0, 16).replace("T", " ")} UTC)`,
    `Closed trades: ${s.closedTrades} (${s.wins} won, ${s.losses} lost)`,
    `Realized P/L: ${signed(s.realizedProfitLossSol)} SOL (${signed(s.realizedProfitLossUsd, 2)} USD)`,
    `Open positions: ${s.openPositions}, unrealized ${signed(s.unrealizedProfitLossSol)} SOL`,
  ].join("\n");
}

export const HELP_TEXT = [
  "Commands:",
  "/status – your agents and their automation",
  "/positions – open positions with P/L",
  "/close – close a position (asks for confirmation)",
  "/buy <mint> <sol> [agent] – buy by hand, through the same checks as an automated entry (asks for confirmation)",
  "/pause [agent] – pause automated trading of one agent, or all",
  "/resume [agent] – resume automated trading of one agent, or all",
  "/pauseall – no buys in any mode: entries, copied buys, DCA (exits, stop-losses and /close go on)",
  "/resumeall – entries again in every mode; clears a tripped daily loss limit",
  "/closeall [simulation|live|all] – close every open position (asks for confirmation)",
  "/unlink – stop notifications to this chat",
  "/help – this list",
].join("\n");

export const PAUSED_ALL_TEXT =
  "Paused trading in simulation and live mode: no buys until /resumeall — new entries, copied buys and DCA orders are held. Stop-losses, take-profits, exit signals and /close keep working.";

export function resumedAllText(clearedBreakers: readonly string[]): string {
  const cleared = clearedBreakers.length
    ? ` The daily loss breaker of ${clearedBreakers.join(" and ")} mode was cleared.`
    : "";
  return `Resumed trading in simulation and live mode.${cleared}`;
}

/** Alerts go out whatever the preferences and quiet hours say (docs/decisions/operator-experience-iv.md). */
export function alertMessage(e: ServiceEvent): string | null {
  if (e.type === "position.updated") return pauseAlert(e);
  if (e.type.startsWith("auth.")) return securityAlert(e);
  if (e.type !== "risk.tripped") return null;
  return `🛑 Daily loss limit reached in ${str(e.data.mode)} mode: ${str(e.data.reason)}.\nNo new entries in ${str(e.data.mode)} mode until you resume (/resumeall or POST /api/v1/trading/resume). Exits and stop-losses keep working.`;
}

const utc = (iso: unknown) => `${str(iso).slice(0, 16).replace("T", " ")} UTC`;

/**
 * The security notices (docs/decisions/box-on-the-internet.md): alerts, because the one who would
 * mute them is whoever got in. Each says where it came from and what to do if it was not the user.
 */
function securityAlert(e: ServiceEvent): string | null {
  const from = `${str(e.data.ip)}${e.data.userAgent ? ` (${str(e.data.userAgent)})` : ""}`;
  switch (e.type) {
    case "auth.new_login":
      return `🔑 New login to your account from ${from} at ${utc(e.data.at)}: an address none of your logins used in the last 30 days.\nIf this was not you, someone has your password: /pauseall stops new buys, and the audit log (GET /api/v1/audit-log) shows what was done.`;
    case "auth.locked":
      return `🔒 Your account is locked until ${utc(e.data.lockedUntil)} after five failed logins, the last from ${from}.\nIf this was not you, someone is guessing your password. On the box, trading-agent unlock --email EMAIL lifts the lock.`;
    case "auth.2fa_disabled":
      return `⚠️ Two-factor login was turned off from ${from} at ${utc(e.data.at)}: logins now need the password only.\nIf this was not you, someone is logged in as you: turn it on again, and /pauseall stops new buys.`;
    default:
      return null;
  }
}

/** A position paused by its mint, or no longer: money held in a token someone else can lock. */
function pauseAlert(e: ServiceEvent): string | null {
  const names = { agentName: str(e.data.agentName) || null, tokenSymbol: str(e.data.tokenSymbol) || null };
  const what = `${token(e, names)}${agent(names)}`;
  if (e.data.change === "paused")
    return `⏸️ Position in ${what} paused: its mint changed after the buy.\n${str(e.data.reason)}.\nYou can close it yourself (dashboard, /close).`;
  if (e.data.change === "resumed") return `▶️ Position in ${what} no longer paused: its mint no longer blocks it.`;
  return null;
}

export const NOT_LINKED_TEXT =
  "This chat is not linked to an account. Create a link code (dashboard, or POST /api/v1/notifications/telegram/link) and send /start CODE here.";

const modeWords = (mode: CloseAllMode) => (mode === "all" ? "simulation and live" : mode);

/** /closeall's question: the mode and the count, before anything is sold. */
export function closeAllQuestion(count: number, mode: CloseAllMode): string {
  return `Close all ${count} open position${count === 1 ? "" : "s"} (${modeWords(mode)})? Each is sold at market through the manual close.`;
}

/** What /closeall did: the pause, then per status; each failure with its reason. */
export function closeAllDoneText(a: CloseAllAnswer): string {
  const n = (status: string) => a.results.filter((r) => r.status === status);
  const lines = [
    `${a.paused ? `Paused entries in ${modeWords(a.mode)} mode. ` : ""}Closed ${n("closed").length} of ${a.results.length} position${a.results.length === 1 ? "" : "s"}.`,
  ];
  if (n("pending").length) lines.push(`Awaiting the chain: ${n("pending").length} (reconciled by signature).`);
  if (n("already_closed").length) lines.push(`Already closed by another exit: ${n("already_closed").length}.`);
  for (const f of n("failed")) lines.push(`Not closed: ${f.tokenSymbol || shortAddress(f.tokenAddress)}: ${f.error}`);
  return lines.join("\n");
}
