import { type Clock, isoNow } from "../clock.ts";
import { type DatabaseHandle, inTransaction } from "../db/client.ts";
import type { WalletWatchRepository, WalletWatchRow } from "../db/repositories/wallet-watches.ts";
import { publicErrorMessage } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { SignatureInfo } from "../market/solana-rpc.ts";
import type { MarketDataProvider } from "../market/types.ts";
import type { WalletActivitySource } from "../market/wallet-activity.ts";
import { decStr, fromAtomic } from "../money.ts";
import type { SignalIntake } from "../signals/signal-intake.ts";
import { TickLoop } from "../tick-loop.ts";
import { type DetectedTrade, detectTrade } from "./detect.ts";
import type { CopyTradingMetrics } from "./metrics.ts";

// The copy-trading watcher (docs/decisions.md "Copy trading"). Each tick polls every enabled watch: the signatures after the watch's cursor, then,
// oldest first, the transaction of each one that may still be copied. A detected buy (and a sell
// when the watch copies sells) becomes a signal through the normal intake, so eligibility, exits
// and the signal source report apply unchanged. Never twice: the (watch, signature) record is
// written in the signal's own commit, so overlapping polls and restarts find it. Never stale: a
// transaction from before the watch was created or re-enabled, or older than
// WALLET_WATCH_MAX_AGE_SECONDS when it is read, is never copied, and failed ones are ignored.
// Like the position monitor, a tick runs and then waits what is left of the interval; tests call
// tick() directly.

/** Signatures asked for per poll: 15 s of even a very busy wallet. */
const SIGNATURE_PAGE = 100;
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
  metrics: CopyTradingMetrics;
  intervalSeconds: number;
  maxAgeSeconds: number;
}

export interface WatcherTickReport {
  polled: number;
  /** Watches left for the next tick because the RPC budget was spent (live trading first). */
  deferred: number;
  copied: number;
  ignored: number;
}

type Decision = { kind: "decided"; copied: boolean; lag: number | null } | { kind: "later" };

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export class WalletWatcher {
  private readonly log: Logger;
  /** Where the next tick starts, so a spent budget does not starve the same watches every tick. */
  private offset = 0;
  private readonly loop = new TickLoop(
    () => this.tick(),
    () => this.d.intervalSeconds * 1000,
    (err) => {
      this.log.error("copy trading tick failed", { error: message(err) });
      return undefined;
    },
  );

  constructor(private readonly d: WalletWatcherDeps) {
    this.log = d.logger.child({ component: "copy-trading" });
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
    const start = watches.length > 0 ? this.offset % watches.length : 0;
    const order = [...watches.slice(start), ...watches.slice(0, start)];
    for (const [i, w] of order.entries()) {
      if (!source.allow()) {
        report.deferred = order.length - i;
        this.offset = (start + i) % watches.length;
        this.log.debug("copy trading: RPC budget spent, watches deferred", { deferred: report.deferred });
        return report;
      }
      await this.poll(source, w, report);
      report.polled++;
    }
    this.offset = 0;
    return report;
  }

  private async poll(source: WalletActivitySource, w: WalletWatchRow, report: WatcherTickReport): Promise<void> {
    let sigs: SignatureInfo[];
    try {
      sigs = await source.signatures(w.address, w.lastSeenSignature, SIGNATURE_PAGE);
    } catch (err) {
      this.failed(w, err);
      return;
    }
    let cursor = w.lastSeenSignature;
    let lag: number | null = null;
    let error: string | null = null;
    // Oldest first; the cursor moves past each decided one and stops where reading must wait.
    for (const s of [...sigs].reverse()) {
      let d: Decision;
      try {
        d = await this.decide(source, w, s);
      } catch (err) {
        // The watch shows what a user may see (never storage text); the log keeps the detail.
        error = publicErrorMessage(err);
        this.log.warn("copy trading: transaction not decided", {
          watchId: w.id,
          signature: s.signature,
          error: message(err),
        });
        break;
      }
      if (d.kind === "later") break;
      cursor = s.signature;
      if (d.copied) report.copied++;
      else report.ignored++;
      if (d.lag !== null) lag = d.lag;
    }
    this.d.watches.recordPoll(w.id, w.updatedAt, {
      lastSeenSignature: cursor,
      lastError: error,
      ...(lag !== null ? { lagSeconds: lag } : {}),
    });
  }

  private failed(w: WalletWatchRow, err: unknown): void {
    this.log.warn("copy trading: wallet not polled", { watchId: w.id, address: w.address, error: message(err) });
    this.d.watches.recordPoll(w.id, w.updatedAt, { lastError: publicErrorMessage(err) });
  }

  private ignored(): Decision {
    this.d.metrics.transactions.inc({ outcome: "ignored" });
    return { kind: "decided", copied: false, lag: null };
  }

  /** Whether a transaction at `blockMs` may still be copied by this watch now. */
  private fresh(w: WalletWatchRow, blockMs: number): boolean {
    return blockMs >= Date.parse(w.watchFrom) && this.d.clock.now() - blockMs <= this.d.maxAgeSeconds * 1000;
  }

  private async decide(source: WalletActivitySource, w: WalletWatchRow, s: SignatureInfo): Promise<Decision> {
    if (s.err !== null && s.err !== undefined) return this.ignored();
    // History and stale transactions are decided from the signature list alone: no request spent.
    if (s.blockTime !== null && !this.fresh(w, s.blockTime * 1000)) return this.ignored();
    if (!source.allow()) return { kind: "later" };
    const tx = await source.transaction(s.signature);
    if (!tx) return { kind: "later" }; // listed but not served yet: the next poll asks again
    const blockTime = tx.blockTime ?? s.blockTime;
    if (blockTime === null || !this.fresh(w, blockTime * 1000)) return this.ignored();
    const trade = detectTrade(tx, w.address, BigInt(w.minSolLamports));
    if (trade.kind === "ignored") return this.ignored();
    return this.copy(w, s.signature, trade, blockTime * 1000);
  }

  private async copy(
    w: WalletWatchRow,
    signature: string,
    t: Extract<DetectedTrade, { kind: "buy" | "sell" }>,
    blockMs: number,
  ): Promise<Decision> {
    const row = {
      watchId: w.id,
      signature,
      side: t.kind,
      mint: t.mint,
      solLamports: t.solLamports.toString(),
      tokenAmount: t.tokenAmount.toString(),
      blockTime: new Date(blockMs).toISOString(),
      detectedAt: isoNow(this.d.clock),
    };
    if (t.kind === "sell" && !w.copySells) {
      // Recorded for the page's list of detected trades; nobody is told to sell.
      if (inTransaction(this.d.database, () => this.d.watches.claimTrade(row)))
        this.d.metrics.transactions.inc({ outcome: "sell" });
      return { kind: "decided", copied: false, lag: null };
    }
    const symbol = await this.symbolOf(t.mint);
    const sol = decStr(fromAtomic(t.solLamports, 9), 9);
    const who = w.label ? `${w.label} (${w.address})` : w.address;
    const signal = await this.d.intake.submitOnce(
      w.userId,
      {
        tokenAddress: t.mint,
        symbol,
        signalType: t.kind,
        signalStrength: w.signalStrength,
        activationReason: `Copy trading: ${who} ${t.kind === "buy" ? "bought" : "sold"} ${symbol ?? t.mint} for ${sol} SOL in transaction ${signature}`,
        source: `wallet:${w.address}`,
      },
      () => this.d.watches.claimTrade(row),
      (signalId) => this.d.watches.linkSignal(w.id, signature, signalId),
    );
    if (!signal) return { kind: "decided", copied: false, lag: null }; // copied before
    const lag = Math.max(0, (Date.parse(signal.createdAt) - blockMs) / 1000);
    this.d.metrics.transactions.inc({ outcome: t.kind });
    this.d.metrics.lag.observe(lag);
    this.log.info("copy trading: trade copied", {
      watchId: w.id,
      address: w.address,
      side: t.kind,
      mint: t.mint,
      sol,
      signature,
      signalId: signal.id,
      lagSeconds: lag,
    });
    return { kind: "decided", copied: true, lag };
  }

  /** The token's symbol from market data; a copy never waits on a failed lookup. */
  private async symbolOf(mint: string): Promise<string | null> {
    if (!this.d.marketData.configured) return null;
    try {
      const symbol = (await this.d.marketData.getTokens([mint])).get(mint)?.symbol ?? null;
      return symbol ? symbol.slice(0, 50) : null;
    } catch (err) {
      this.log.debug("copy trading: no symbol", { mint, error: message(err) });
      return null;
    }
  }

  /** Runs a tick, then waits what is left of the interval; never two ticks at once. */
  start(): void {
    this.loop.start();
  }

  /** Stops the loop and waits for the tick in flight. */
  stop(): Promise<void> {
    return this.loop.stop();
  }
}
