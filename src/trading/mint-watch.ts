import type { Logger } from "../logger.ts";
import type { MintInfo } from "../market/mint-info.ts";
import { type TokenScreeningFilters, thirdPartyControl } from "./rules/token-screening.ts";
import { mintFactsOf } from "./token-screen.ts";

// A held token's mint, read again while the position is open: a Token-2022 control that
// appears after the buy (a transfer hook set, a pause, a new permanent delegate) and that the
// agent's filters refuse pauses the position (docs/decisions/token-2022-screening.md). The
// monitor asks before each decision, and the mint is read again when the last read is older than
// `rereadMs` (a few minutes); before an automatic live sale it is read fresh. Paused: the position's
// `waitingReason` says why and its owner is told; a live position's exits keep trying, DCA and a
// simulated position's exits wait (src/trading/paused-positions.ts); a manual close still tries.

type Mode = "simulation" | "live";

/** Read the mint again when the last read is older than this (2 minutes). */
const MINT_REREAD_MS = 2 * 60_000;

export interface MintWatchDeps {
  mintInfo: { get(mint: string, maxAgeMs?: number): Promise<MintInfo> };
  logger: Logger;
  transferHookAllowlist?: readonly string[];
  rereadMs?: number;
}

export class MintWatch {
  /** The last mint read that answered, per mint: judged again when a re-read fails. */
  private readonly last = new Map<string, MintInfo>();

  constructor(private readonly d: MintWatchDeps) {}

  /**
   * Per held position whose mint must pause it, why. Concurrent: the mint reader reads each mint
   * once however many positions hold it. `filters` null: no agent to judge for (nothing pauses).
   */
  async pauses(
    held: ReadonlyArray<{ id: string; tokenAddress: string; tradingMode: Mode; filters: TokenScreeningFilters | null }>,
  ): Promise<Map<string, string>> {
    const paused = new Map<string, string>();
    const mints = new Set(held.map((h) => h.tokenAddress));
    for (const mint of this.last.keys()) if (!mints.has(mint)) this.last.delete(mint); // no longer held
    await Promise.all(
      held.map(async (h) => {
        const reason = h.filters ? await this.pauseReason(h.tokenAddress, h.filters, h.tradingMode) : null;
        if (reason !== null) paused.set(h.id, reason);
      }),
    );
    return paused;
  }

  /**
   * Why a position in `mint` must pause under `filters`, or null. `fresh`: read the mint now
   * (before a live sale). A failed read is logged and the last answer stands (none: no pause).
   */
  async pauseReason(mint: string, filters: TokenScreeningFilters, mode: Mode, fresh = false): Promise<string | null> {
    let info: MintInfo;
    try {
      info = await this.d.mintInfo.get(mint, fresh ? 0 : (this.d.rereadMs ?? MINT_REREAD_MS));
      this.last.set(mint, info);
    } catch (err) {
      this.d.logger.warn("mint re-read failed", {
        tokenAddress: mint,
        reason: err instanceof Error ? err.message : String(err),
      });
      const last = this.last.get(mint);
      if (!last) return null;
      info = last;
    }
    // A hook authority is judged at the buy (it could set a program later); held, what pauses is a
    // program it has set, judged below like any.
    const facts = { ...mintFactsOf(info), transferHookAuthority: null };
    // Only what can appear or change after the buy: a freeze authority cannot be added to a mint
    // without one, a default account state touches only new accounts, and extensions are fixed at
    // the mint's creation. Judging those again would only pause a position because its agent's
    // filters were tightened since.
    const later = {
      ...filters,
      rejectFreezeAuthority: false,
      rejectDefaultFrozen: false,
      rejectUnknownExtensions: false,
    };
    const refused = thirdPartyControl(facts, later, this.d.transferHookAllowlist ?? []);
    const why = refused
      ? `${refused.rule}: ${refused.reason}`
      : facts.paused
        ? "The mint's transfers are paused"
        : null;
    if (why === null) return null;
    return mode === "live"
      ? `Paused: ${why}. Its exits keep trying (a sale the chain would refuse is caught before signing, at no cost); no DCA while it lasts`
      : `Paused: ${why}. No automatic exit or DCA while it lasts (a simulated sale cannot tell whether the chain would refuse it); a manual close still tries to sell`;
  }
}
