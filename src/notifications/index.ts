import type { AgentService } from "../agents/agent-service.ts";
import type { OpenPositionSource } from "../agents/open-positions.ts";
import { computePerformance } from "../agents/performance.ts";
import type { AuditLog } from "../audit/audit-log.ts";
import type { AuditAction } from "../audit/audit-shape.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { NotificationPreferencesRepository } from "../db/repositories/notification-preferences.ts";
import type { PositionRepository } from "../db/repositories/positions.ts";
import { TelegramRepository } from "../db/repositories/telegram.ts";
import { WebhookRepository } from "../db/repositories/webhooks.ts";
import type { EventBus, ServiceEvent } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import { Big, decStr } from "../money.ts";
import { closeAllDetails, closeAllPositions, positionsToClose } from "../trading/close-all.ts";
import type { GuardRails } from "../trading/guard-rails.ts";
import { type ManualBuys, manualBuyDetails } from "../trading/manual-buy.ts";
import type { TradingEngine } from "../trading/trading-engine.ts";
import { NotificationPreferencesService } from "./preferences.ts";
import { SecretBox } from "./secret-box.ts";
import { type TelegramActions, TelegramBot } from "./telegram/bot.ts";
import { LinkCodes } from "./telegram/link-codes.ts";
import type { DailySummary, PositionLine } from "./telegram/messages.ts";
import { TelegramNotifier } from "./telegram/notifier.ts";
import { WebhookDeliveryWorker } from "./webhooks/delivery-worker.ts";
import { FetchWebhookSender, type WebhookSender } from "./webhooks/http-sender.ts";
import { assertSafeWebhookUrl, dnsResolver, type Resolver } from "./webhooks/ssrf-guard.ts";
import { WebhookService } from "./webhooks/webhook-service.ts";

// Notifications out, wired once from createServices: webhooks (service + delivery
// worker on the event bus), preferences, and the Telegram bot when TELEGRAM_BOT_TOKEN is set.
// Nothing polls or sends until serve() runs the start hooks; tests call tick()/pollOnce().

export interface NotificationDeps {
  config: Config;
  database: DatabaseHandle;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  /** Root of the key that seals webhook secrets (the JWT secret; see secret-box.ts). */
  sealingSecret: Uint8Array;
  agents: AgentService;
  openPositions: OpenPositionSource;
  positions: PositionRepository;
  engine: TradingEngine;
  guardRails: GuardRails;
  /** Telegram links and the bot's changes are audited (src/audit/audit-log.ts). */
  audit: AuditLog;
  /** Telegram's /buy (src/trading/manual-buy.ts). */
  manual: ManualBuys;
}

export interface NotificationOptions {
  /** DNS resolution for the SSRF guard (tests: a fixed map). */
  resolver?: Resolver;
  sender?: WebhookSender;
}

export interface Notifications {
  webhooks: WebhookService;
  webhookWorker: WebhookDeliveryWorker;
  preferences: NotificationPreferencesService;
  /** null when TELEGRAM_BOT_TOKEN is not set. */
  telegram: { links: LinkCodes; bot: TelegramBot; notifier: TelegramNotifier } | null;
  start(): void;
  stop(): Promise<void>;
}

export function createNotifications(d: NotificationDeps, opts: NotificationOptions = {}): Notifications {
  const resolver = opts.resolver ?? dnsResolver;
  const guard = (url: string) => assertSafeWebhookUrl(url, d.config.WEBHOOK_ALLOW_PRIVATE_URLS, resolver);
  const box = new SecretBox(d.sealingSecret, "webhook-secrets");
  const repo = new WebhookRepository(d.database);
  const webhookWorker = new WebhookDeliveryWorker({
    repo,
    clock: d.clock,
    logger: d.logger,
    events: d.events,
    box,
    sender: opts.sender ?? new FetchWebhookSender(d.config.WEBHOOK_TIMEOUT_SECONDS * 1000),
    guard,
    maxInFlight: d.config.WEBHOOK_MAX_IN_FLIGHT,
  });
  webhookWorker.attach();
  const webhooks = new WebhookService({ repo, clock: d.clock, box, worker: webhookWorker, guard });
  const preferences = new NotificationPreferencesService(new NotificationPreferencesRepository(d.database), d.clock);
  const telegram = d.config.TELEGRAM_BOT_TOKEN ? createTelegram(d, d.config.TELEGRAM_BOT_TOKEN, preferences) : null;
  return {
    webhooks,
    webhookWorker,
    preferences,
    telegram,
    start() {
      webhookWorker.start();
      telegram?.bot.start();
      telegram?.notifier.start();
    },
    async stop() {
      await telegram?.bot.stop();
      await telegram?.notifier.stop();
      await webhookWorker.stop();
    },
  };
}

const agentsOfUser = (d: NotificationDeps, userId: string) => d.agents.list(userId, { limit: 1000, offset: 0 });

/** The user's open positions as Telegram's /positions lists them. */
async function openPositionLines(d: NotificationDeps, userId: string): Promise<PositionLine[]> {
  const names = new Map(agentsOfUser(d, userId).map((a) => [a.id, a.name]));
  const views = await d.openPositions.listOpen({ agentIds: [...names.keys()] });
  return views.map((p) => ({
    id: p.id,
    agentName: names.get(p.agentId) ?? "",
    tokenSymbol: p.tokenSymbol,
    tokenAddress: p.tokenAddress,
    amount: p.takeProfit.remainingAmount,
    entryPriceSol: p.purchase.priceNative,
    currentPriceSol: p.current.priceNative,
    profitLossSol: p.profitLoss.native,
    profitLossPercent: p.profitLoss.percent,
  }));
}

function createTelegram(d: NotificationDeps, token: string, prefs: NotificationPreferencesService) {
  const repo = new TelegramRepository(d.database);
  const links = new LinkCodes(repo, d.clock, d.audit);
  const audited = (userId: string, action: AuditAction, target: string | null, details?: Record<string, unknown>) =>
    d.audit.record({ userId, action, actor: "telegram", target, details });
  const agentsOf = (userId: string) => agentsOfUser(d, userId);
  const actions: TelegramActions = {
    agents: agentsOf,
    setAutomation(userId, agentId, on) {
      const a = d.agents.get(userId, agentId);
      d.agents.update(
        userId,
        agentId,
        on
          ? a.tradingMode === "live"
            ? { automatedTradingLive: true }
            : { automatedTradingSimulation: true }
          : { automatedTradingSimulation: false, automatedTradingLive: false },
      );
    },
    openPositions: (userId) => openPositionLines(d, userId),
    // The same path as POST /agent-positions/:id/close: the engine's close under the position lock.
    async closePosition(userId, positionId) {
      const closed = await d.engine.closePosition(positionId, "manual", { userId });
      audited(userId, "position.closed_manually", positionId);
      return closed;
    },
    // The same buy as POST /agents/:id/buy: the engine's openPosition through the gate, recorded as manual.
    async buy(userId, agentId, tokenAddress, amountSol) {
      const order = { tokenAddress, amountSol };
      const { bought } = await d.manual.buy(userId, agentId, order);
      audited(userId, "position.bought_manually", bought.positionId, manualBuyDetails(agentId, order, bought));
      return bought;
    },
    // The same switches as POST /trading/pause and /trading/resume with {"mode": "all"}.
    pauseAll(userId) {
      d.guardRails.pause(userId, "all");
      audited(userId, "trading.paused", "all");
    },
    resumeAll(userId) {
      const before = d.guardRails.status(userId);
      d.guardRails.resume(userId, "all");
      audited(userId, "trading.resumed", "all");
      return (["simulation", "live"] as const).filter((m) => before[m].tripped !== null);
    },
    // The same verb as POST /trading/close-all.
    openCount: (userId, mode) => positionsToClose(d, userId, { mode }).length,
    async closeAll(userId, mode, pause) {
      const answer = await closeAllPositions(d, userId, { mode, pause });
      audited(userId, "trading.close_all", mode, closeAllDetails({ mode, pause }, answer));
      return answer;
    },
  };
  const bot = new TelegramBot({
    token,
    apiRoot: d.config.TELEGRAM_API_URL,
    logger: d.logger,
    links,
    actions,
  });
  const names = (e: ServiceEvent) => {
    const agentId = typeof e.data.agentId === "string" ? e.data.agentId : null;
    const positionId = typeof e.data.positionId === "string" ? e.data.positionId : null;
    let agentName: string | null = null;
    if (agentId && e.userId) {
      try {
        agentName = d.agents.get(e.userId, agentId).name;
      } catch {
        agentName = null;
      }
    }
    return { agentName, tokenSymbol: positionId ? (d.positions.byId(positionId)?.tokenSymbol ?? null) : null };
  };
  const summary = async (userId: string, since: string, until: string): Promise<DailySummary> => {
    const s = {
      closedTrades: 0,
      wins: 0,
      losses: 0,
      pl: new Big(0),
      plUsd: new Big(0),
      open: 0,
      unrealized: new Big(0),
    };
    for (const a of agentsOf(userId)) {
      const p = await computePerformance(d.database, d.openPositions, a.id, { startDate: since, endDate: until });
      s.closedTrades += p.totalTrades;
      s.wins += p.wins;
      s.losses += p.losses;
      s.pl = s.pl.plus(p.realizedProfitLossSol);
      s.plUsd = s.plUsd.plus(p.realizedProfitLossUsd);
      s.open += p.openPositions;
      s.unrealized = s.unrealized.plus(p.unrealizedProfitLossSol);
    }
    return {
      since,
      until,
      closedTrades: s.closedTrades,
      wins: s.wins,
      losses: s.losses,
      realizedProfitLossSol: decStr(s.pl),
      realizedProfitLossUsd: decStr(s.plUsd),
      openPositions: s.open,
      unrealizedProfitLossSol: decStr(s.unrealized),
    };
  };
  const notifier = new TelegramNotifier({ bot, repo, prefs, clock: d.clock, logger: d.logger, names, summary });
  notifier.attach(d.events);
  return { links, bot, notifier };
}
