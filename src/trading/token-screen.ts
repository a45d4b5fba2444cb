import type { Clock } from "../clock.ts";
import { ExternalServiceError, TradingError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { ProviderError } from "../market/http-client.ts";
import type { MintInfo } from "../market/mint-info.ts";
import type { Quote, QuoteRequest } from "../market/types.ts";
import { SOL_MINT } from "../money.ts";
import type { TransferFee } from "./rules/fees.ts";
import {
  type MintFacts,
  PLAIN_MINT,
  type ScreeningRule,
  screenToken,
  type TokenScreeningFilters,
} from "./rules/token-screening.ts";
import { together } from "./together.ts";

// Token screening before a signal buy, in BOTH modes: simulation is never
// kinder than live. The executors call it with the buy's quote in hand, so the reverse quote is
// for exactly the amount the agent would hold. The mint's facts come from the mint account over
// RPC (MintInfoSource); without SOLANA_RPC_URL there is no chain to read, so the on-chain
// filters cannot be judged and only requireSellable applies (docs/decisions.md "Live
// integration"; a live agent always has the RPC).

/** A provider answer that means "no route": the token cannot be sold back to SOL. */
const NO_ROUTE_CODES = new Set(["COULD_NOT_FIND_ANY_ROUTE", "TOKEN_NOT_TRADABLE", "NO_ROUTES_FOUND"]);

export class TokenScreenRefusedError extends TradingError {
  constructor(
    readonly rule: ScreeningRule,
    readonly reason: string,
  ) {
    super(`${rule}: ${reason}`, { rule });
  }
}

export interface TokenScreenDeps {
  /** null when SOLANA_RPC_URL is empty. */
  mintInfo: { get(mint: string): Promise<MintInfo> } | null;
  /** The reverse quote; `taker`: the wallet about to buy (Swap API v2 /build needs one). */
  quotes: { quote(req: QuoteRequest, taker?: string): Promise<Quote> };
  logger: Logger;
  clock: Pick<Clock, "now">;
  /** How long a found route back to SOL vouches for amounts up to the one quoted; default 60 s. */
  sellableTtlMs?: number;
  /** Transfer-hook programs trusted not to block sales (TOKEN_TRANSFER_HOOK_ALLOWLIST). */
  transferHookAllowlist?: readonly string[];
}

/** The facts screening judges, from a mint read (none without an RPC: nothing to judge). */
export const mintFactsOf = (info: MintInfo | null): MintFacts =>
  info
    ? {
        freezeAuthority: info.freezeAuthority,
        mintAuthority: info.mintAuthority,
        permanentDelegate: info.permanentDelegate,
        pauseAuthority: info.pauseAuthority,
        paused: info.paused,
        transferHookProgram: info.transferHookProgram,
        transferHookAuthority: info.transferHookAuthority,
        defaultAccountFrozen: info.defaultAccountFrozen,
        unknownExtensions: info.unknownExtensions,
        transferFeeBps: info.transferFeeBps,
        nonTransferable: info.nonTransferable,
      }
    : PLAIN_MINT;

export class TokenScreen {
  /**
   * Per mint, the largest amount a reverse quote was found for, and when. One signal fans out to
   * many agents: without this every agent's buy would cost a second quote on a rate-limited API.
   */
  private readonly sellableUpTo = new Map<string, { at: number; amount: bigint }>();
  /** Per mint, the reverse quote about to be sent, still taking the amounts of agents that join. */
  private readonly gathering = new Map<string, { amount: bigint; found: Promise<boolean> }>();

  constructor(private readonly d: TokenScreenDeps) {}

  /**
   * Refuses (TokenScreenRefusedError) a buy of `boughtAtomic` units of `mint` the filters reject.
   * `taker`: the buying wallet, the taker of a reverse quote that needs one (any wallet's answer
   * vouches for the route, so one quote still serves every agent of a signal).
   */
  async check(
    mint: string,
    boughtAtomic: bigint,
    filters: TokenScreeningFilters,
    slippageBps: number,
    taker?: string,
  ): Promise<void> {
    // The mint account and the quote back to SOL do not depend on each other: one round trip.
    const [info, reverseQuoteFound] = await together([
      () => (this.d.mintInfo ? this.d.mintInfo.get(mint) : null),
      () => (filters.requireSellable ? this.sellable(mint, boughtAtomic, slippageBps, taker) : null),
    ]);
    const result = screenToken(
      { ...mintFactsOf(info), reverseQuoteFound },
      filters,
      this.d.transferHookAllowlist ?? [],
    );
    if (result.ok) return;
    this.d.logger.info("token refused by screening", { tokenAddress: mint, rule: result.rule, reason: result.reason });
    throw new TokenScreenRefusedError(result.rule, result.reason);
  }

  /**
   * The mint's Token-2022 transfer fee, from the same mint read as the screening (null: none, or
   * no RPC to read it). The simulation withholds it from the tokens a swap moves.
   */
  async transferFee(mint: string): Promise<TransferFee | null> {
    if (!this.d.mintInfo) return null;
    return (await this.d.mintInfo.get(mint)).transferFee ?? null;
  }

  private async sellable(mint: string, amount: bigint, slippageBps: number, taker?: string): Promise<boolean> {
    const known = this.sellableUpTo.get(mint);
    if (known && this.d.clock.now() - known.at < (this.d.sellableTtlMs ?? 60_000) && amount <= known.amount)
      return true;
    // The agents of one signal reach this together: one reverse quote at the largest of their
    // amounts answers them all (a route for more tokens is a route for fewer).
    let batch = this.gathering.get(mint);
    if (batch) batch.amount = amount > batch.amount ? amount : batch.amount;
    else {
      const b = { amount, slippageBps, taker, found: Promise.resolve(false) };
      b.found = this.askForBatch(mint, b);
      this.gathering.set(mint, b);
      batch = b;
    }
    const found = await batch.found;
    if (found) return true;
    // No route for the batch's largest amount: this agent's own, smaller amount may still have one.
    return amount < batch.amount ? this.reverseQuote(mint, amount, slippageBps, taker) : false;
  }

  private async askForBatch(
    mint: string,
    b: { amount: bigint; slippageBps: number; taker?: string },
  ): Promise<boolean> {
    // Let the other agents of the same fan-out join before the quote is sent.
    await new Promise((r) => setImmediate(r));
    this.gathering.delete(mint);
    const now = this.d.clock.now();
    const found = await this.reverseQuote(mint, b.amount, b.slippageBps, b.taker);
    if (found) this.sellableUpTo.set(mint, { at: now, amount: b.amount });
    return found;
  }

  private async reverseQuote(mint: string, amount: bigint, slippageBps: number, taker?: string): Promise<boolean> {
    try {
      const q = await this.d.quotes.quote(
        { inputMint: mint, outputMint: SOL_MINT, amount: amount.toString(), slippageBps },
        taker,
      );
      return BigInt(q.outAmount) > 0n;
    } catch (err) {
      // "No route" is the answer; an outage is not, and fails the buy (fail closed).
      if (err instanceof ProviderError && err.providerCode && NO_ROUTE_CODES.has(err.providerCode)) return false;
      // An aggregator refusing the pair outright (400 without a code: the demo market) says the same.
      if (!(err instanceof ProviderError) && err instanceof ExternalServiceError && err.statusCode === 400)
        return false;
      throw err;
    }
  }
}

/** The screening filters of an agent configuration's `filters` group. */
export const screeningFilters = (f: TokenScreeningFilters): TokenScreeningFilters => ({
  rejectFreezeAuthority: f.rejectFreezeAuthority,
  rejectMintAuthority: f.rejectMintAuthority,
  rejectPermanentDelegate: f.rejectPermanentDelegate,
  rejectPausable: f.rejectPausable,
  rejectTransferHook: f.rejectTransferHook,
  rejectDefaultFrozen: f.rejectDefaultFrozen,
  rejectUnknownExtensions: f.rejectUnknownExtensions,
  maxTransferFeeBps: f.maxTransferFeeBps,
  requireSellable: f.requireSellable,
});
