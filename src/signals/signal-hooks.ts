import { randomBytes } from "node:crypto";
import { sha256Hex } from "../auth/hashing.ts";
import { type Clock, isoNow } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { type DeliveryRow, SignalHookRepository, type SignalHookRow } from "../db/repositories/signal-hooks.ts";
import { ConflictError, NotFoundError, ValidationError } from "../errors.ts";
import { Counter, type Registry } from "../metrics/prom.ts";
import type { SignalIntake } from "./signal-intake.ts";
import type { Signal, SignalInput, SignalService } from "./signal-service.ts";

// Signal hooks (PRODUCT.md §4, docs/decisions/signal-hooks.md): a URL that carries its own secret,
// for senders that cannot set a header (TradingView alerts). The token is shown once, at creation;
// only its SHA-256 digest is stored, as an API key's. A delivery's signal goes through the same
// intake as POST /trading-signals (group commit, queue), so the answer never waits for a trade.

export const HOOKS_PATH = "/api/v1/hooks";
/** The same body (or alertId) again within this answers with the first signal and stores nothing. */
const DUPLICATE_WINDOW_MS = 10 * 60_000;
/** Deliveries kept per hook (the dashboard's "last deliveries"). */
const DELIVERIES_KEPT = 100;
const MAX_HOOKS_PER_USER = 50;

export interface HookInput {
  name: string;
  source?: string;
  allowedIps?: string[];
  tokens?: Record<string, string>;
}

export interface SignalHook {
  id: string;
  name: string;
  source: string;
  allowedIps: string[];
  tokens: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

/** A hook found by its token: deliveries carry no other sign of whose it is. */
export type OwnedHook = SignalHook & { userId: string };

export interface HookDelivery {
  receivedAt: string;
  status: number;
  error: string | null;
  duplicate: boolean;
  signal: Pick<Signal, "id" | "tokenAddress" | "symbol" | "signalType" | "signalStrength"> | null;
}

/** What a delivery is after its body was read: the signal and what makes it the same as another. */
export interface ParsedDelivery {
  input: SignalInput;
  bodyHash: string;
  alertId: string | null;
}

/** `whk_` + 43 base64url characters: 256 bits from the CSPRNG, safe in a URL path as is. */
const generateHookToken = (): string => `whk_${randomBytes(32).toString("base64url")}`;

/** Symbols are matched in any case (TradingView's {{ticker}} is upper case, a person may type lower). */
const symbolKey = (symbol: string) => symbol.trim().toUpperCase();

function toHook(r: SignalHookRow): SignalHook {
  return {
    id: r.id,
    name: r.name,
    source: r.source,
    allowedIps: JSON.parse(r.allowedIps) as string[],
    tokens: JSON.parse(r.tokens) as Record<string, string>,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

function toDelivery(r: DeliveryRow): HookDelivery {
  const signal =
    r.signalId !== null && r.tokenAddress !== null
      ? {
          id: r.signalId,
          tokenAddress: r.tokenAddress,
          symbol: r.symbol,
          signalType: r.signalType as string,
          signalStrength: r.signalStrength as number,
        }
      : null;
  return { receivedAt: r.receivedAt, status: r.status, error: r.error, duplicate: r.duplicate, signal };
}

const normalisedTokens = (tokens: Record<string, string>) =>
  Object.fromEntries(Object.entries(tokens).map(([symbol, mint]) => [symbolKey(symbol), mint]));

export class SignalHookService {
  private readonly rows: SignalHookRepository;
  /** Deliveries per hook id and answer (PRODUCT.md §6); never labelled with the token. */
  private readonly deliveries: Counter<"hook_id" | "status">;

  constructor(
    database: DatabaseHandle,
    private readonly d: {
      clock: Clock;
      intake: SignalIntake;
      signals: SignalService;
      registry: Registry;
      /** PUBLIC_BASE_URL: the hook's url is absolute when set, a path otherwise. */
      baseUrl: string;
    },
  ) {
    this.rows = new SignalHookRepository(database);
    this.deliveries = new Counter({
      name: "signal_hook_deliveries_total",
      help: "Deliveries to signal hooks by hook id and HTTP status answered (hook_id none: no hook has that token).",
      labelNames: ["hook_id", "status"] as const,
      registers: [d.registry],
    });
  }

  create(userId: string, input: HookInput): SignalHook & { url: string; token: string } {
    if (this.rows.countOf(userId) >= MAX_HOOKS_PER_USER)
      throw new ValidationError(`At most ${MAX_HOOKS_PER_USER} signal hooks per user`);
    const token = generateHookToken();
    const now = isoNow(this.d.clock);
    const row = {
      id: crypto.randomUUID(),
      userId,
      name: input.name,
      source: input.source ?? `hook:${input.name}`,
      tokenHash: sha256Hex(token),
      allowedIps: JSON.stringify(input.allowedIps ?? []),
      tokens: JSON.stringify(normalisedTokens(input.tokens ?? {})),
      createdAt: now,
      updatedAt: now,
    };
    this.unique(() => this.rows.insert(row));
    return { ...toHook(row), url: `${this.d.baseUrl}${HOOKS_PATH}/${token}`, token };
  }

  list(userId: string): SignalHook[] {
    return this.rows.listOf(userId).map(toHook);
  }

  get(userId: string, id: string): SignalHook {
    return toHook(this.owned(userId, id));
  }

  update(userId: string, id: string, patch: Partial<HookInput>): SignalHook {
    const hook = this.owned(userId, id);
    const name = patch.name ?? hook.name;
    // A source left at its default follows a new name; one the user set stays.
    const source = patch.source ?? (hook.source === `hook:${hook.name}` ? `hook:${name}` : hook.source);
    this.unique(() =>
      this.rows.update(id, {
        name,
        source,
        ...(patch.allowedIps ? { allowedIps: JSON.stringify(patch.allowedIps) } : {}),
        ...(patch.tokens ? { tokens: JSON.stringify(normalisedTokens(patch.tokens)) } : {}),
        updatedAt: isoNow(this.d.clock),
      }),
    );
    return this.get(userId, id);
  }

  /** Revokes the hook: its URL answers 404 from now on; its deliveries go with it. */
  delete(userId: string, id: string): void {
    if (!this.rows.delete(userId, id)) throw new NotFoundError("Signal hook not found");
  }

  deliveriesOf(userId: string, id: string, limit: number): HookDelivery[] {
    this.owned(userId, id);
    return this.rows.deliveriesOf(id, limit).map(toDelivery);
  }

  /** The hook a token opens, with its owner, or undefined for a wrong or revoked one. */
  byToken(token: string): OwnedHook | undefined {
    const row = this.rows.byTokenHash(sha256Hex(token));
    return row ? { ...toHook(row), userId: row.userId } : undefined;
  }

  /** A symbol's mint through the hook's own map only (never a market search: look-alikes share symbols). */
  mintOf(hook: SignalHook, symbol: string): string | undefined {
    return hook.tokens[symbolKey(symbol)];
  }

  /** Counts an answer given without a hook (wrong token) or before its body was read (429). */
  count(hookId: string | null, status: number): void {
    this.deliveries.inc({ hook_id: hookId ?? "none", status: String(status) });
  }

  /** Records and counts a refused delivery (its answer's status and error text). */
  refused(hook: SignalHook, status: number, error: string): void {
    this.rows.recordDelivery({ hookId: hook.id, receivedAt: isoNow(this.d.clock), status, error }, DELIVERIES_KEPT);
    this.count(hook.id, status);
  }

  /** The signal an earlier delivery of the same body or alertId stored in the last 10 minutes. */
  earlierSignal(hook: SignalHook, p: Pick<ParsedDelivery, "bodyHash" | "alertId">): number | undefined {
    return this.rows.firstSignalOf(hook.id, this.windowStart(), p.bodyHash, p.alertId);
  }

  /**
   * Stores the delivery's signal through the intake, or, when the same body or alertId stored one
   * in the last 10 minutes, records a repeat and answers that signal. The check runs inside the
   * commit that would store the signal, so four resends arriving together store one.
   */
  async accept(hook: OwnedHook, p: ParsedDelivery): Promise<{ signal: Signal; duplicate: boolean }> {
    const receivedAt = isoNow(this.d.clock);
    const delivery = { hookId: hook.id, receivedAt, bodyHash: p.bodyHash, alertId: p.alertId };
    let earlier: number | undefined;
    const signal = await this.d.intake.submitOnce(
      hook.userId,
      { ...p.input, source: hook.source },
      () => {
        earlier = this.rows.firstSignalOf(hook.id, this.windowStart(), p.bodyHash, p.alertId);
        if (earlier === undefined) return true;
        this.rows.recordDelivery({ ...delivery, status: 200, signalId: earlier, duplicate: true }, DELIVERIES_KEPT);
        return false;
      },
      (signalId) => this.rows.recordDelivery({ ...delivery, status: 201, signalId }, DELIVERIES_KEPT),
    );
    const duplicate = signal === null;
    this.count(hook.id, duplicate ? 200 : 201);
    return { signal: signal ?? this.d.signals.get(hook.userId, earlier as number), duplicate };
  }

  /** A repeat found before the body's timestamp was judged: recorded as one, answered with its signal. */
  repeat(hook: OwnedHook, p: ParsedDelivery, signalId: number): Signal {
    const receivedAt = isoNow(this.d.clock);
    this.rows.recordDelivery(
      { hookId: hook.id, receivedAt, status: 200, signalId, duplicate: true, bodyHash: p.bodyHash, alertId: p.alertId },
      DELIVERIES_KEPT,
    );
    this.count(hook.id, 200);
    return this.d.signals.get(hook.userId, signalId);
  }

  private windowStart(): string {
    return new Date(this.d.clock.now() - DUPLICATE_WINDOW_MS).toISOString();
  }

  private owned(userId: string, id: string): SignalHookRow {
    const row = this.rows.owned(userId, id);
    if (!row) throw new NotFoundError("Signal hook not found");
    return row;
  }

  private unique(write: () => void): void {
    try {
      write();
    } catch (err) {
      if (String(err).includes("UNIQUE")) throw new ConflictError("Signal hook name already exists");
      throw err;
    }
  }
}
