// In-process event bus (PRODUCT.md §6 event list). Every signal, trade,
// failure and position change is published here; the SSE stream and metrics subscribe.
//
// The event map: one payload shape per event name, so a publisher cannot send a field
// the stream's readers do not expect. The shapes are written out here rather than imported from
// signals/, market/ and trading/ (which all publish): the bus depends on nothing.

type Mode = "simulation" | "live";

/** A signal as POST /trading-signals answered it. */
export interface SignalCreatedEvent {
  signal: {
    id: number;
    createdAt: string;
    updatedAt: string;
    tokenAddress: string;
    symbol: string | null;
    signalType: string;
    activationReason: string | null;
    signalStrength: number;
    source: string | null;
  };
}

interface TradeBase {
  agentId: string;
  tokenAddress: string;
  mode: Mode;
  transactionId: string;
  /** Swap signature (live) or simulation id; absent on a simulated DCA buy. */
  hash?: string;
}

/** A signal buy, a DCA buy or a sale that settled. */
type TradeExecutedEvent =
  | (TradeBase & {
      side: "buy";
      signalId: number;
      positionId: string | null;
      amountSol: string;
      tokens: string;
    })
  | (TradeBase & {
      side: "buy";
      positionId: string;
      dcaOrder: number;
      isDca: true;
      amountSol: string;
      tokens: string;
    })
  | (TradeBase & {
      side: "sell";
      positionId: string;
      /** A close's reason (`manual` for a manual sale too), or the take-profit level reached. */
      reason?: string;
      takeProfitLevel?: number;
      /** A manual sale's share of the remaining tokens (issue 44 item 5). */
      percent?: number;
      isTakeProfit: boolean;
      tokens: string;
      proceedsSol: string;
    });

/** A trade that did not happen (nothing changed), or a pending live swap that failed. */
export interface TradeFailedEvent {
  agentId: string;
  tokenAddress: string;
  side: "buy" | "sell";
  mode: Mode;
  reason: string;
  signalId?: number;
  positionId?: string;
  dcaOrder?: number;
  takeProfitLevel?: number;
  signature?: string;
  transactionId?: string | null;
}

interface PositionOpenedEvent {
  positionId: string;
  agentId: string;
  tokenAddress: string;
  tokenSymbol: string;
  amount: string;
  entryPriceSol: string;
  signalId: number;
}

type PositionUpdatedEvent =
  | { positionId: string; agentId: string; change: "peak"; peakPriceSol: string }
  | {
      positionId: string;
      agentId: string;
      change: "dca";
      dcaOrders: number;
      entryPriceSol: string;
      remainingAmount: string;
    }
  | {
      positionId: string;
      agentId: string;
      change: "take_profit";
      levelsHit: number;
      remainingAmount: string;
      realizedProfitSol: string;
    }
  /** The operator sold `percent` % of the remaining tokens (POST .../sell; issue 44 item 5). */
  | {
      positionId: string;
      agentId: string;
      change: "manual_sale";
      percent: number;
      remainingAmount: string;
      realizedProfitSol: string;
    }
  /** Its mint changed after the buy (src/trading/paused-positions.ts): `reason` is its waitingReason. */
  | { positionId: string; agentId: string; tokenAddress: string; change: "paused"; reason: string }
  | { positionId: string; agentId: string; tokenAddress: string; change: "resumed" };

interface PositionClosedEvent {
  positionId: string;
  agentId: string;
  tokenAddress: string;
  reason: string;
  historicalSwapId: string;
  profitLossSol: number;
  profitLossUsd: number;
}

/** The SOL price as GET /v1/prices/sol answers it. */
interface SolPriceEvent {
  price: string;
  lastUpdated: string;
  isStale: boolean;
  source: "priceNetwork" | "solPriceFeed" | "demo";
}

/** A webhook endpoint failing for 24 h was disabled (src/notifications/webhooks). */
interface WebhookDisabledEvent {
  webhookId: string;
  disabledAt: string;
  reason: string;
}

/** To each admin: the database has not reached its replica for a minute (docs/backups.md). */
interface ReplicationFailingEvent {
  /** The replica URL without credentials. */
  replica: string;
  failingSince: string;
  lagSeconds: number;
  message: string;
}

/** A user's daily-loss breaker tripped (src/trading/guard-rails.ts): no entries in `mode` until resumed. */
interface RiskTrippedEvent {
  mode: Mode;
  reason: string;
  at: string;
  dailyLossSol: string;
  dailyLossLimitSol: string;
}

/** POST /trading/pause or /trading/resume (or Telegram's /pauseall, /resumeall). */
interface TradingPausedEvent {
  modes: Mode[];
  at: string;
}
interface TradingResumedEvent extends TradingPausedEvent {
  /** Modes whose tripped breaker this resume cleared. */
  clearedBreakers: Mode[];
}

/** A followed wallet's transaction the watcher could not read (issue 40): passed over, not copied. */
interface WalletWatchUnreadableEvent {
  watchId: string;
  address: string;
  signature: string;
  /** `version`: a transaction version this service does not read (v1, SIMD-0296). */
  reason: "version";
  message: string;
}

/**
 * Security notices (src/composition/login-watch.ts): where the act came from, as the audit log
 * records it (the client address, trusted proxies honoured, and its user agent), and when.
 */
interface SecurityNotice {
  ip: string;
  userAgent: string | null;
  at: string;
}

/** A login from an address none of the account's logins used in the last 30 days. */
type NewLoginEvent = SecurityNotice;
/** The fifth failed attempt locked the account until `lockedUntil`. */
interface AccountLockedEvent extends SecurityNotice {
  lockedUntil: string;
}
/** POST /auth/2fa/disable: login needs the password only from now on. */
type TwoFactorDisabledEvent = SecurityNotice;

export interface EventPayloads {
  "signal.created": SignalCreatedEvent;
  "trade.executed": TradeExecutedEvent;
  "trade.failed": TradeFailedEvent;
  "position.opened": PositionOpenedEvent;
  "position.updated": PositionUpdatedEvent;
  "position.closed": PositionClosedEvent;
  "price.sol": SolPriceEvent;
  "webhook.disabled": WebhookDisabledEvent;
  "replication.failing": ReplicationFailingEvent;
  "risk.tripped": RiskTrippedEvent;
  "trading.paused": TradingPausedEvent;
  "trading.resumed": TradingResumedEvent;
  "wallet_watch.unreadable": WalletWatchUnreadableEvent;
  "auth.new_login": NewLoginEvent;
  "auth.locked": AccountLockedEvent;
  "auth.2fa_disabled": TwoFactorDisabledEvent;
}

export type EventType = keyof EventPayloads;

/** Any map of payloads by event name (tests of the transport publish their own markers). */
export type EventMap = { [K in EventType]: object };

export interface ServiceEvent {
  /** Monotonic per process; the SSE `id:` and Last-Event-ID resume point. */
  id: number;
  type: EventType;
  /** Owner of the event; null for global events (price.sol) that every user may see. */
  userId: string | null;
  time: string;
  /** The payload as the stream serializes it (its shape is EventPayloads[type]). */
  data: Record<string, unknown>;
}

export type Listener = (e: ServiceEvent) => void;

/** Events about one agent's trading: they also carry `agentName` and `tokenSymbol` (PRODUCT.md §7). */
const AGENT_EVENT_TYPES: readonly EventType[] = [
  "trade.executed",
  "trade.failed",
  "position.opened",
  "position.updated",
  "position.closed",
];

/** Names for an agent event's ids, looked up where the data lives (src/db/repositories/event-names.ts). */
export type EventNamer = (data: Record<string, unknown>) => { agentName: string | null; tokenSymbol: string | null };

export class EventBus<M extends EventMap = EventPayloads> {
  private seq = 0;
  private readonly listeners = new Set<Listener>();
  /**
   * Recent events for Last-Event-ID replay; bounded. A ring once full (`oldest` is then the index of
   * the oldest held): dropping the oldest by splice moved the whole array on every event.
   */
  private readonly recent: ServiceEvent[] = [];
  private oldest = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly keep = 1000,
    /** Adds agentName and tokenSymbol to agent events; without it they go out as published. */
    private readonly namer?: EventNamer,
  ) {}

  publish<K extends EventType>(type: K, userId: string | null, data: M[K]): ServiceEvent {
    let payload = data as Record<string, unknown>;
    if (this.namer && AGENT_EVENT_TYPES.includes(type)) {
      // A publisher's own symbol (position.opened has it) wins over the looked-up one.
      const names = this.namer(payload);
      payload = { ...payload, agentName: names.agentName, tokenSymbol: payload.tokenSymbol ?? names.tokenSymbol };
    }
    const e: ServiceEvent = {
      id: ++this.seq,
      type,
      userId,
      time: new Date(this.now()).toISOString(),
      data: payload,
    };
    if (this.recent.length < this.keep) this.recent.push(e);
    else if (this.keep > 0) {
      this.recent[this.oldest] = e;
      this.oldest = (this.oldest + 1) % this.keep;
    }
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // a broken subscriber must not break the publisher (a trade has already committed)
      }
    }
    return e;
  }

  subscribe(l: Listener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Events after `lastId`, oldest first (for SSE reconnects). */
  since(lastId: number): ServiceEvent[] {
    const ordered =
      this.oldest === 0 ? this.recent : [...this.recent.slice(this.oldest), ...this.recent.slice(0, this.oldest)];
    return ordered.filter((e) => e.id > lastId);
  }

  get lastId(): number {
    return this.seq;
  }

  /** Listeners subscribed now (an SSE stream that ended must have left). */
  get subscriberCount(): number {
    return this.listeners.size;
  }

  /** Id of the oldest event still held for replay; null when none is held. */
  get oldestId(): number | null {
    return this.recent[this.oldest]?.id ?? null;
  }
}
