import { type Clock, isoNow } from "../clock.ts";
import { type DatabaseHandle, inTransaction } from "../db/client.ts";
import type { WalletWatchRepository, WalletWatchRow } from "../db/repositories/wallet-watches.ts";
import type { Logger } from "../logger.ts";
import type { MarketDataProvider } from "../market/types.ts";
import { decStr, fromAtomic } from "../money.ts";
import type { SignalIntake } from "../signals/signal-intake.ts";
import type { DetectedTrade } from "./detect.ts";
import type { WatchGroupService } from "./groups.ts";
import type { CopyTradingMetrics } from "./metrics.ts";

// A trade the watcher detected, copied (docs/decisions.md "Copy trading"): the wallet's buy or
// sell becomes a signal through the normal intake, the (watch, signature) record written in the
// signal's own commit so it never happens twice; a sell of a watch that does not copy sells is
// only recorded; a buy may complete a watch group's count and raise the group's signal too.
// The watcher (watcher.ts) decides what to copy; this is what copying does.

export interface TradeCopierDeps {
  database: DatabaseHandle;
  watches: WalletWatchRepository;
  intake: Pick<SignalIntake, "submitOnce">;
  marketData: MarketDataProvider;
  clock: Clock;
  metrics: CopyTradingMetrics;
  groups: WatchGroupService;
}

/** What became of one transaction: copied or not, and the lag of a copy (seconds). */
export type Decided = { copied: boolean; lag: number | null };

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export class TradeCopier {
  constructor(
    private readonly d: TradeCopierDeps,
    private readonly log: Logger,
  ) {}

  async copy(
    w: WalletWatchRow,
    signature: string,
    t: Extract<DetectedTrade, { kind: "buy" | "sell" }>,
    blockMs: number,
  ): Promise<Decided> {
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
      return { copied: false, lag: null };
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
    if (!signal) return { copied: false, lag: null }; // copied before
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
    if (t.kind === "buy") await this.groupSignals(w, t.mint, symbol, blockMs);
    return { copied: true, lag };
  }

  /** A group's signal when this buy makes N different wallets of it buying the mint within T. */
  private async groupSignals(w: WalletWatchRow, mint: string, symbol: string | null, blockMs: number): Promise<void> {
    for (const g of this.d.groups.groupsOf(w.userId, w.address)) {
      const buyers = this.d.groups.buyersWithin(w.userId, g, mint, blockMs);
      if (buyers.length < g.minWallets) continue;
      const signal = await this.d.intake.submitOnce(
        w.userId,
        {
          tokenAddress: mint,
          symbol,
          signalType: "buy",
          signalStrength: g.signalStrength,
          activationReason: `Copy trading group ${g.name}: ${buyers.length} wallets bought ${symbol ?? mint} within ${g.windowSeconds} s (${buyers.join(", ")})`,
          source: `group:${g.name}`,
        },
        () => this.d.groups.claim(g, mint, blockMs),
        (signalId) => this.d.groups.link(g, mint, blockMs, signalId),
      );
      if (signal) this.log.info("copy trading: group signal", { groupId: g.id, mint, signalId: signal.id, buyers });
    }
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
}
