// Token screening before a buy: named agent filters, each a refusal with its rule name and a
// reason a user can act on. A pure function of the mint's facts (read from the mint account:
// src/market/mint-info.ts) and whether a reverse quote exists. Token-2022 extensions that let a
// third party move, freeze or block the tokens are refused by default
// (docs/decisions/token-2022-screening.md says why each, and which extensions are allowed):
//
// - rejectFreezeAuthority (default true): a mint with a freeze authority can freeze the holder's
//   token account, so the token can never be sold (the classic honeypot).
// - rejectMintAuthority (default false): a mint authority can print supply and dilute; many
//   legitimate young tokens keep it, so it is opt-in.
// - rejectPermanentDelegate (default true): the permanent delegate can move or burn any holder's
//   tokens without their signature.
// - rejectPausable (default true): the pause authority can stop every transfer, so every sale.
// - rejectTransferHook (default true): every transfer calls the hook's program, which can refuse
//   sales while quotes still exist; a program on TOKEN_TRANSFER_HOOK_ALLOWLIST passes when the
//   hook has no authority. A hook authority is refused like a program, set or not: it can point
//   every transfer at a program of its choosing after the buy.
// - rejectDefaultFrozen (default true): a new token account starts frozen until the freeze
//   authority thaws it.
// - rejectUnknownExtensions (default true): an extension type this service does not know could
//   do any of the above; refused until it is known (fail closed).
// - maxTransferFeeBps (default 100): a Token-2022 transfer fee is taken on the buy and again on
//   the sell; above the cap the round trip costs more than the agent's strategy expects.
// - requireSellable (default true): a reverse quote (token → SOL) for the bought amount must exist
//   before buying, and the token must be transferable now (not non-transferable, not paused).

import type { MintInfo } from "../../market/mint-info.ts";

export interface TokenScreeningFilters {
  rejectFreezeAuthority: boolean;
  rejectMintAuthority: boolean;
  rejectPermanentDelegate: boolean;
  rejectPausable: boolean;
  rejectTransferHook: boolean;
  rejectDefaultFrozen: boolean;
  rejectUnknownExtensions: boolean;
  /** 0..10000; a fee above this refuses the token. */
  maxTransferFeeBps: number;
  requireSellable: boolean;
}

/** Defaults for the agent config schema's `filters` (src/agents/trading-config.ts). */
export const TOKEN_SCREENING_DEFAULTS: TokenScreeningFilters = Object.freeze({
  rejectFreezeAuthority: true,
  rejectMintAuthority: false,
  rejectPermanentDelegate: true,
  rejectPausable: true,
  rejectTransferHook: true,
  rejectDefaultFrozen: true,
  rejectUnknownExtensions: true,
  maxTransferFeeBps: 100,
  requireSellable: true,
});

/** What the mint account says that screening judges: those fields of src/market/mint-info.ts MintInfo. */
export type MintFacts = Pick<
  MintInfo,
  | "freezeAuthority"
  | "mintAuthority"
  | "permanentDelegate"
  | "pauseAuthority"
  | "paused"
  | "transferHookProgram"
  | "transferHookAuthority"
  | "defaultAccountFrozen"
  | "unknownExtensions"
  | "transferFeeBps"
  | "nonTransferable"
>;

/** The mint's facts and the reverse quote's answer. */
export interface TokenFacts extends MintFacts {
  /**
   * A reverse quote for the bought amount was found; null when it was not asked (refused under
   * requireSellable: the filter fails closed, so a caller that forgets to ask cannot buy).
   */
  reverseQuoteFound: boolean | null;
}

/** A mint without any of the facts screening refuses (classic Token, no authorities). */
export const PLAIN_MINT: Readonly<MintFacts> = Object.freeze({
  freezeAuthority: null,
  mintAuthority: null,
  permanentDelegate: null,
  pauseAuthority: null,
  paused: false,
  transferHookProgram: null,
  transferHookAuthority: null,
  defaultAccountFrozen: false,
  unknownExtensions: [],
  transferFeeBps: 0,
  nonTransferable: false,
});

export type ScreeningRule = keyof TokenScreeningFilters;

export type ScreeningResult = { ok: true } | { ok: false; rule: ScreeningRule; reason: string };

type Refusal = { ok: false; rule: ScreeningRule; reason: string };

/**
 * The rules about who besides the holder can move, freeze or block the tokens, in order: the
 * first refusal, or null. They hold for a position already open too: one that appears after the
 * buy pauses the position (src/trading/mint-watch.ts).
 */
export function thirdPartyControl(
  facts: MintFacts,
  filters: TokenScreeningFilters,
  transferHookAllowlist: readonly string[] = [],
): Refusal | null {
  const no = (rule: ScreeningRule, reason: string): Refusal => ({ ok: false, rule, reason });
  if (filters.rejectFreezeAuthority && facts.freezeAuthority !== null)
    return no(
      "rejectFreezeAuthority",
      `The mint has a freeze authority (${facts.freezeAuthority}) that can freeze the bought tokens`,
    );
  if (filters.rejectPermanentDelegate && facts.permanentDelegate !== null)
    return no(
      "rejectPermanentDelegate",
      `The mint has a permanent delegate (${facts.permanentDelegate}) that can move or burn the bought tokens without the wallet's signature`,
    );
  if (filters.rejectPausable && (facts.pauseAuthority !== null || facts.paused))
    return no(
      "rejectPausable",
      facts.paused
        ? "The mint's transfers are paused"
        : `The mint has a pause authority (${facts.pauseAuthority}) that can stop every transfer, so every sale`,
    );
  const hook = filters.rejectTransferHook ? transferHookRefusal(facts, transferHookAllowlist) : null;
  if (hook) return no("rejectTransferHook", hook);
  if (filters.rejectDefaultFrozen && facts.defaultAccountFrozen)
    return no(
      "rejectDefaultFrozen",
      "The mint freezes every new token account until its freeze authority thaws it (DefaultAccountState frozen)",
    );
  if (filters.rejectUnknownExtensions && facts.unknownExtensions.length > 0)
    return no(
      "rejectUnknownExtensions",
      `The mint carries Token-2022 extension types this service does not know (${facts.unknownExtensions.join(", ")})`,
    );
  return null;
}

/**
 * Why the transfer hook can refuse a sale, or null: a program not allow-listed runs on every
 * transfer; an authority can set one (or replace an allow-listed one) after the buy.
 */
function transferHookRefusal(facts: MintFacts, allowlist: readonly string[]): string | null {
  const program = facts.transferHookProgram;
  const authority = facts.transferHookAuthority;
  if (program !== null && !allowlist.includes(program))
    return `Every transfer of the token calls the program ${program}, which can refuse a sale (not on TOKEN_TRANSFER_HOOK_ALLOWLIST)`;
  if (authority === null) return null;
  return program === null
    ? `The mint's transfer hook authority (${authority}) can make every transfer call a program of its choosing, which can refuse a sale`
    : `Every transfer calls the allow-listed program ${program}, but the hook authority (${authority}) can replace it with one that refuses a sale`;
}

/** The first filter the token fails (who controls the tokens first, then supply, fee, sellability), or ok. */
export function screenToken(
  facts: TokenFacts,
  filters: TokenScreeningFilters = TOKEN_SCREENING_DEFAULTS,
  transferHookAllowlist: readonly string[] = [],
): ScreeningResult {
  const control = thirdPartyControl(facts, filters, transferHookAllowlist);
  if (control) return control;
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
      reason: `The token's transfer fee (in force or scheduled by its authority) is ${facts.transferFeeBps} bps, above the maximum of ${filters.maxTransferFeeBps} bps`,
    };
  if (filters.requireSellable) {
    if (facts.nonTransferable)
      return { ok: false, rule: "requireSellable", reason: "The token is non-transferable, so it could never be sold" };
    if (facts.paused)
      return {
        ok: false,
        rule: "requireSellable",
        reason: "The mint's transfers are paused, so it cannot be sold now",
      };
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
