import { type Clock, isoNow } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import type { WalletWatchRepository, WalletWatchRow } from "../db/repositories/wallet-watches.ts";
import { publicErrorMessage } from "../errors.ts";
import type { EventBus } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import type { LandedTransaction } from "../market/landed-transaction.ts";
import type { LogsNotification, SolanaLogsStream } from "../market/solana-pubsub.ts";
import {
  type SignatureInfo,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  TransactionVersionUnsupported,
} from "../market/solana-rpc.ts";
import type { MarketDataProvider } from "../market/types.ts";
import type { WalletActivitySource } from "../market/wallet-activity.ts";
import type { SignalIntake } from "../signals/signal-intake.ts";
import { TickLoop } from "../tick-loop.ts";
import { detectTrade } from "./detect.ts";
import type { WatchGroupService } from "./groups.ts";
import type { CopyTradingMetrics } from "./metrics.ts";
import { type Decided, TradeCopier } from "./trade-copier.ts";

// The copy-trading watcher (docs/decisions.md "Copy trading"). Each tick polls every enabled watch: the signatures after the watch's cursor, then,
// oldest first, the transaction of each one that may still be copied. A detected buy (and a sell
// when the watch copies sells) becomes a signal through the normal intake (trade-copier.ts), so eligibility, exits
// and the signal source report apply unchanged. Never twice: the (watch, signature) record is
// written in the signal's own commit, so overlapping polls and restarts find it. Never stale: a
// transaction from before the watch was created or re-enabled, or older than
// WALLET_WATCH_MAX_AGE_SECONDS when it is read, is never copied, and failed ones are ignored.
// Like the position monitor, a tick runs and then waits what is left of the interval; tests call
// tick() directly.

/** Signatures asked for per page: 15 s of even a very busy wallet. */
const SIGNATURE_PAGE = 100;
/** Pages listed per poll at most (the max age bounds them sooner for all but a flooded wallet). */
const MAX_PAGES = 10;
const NO_SOURCE_ERROR = "Copy trading needs the Solana RPC: set SOLANA_RPC_URL (or DEMO_MARKET=true)";

export interface WalletWatcherDeps {
  database: DatabaseHandle;
  watches: WalletWatchRepository;
  /** null without SOLANA_RPC_URL (and not on the demo market): every enabled watch shows why. */
  source: WalletActivitySource | null;
  intake: Pick<SignalIntake, "submitOnce">;
  marketData: MarketDataProvider;
  clock: Clock;
  logger: Logger;
  /** Where a transaction the watcher cannot read is shown to the watch's owner. */
  events: Pick<EventBus, "publish">;
  metrics: CopyTradingMetrics;
  intervalSeconds: number;
  maxAgeSeconds: number;
  /** The DEX programs a copied trade swaps through (dex-programs.ts plus WALLET_WATCH_EXTRA_PROGRAMS). */
  dexPrograms: ReadonlySet<string>;
  /** Watch groups: a buy may complete a group's count (groups.ts). */
  groups: WatchGroupService;
  /** The pubsub stream (SOLANA_WS_URL); null: polling only. */
  stream: SolanaLogsStream | null;
}

/** While the stream is up, the poll (the safety net) runs this many times less often. */
const STREAMING_POLL_FACTOR = 4;
/** Signatures the stream's logs showed as dust, remembered at most (oldest forgotten first). */
const DUST_HINTS = 10_000;

export interface WatcherTickReport {
  polled: number;
  /** Watches left for the next tick because the RPC budget was spent (live trading first). */
  deferred: number;
  copied: number;
  ignored: number;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export class WalletWatcher {
  private readonly log: Logger;
  /** Where the next tick starts, so a spent budget does not starve the same watches every tick. */
  private offset = 0;
  private readonly decided = new Map<string, { version: string; signatures: Set<string> }>();
  private readonly loop = new TickLoop(
    () => this.tick(),
    () => this.d.intervalSeconds * (this.d.stream?.connected ? STREAMING_POLL_FACTOR : 1) * 1000,
    (err) => {
      this.log.error("copy trading tick failed", { error: message(err) });
      return undefined;
    },
  );

  /** The poll in flight per watch: the tick and the stream take turns, never two at once. */
  private readonly polling = new Map<string, Promise<void>>();
  /** Signatures whose streamed logs show neither a DEX nor a token program: dust, never read. */
  private readonly dustHints = new Set<string>();

  private readonly copier: TradeCopier;

  constructor(private readonly d: WalletWatcherDeps) {
    this.log = d.logger.child({ component: "copy-trading" });
    this.copier = new TradeCopier(d, this.log);
    d.stream?.onNotification((n) => this.notified(n));
  }

  /**
   * A streamed transaction of a followed address: the same poll as the tick's runs for its
   * watches at once (one path decides, so nothing is copied twice). Its logs spare a read: a
   * transaction that ran neither a DEX nor a token program moved no token of the wallet's.
   */
  private notified(n: LogsNotification): void {
    const source = this.d.source;
    if (!source) return;
    const programs = new Set(n.logs.flatMap((l) => /^Program (\w+) invoke/.exec(l)?.[1] ?? []));
    const tokens = [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID].some((p) => programs.has(p));
    if (n.err === null && n.logs.length > 0 && !tokens && ![...programs].some((p) => this.d.dexPrograms.has(p))) {
      this.dustHints.add(n.signature);
      if (this.dustHints.size > DUST_HINTS) this.dustHints.delete(this.dustHints.values().next().value!);
    }
    // Over the RPC budget, live trading first: the next poll (the safety net) reads it instead.
    if (!source.allow()) return;
    for (const w of this.d.watches.enabled())
      if (w.address === n.address) void this.pollOne(source, w.id, { polled: 0, deferred: 0, copied: 0, ignored: 0 });
  }

  /** Polls one watch after the poll in flight for it, with the watch as it is then. */
  private pollOne(source: WalletActivitySource, watchId: string, report: WatcherTickReport): Promise<void> {
    const run = (this.polling.get(watchId) ?? Promise.resolve()).then(async () => {
      const w = this.d.watches.byId(watchId);
      if (w?.enabled) await this.poll(source, w, report);
    });
    const settled = run.catch((err) => {
      this.log.error("copy trading poll failed", { watchId, error: message(err) });
    });
    this.polling.set(watchId, settled);
    void settled.then(() => {
      if (this.polling.get(watchId) === settled) this.polling.delete(watchId);
    });
    return settled;
  }

  /** Resolves when no poll is in flight (tests; a streamed poll runs on its own). */
  async idle(): Promise<void> {
    while (this.polling.size > 0) await Promise.all([...this.polling.values()]);
  }

  async tick(): Promise<WatcherTickReport> {
    const report: WatcherTickReport = { polled: 0, deferred: 0, copied: 0, ignored: 0 };
    const watches = this.d.watches.enabled();
    const source = this.d.source;
    if (!source) {
      for (const w of watches)
        if (w.lastError !== NO_SOURCE_ERROR)
          this.d.watches.recordPoll(w.id, w.updatedAt, { lastError: NO_SOURCE_ERROR });
      return report;
    }
    this.d.stream?.follow(watches.map((w) => w.address));
    const start = watches.length > 0 ? this.offset % watches.length : 0;
    const order = [...watches.slice(start), ...watches.slice(0, start)];
    for (const [i, w] of order.entries()) {
      if (!source.allow()) {
        report.deferred = order.length - i;
        this.offset = (start + i) % watches.length;
        this.log.debug("copy trading: RPC budget spent, watches deferred", { deferred: report.deferred });
        return report;
      }
      await this.pollOne(source, w.id, report);
      report.polled++;
    }
    this.offset = 0;
    return report;
  }

  /**
   * Lists every signature since the cursor, newest first: pages back with `before` until the
   * cursor, or until a page ends in a transaction too old to copy (the rest is older still), or
   * until the budget stops it (`complete` false: signatures between the list and the cursor are
   * unread, so the cursor may not move).
   */
  private async list(
    source: WalletActivitySource,
    w: WalletWatchRow,
  ): Promise<{ sigs: SignatureInfo[]; complete: boolean }> {
    const sigs: SignatureInfo[] = [];
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      if (pages > 0 && !source.allow()) return { sigs, complete: false };
      const page = await source.signatures(w.address, {
        until: w.lastSeenSignature,
        before: sigs.at(-1)?.signature ?? null,
        limit: SIGNATURE_PAGE,
      });
      sigs.push(...page);
      const last = page.at(-1);
      if (page.length < SIGNATURE_PAGE || !last) return { sigs, complete: true };
      if (last.blockTime !== null && !this.fresh(w, last.blockTime * 1000)) return { sigs, complete: true };
    }
    return { sigs, complete: false };
  }

  private async poll(source: WalletActivitySource, w: WalletWatchRow, report: WatcherTickReport): Promise<void> {
    let listed: { sigs: SignatureInfo[]; complete: boolean };
    try {
      listed = await this.list(source, w);
    } catch (err) {
      this.failed(w, err);
      return;
    }
    const decided = this.decidedOf(w);
    let lag: number | null = null;
    let error: string | null = null;
    // Read young first, so what can still be copied is read before the budget runs out on older
    // ones; then decide what was read oldest first, as the wallet traded.
    const read: Array<{ s: SignatureInfo; tx: LandedTransaction }> = [];
    for (const s of listed.sigs) {
      if (decided.has(s.signature)) continue;
      try {
        const r = await this.read(source, w, s);
        if (r === "later") continue;
        if (r === "decided") {
          decided.add(s.signature);
          report.ignored++;
        } else read.push({ s, tx: r });
      } catch (err) {
        error = this.undecided(w, s, err);
      }
    }
    for (const { s, tx } of read.reverse()) {
      try {
        const d = await this.decide(w, s, tx);
        decided.add(s.signature);
        if (d.copied) report.copied++;
        else report.ignored++;
        if (d.lag !== null) lag = d.lag;
      } catch (err) {
        error = this.undecided(w, s, err);
      }
    }
    // The cursor moves over the oldest signatures decided, never past one still unread.
    let cursor = w.lastSeenSignature;
    if (listed.complete)
      for (const s of [...listed.sigs].reverse()) {
        if (!decided.has(s.signature)) break;
        cursor = s.signature;
      }
    // What the cursor passed is never listed again: forget it.
    const at = listed.sigs.findIndex((s) => s.signature === cursor);
    if (at >= 0) for (const s of listed.sigs.slice(at)) decided.delete(s.signature);
    this.d.watches.recordPoll(w.id, w.updatedAt, {
      lastSeenSignature: cursor,
      lastError: error,
      ...(lag !== null ? { lagSeconds: lag } : {}),
    });
  }

  /**
   * Signatures after the cursor already decided (young ones read while an older one waits), per
   * watch; dropped when the watch is edited or re-enabled. A restart forgets them: they are read
   * again, and the (watch, signature) record keeps a copy from happening twice.
   */
  private decidedOf(w: WalletWatchRow): Set<string> {
    const kept = this.decided.get(w.id);
    if (kept && kept.version === w.updatedAt) return kept.signatures;
    const signatures = new Set<string>();
    this.decided.set(w.id, { version: w.updatedAt, signatures });
    return signatures;
  }

  private failed(w: WalletWatchRow, err: unknown): void {
    this.log.warn("copy trading: wallet not polled", { watchId: w.id, address: w.address, error: message(err) });
    this.d.watches.recordPoll(w.id, w.updatedAt, { lastError: publicErrorMessage(err) });
  }

  private ignored(reason: string): Decided {
    this.d.metrics.transactions.inc({ outcome: "ignored" });
    this.d.metrics.ignored.inc({ reason });
    return { copied: false, lag: null };
  }

  /** Whether a transaction at `blockMs` may still be copied by this watch now. */
  private fresh(w: WalletWatchRow, blockMs: number): boolean {
    return blockMs >= Date.parse(w.watchFrom) && this.d.clock.now() - blockMs <= this.d.maxAgeSeconds * 1000;
  }

  /** The watch shows what a user may see (never storage text); the log keeps the detail. */
  private undecided(w: WalletWatchRow, s: SignatureInfo, err: unknown): string {
    this.log.warn("copy trading: transaction not decided", {
      watchId: w.id,
      signature: s.signature,
      error: message(err),
    });
    return publicErrorMessage(err);
  }

  /**
   * The transaction behind a listed signature, or "decided" from the list alone with no request
   * spent: a failed transaction, history and stale ones, and one carrying a memo (dust: spam
   * transfers carry one; a wallet's swap does not). "later": not now (budget, or not served yet).
   */
  private async read(
    source: WalletActivitySource,
    w: WalletWatchRow,
    s: SignatureInfo,
  ): Promise<LandedTransaction | "decided" | "later"> {
    if (s.err !== null && s.err !== undefined) return this.ignoredAs("failed_unread");
    if (s.blockTime !== null && !this.fresh(w, s.blockTime * 1000)) return this.ignoredAs("stale");
    if (s.memo) return this.ignoredAs("dust_memo");
    if (this.dustHints.has(s.signature)) return this.ignoredAs("dust_logs");
    if (!source.allow()) return "later";
    try {
      return (await source.transaction(s.signature)) ?? "later"; // listed but not served yet: asked again
    } catch (err) {
      if (!(err instanceof TransactionVersionUnsupported)) throw err;
      return this.unreadable(w, s, err);
    }
  }

  /**
   * A landed transaction of a version this service does not read (v1): asking again cannot help,
   * so it is decided (the cursor passes it), counted as `unreadable` and shown to the watch's
   * owner. Whatever it did is not copied: copying what we cannot read would be a guess.
   */
  private unreadable(w: WalletWatchRow, s: SignatureInfo, err: TransactionVersionUnsupported): "decided" {
    const version = err.version === null ? "a newer version" : `version ${err.version}`;
    const message = `Transaction ${s.signature} of ${w.address} is ${version}, which this service cannot read yet: it was not copied`;
    this.log.warn("copy trading: transaction unreadable", {
      watchId: w.id,
      signature: s.signature,
      error: err.message,
    });
    this.d.events.publish("wallet_watch.unreadable", w.userId, {
      watchId: w.id,
      address: w.address,
      signature: s.signature,
      reason: "version",
      message,
    });
    return this.ignoredAs("unreadable");
  }

  private ignoredAs(reason: string): "decided" {
    this.ignored(reason);
    return "decided";
  }

  private async decide(w: WalletWatchRow, s: SignatureInfo, tx: LandedTransaction): Promise<Decided> {
    const blockTime = tx.blockTime ?? s.blockTime;
    if (blockTime === null || !this.fresh(w, blockTime * 1000)) return this.ignored("stale");
    const trade = detectTrade(tx, w.address, BigInt(w.minSolLamports), this.d.dexPrograms);
    if (trade.kind === "ignored") {
      if (trade.seen && (trade.reason === "not_signed" || trade.reason === "not_a_swap"))
        this.recordIgnored(w, s.signature, trade.reason, trade.seen, blockTime);
      return this.ignored(trade.reason);
    }
    return this.copier.copy(w, s.signature, trade, blockTime * 1000);
  }

  /** A trade-shaped transaction refused (not the wallet's swap): listed in the watch's trades. */
  private recordIgnored(
    w: WalletWatchRow,
    signature: string,
    reason: "not_signed" | "not_a_swap",
    seen: { side: "buy" | "sell"; mint: string; solLamports: bigint; tokenAmount: bigint },
    blockTime: number,
  ): void {
    this.d.watches.claimTrade({
      watchId: w.id,
      signature,
      side: seen.side,
      mint: seen.mint,
      solLamports: seen.solLamports.toString(),
      tokenAmount: seen.tokenAmount.toString(),
      blockTime: new Date(blockTime * 1000).toISOString(),
      detectedAt: isoNow(this.d.clock),
      ignoredReason: reason,
    });
    this.log.info("copy trading: transaction not copied", { watchId: w.id, signature, reason });
  }

  /** Runs a tick, then waits what is left of the interval; never two ticks at once. Streams too. */
  start(): void {
    this.startStreaming();
    this.loop.start();
  }

  /** Subscribes every enabled watch's address over the pubsub stream (when there is one). */
  startStreaming(): void {
    this.d.stream?.follow(this.d.watches.enabled().map((w) => w.address));
    this.d.stream?.start();
  }

  /** Stops the stream and the loop and waits for the polls in flight. */
  async stop(): Promise<void> {
    this.d.stream?.stop();
    await this.loop.stop();
    await this.idle();
  }
}
