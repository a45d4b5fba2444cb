// Token screening before a buy: four agent filters, each a refusal with
// its rule name and a reason a user can act on. A pure function of the mint's facts (read from
// the mint account: src/market/mint-info.ts) and whether a reverse quote exists.
//
// - rejectFreezeAuthority (default true): a mint with a freeze authority can freeze the holder's
//   token account, so the token can never be sold (the classic honeypot).
// - rejectMintAuthority (default false): a mint authority can print supply and dilute; many
//   legitimate young tokens keep it, so it is opt-in.
// - maxTransferFeeBps (default 100): a Token-2022 transfer fee is taken on the buy and again on
//   the sell; above the cap the round trip costs more than the agent's strategy expects.
// - requireSellable (default true): a reverse quote (token → SOL) for the bought amount must exist
//   before buying, and the token must not be non-transferable.

export interface TokenScreeningFilters {
  rejectFreezeAuthority: boolean;
  rejectMintAuthority: boolean;
  /** 0..10000; a fee above this refuses the token. */
  maxTransferFeeBps: number;
  requireSellable: boolean;
}

/** Defaults for the agent config schema's `filters` (src/agents/trading-config.ts). */
export const TOKEN_SCREENING_DEFAULTS: TokenScreeningFilters = Object.freeze({
  rejectFreezeAuthority: true,
  rejectMintAuthority: false,
  maxTransferFeeBps: 100,
  requireSellable: true,
});

export interface TokenFacts {
  freezeAuthority: string | null;
  mintAuthority: string | null;
  transferFeeBps: number;
  nonTransferable: boolean;
  /**
   * A reverse quote for the bought amount was found; null when it was not asked (refused under
   * requireSellable: the filter fails closed, so a caller that forgets to ask cannot buy).
   */
  reverseQuoteFound: boolean | null;
}

export type ScreeningRule = "rejectFreezeAuthority" | "rejectMintAuthority" | "maxTransferFeeBps" | "requireSellable";

export type ScreeningResult = { ok: true } | { ok: false; rule: ScreeningRule; reason: string };

/** The first filter the token fails, in the order above, or ok. */
export function screenToken(
  facts: TokenFacts,
  filters: TokenScreeningFilters = TOKEN_SCREENING_DEFAULTS,
): ScreeningResult {
  if (filters.rejectFreezeAuthority && facts.freezeAuthority !== null)
    return {
      ok: false,
      rule: "rejectFreezeAuthority",
      reason: `The mint has a freeze authority (${facts.freezeAuthority}) that can freeze the bought tokens`,
    };
  if (filters.rejectMintAuthority && facts.mintAuthority !== null)
    return {
      ok: false,
      rule: "rejectMintAuthority",
      reason: `The mint has a mint authority (${facts.mintAuthority}) that can create more supply`,
    };
  if (facts.transferFeeBps > filters.maxTransferFeeBps)
    return {
      ok: false,
      rule: "maxTransferFeeBps",
      reason: `The token's transfer fee is ${facts.transferFeeBps} bps, above the maximum of ${filters.maxTransferFeeBps} bps`,
    };
  if (filters.requireSellable) {
    if (facts.nonTransferable)
      return { ok: false, rule: "requireSellable", reason: "The token is non-transferable, so it could never be sold" };
    if (facts.reverseQuoteFound !== true)
      return {
        ok: false,
        rule: "requireSellable",
        reason:
          facts.reverseQuoteFound === false
            ? "No route sells the bought amount back to SOL, so the position could not be exited"
            : "Whether the token can be sold back to SOL was not checked",
      };
  }
  return { ok: true };
}
