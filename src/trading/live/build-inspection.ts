import { SYSTEM_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "../../market/solana-rpc.ts";
import { SOL_MINT } from "../../money.ts";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  type Check,
  COMPUTE_BUDGET_PROGRAM_ID,
  JUPITER_V6_PROGRAM_ID,
  type SwapIntent,
  type Verdict,
} from "./inspection-rules.ts";
import { decodeJupiterSwap, type JupiterSwap } from "./jupiter-route.ts";
import { judgeRoute, type RouteBounds, routeMinimum } from "./route-floor.ts";

// Instruction-by-instruction inspection of the message that will be signed (issue 32 "Inspect the
// compiled message"; rule table: docs/decisions/live-inspection-rules.md). The instructions are
// decoded from the compiled message (transaction-inspector.ts messageInstructions): who signs
// comes from its header, which accounts an instruction touches from its account indexes with the
// lookup tables read from the chain; no flag or account list from any aggregator JSON is read. The
// wallet is the fee payer, so it signs every instruction that names it: each one that names the
// wallet or one of its token accounts is examined, whatever any description of it says.
//   - System: only plain transfers from the wallet, into its own wSOL account (wrapping) up to a
//     buy's input, at most one Jito tip (capped) and in order mode one transfer of Jupiter's fee.
//   - Token / Token-2022: the wallet may spend only the input mint from its own accounts (checked
//     transfers), receive anything, sync and close its accounts into itself; nothing that hands
//     its accounts or allowances to anyone, burns, or moves its tokens under another authority.
//   - Associated Token Account: create (idempotent or not) only the wallet's own accounts of the
//     swap's two mints; nothing else (RecoverNested included).
//   - Compute Budget: each of unit limit, unit price, heap frame, loaded-data limit at most once.
//   - Jupiter v6: exactly one swap instruction, decoded from its bytes (jupiter-route.ts), whose
//     on-chain minimum is held to ours (route-floor.ts): tightened in the bytes where we may
//     (build, v1), refused otherwise; any other Jupiter instruction, or one we cannot decode, is
//     refused. Programs an operator adds (LIVE_EXTRA_PROGRAMS) are judged by the simulated effect.

export interface Instruction {
  programId: string;
  accounts: ReadonlyArray<{ pubkey: string; isSigner: boolean; isWritable: boolean }>;
  data: Uint8Array;
}

export interface WalletInstructionContext {
  wallet: string;
  intent: SwapIntent;
  /**
   * The wallet's token accounts the message names: those the chain shows it owns, and its
   * associated accounts of the swap's mints (which the message may create).
   */
  walletAccounts: ReadonlySet<string>;
  /** The wallet's associated token account of wrapped SOL (the only place SOL is wrapped into). */
  wsolAccount: string;
  /** Jito tip accounts and the most one tip may be; absent: no tip allowed. */
  tip?: { accounts: ReadonlySet<string>; maxLamports: bigint };
  /** Order mode: Jupiter's fee, taken in SOL; one transfer from the wallet up to this. */
  platformFee?: { maxLamports: bigint };
  /** What the Jupiter route's bytes must hold (route-floor.ts); its input is the intent's. */
  route: Omit<RouteBounds, "inAmount">;
}

/** The Jupiter route the message carries, as signed (its slippage after any tightening). */
interface RouteSeen {
  name: string;
  slippageBps: number;
  /** The route's own slippage when ours was written over it; null when it held ours already. */
  tightenedFromBps: number | null;
  /** The least the chain lets the swap deliver (exact in) or its output (exact out). */
  minimum: bigint;
}

export interface WalletInstructions {
  /** Lamports the wallet wraps into its own wSOL account. */
  wrappedLamports: bigint;
  /** Input-mint units the wallet's instructions move out of its accounts. */
  inputOut: bigint;
  tipLamports: bigint;
  /** Order mode: Jupiter's fee paid from the wallet by a System transfer. */
  platformFeeLamports: bigint;
  route: RouteSeen | null;
}

const refuse = (check: Check, reason: string): { verdict: Verdict } => ({ verdict: { ok: false, check, reason } });

const u32 = (d: Uint8Array, at: number) =>
  d.length >= at + 4 ? new DataView(d.buffer, d.byteOffset, d.byteLength).getUint32(at, true) : -1;
const u64 = (d: Uint8Array, at: number) =>
  d.length >= at + 8 ? new DataView(d.buffer, d.byteOffset, d.byteLength).getBigUint64(at, true) : -1n;

// SPL Token instruction tags (token and Token-2022 share them).
const TOKEN_TRANSFER = 3;
const TOKEN_APPROVE = 4;
const TOKEN_SET_AUTHORITY = 6;
const TOKEN_BURN = 8;
const TOKEN_CLOSE = 9;
const TOKEN_TRANSFER_CHECKED = 12;
const TOKEN_APPROVE_CHECKED = 13;
const TOKEN_BURN_CHECKED = 15;
const TOKEN_SYNC_NATIVE = 17;
const SYSTEM_TRANSFER = 2;
// Associated Token Account program: empty data or 0 = Create, 1 = CreateIdempotent, 2 = RecoverNested.
const ATA_CREATE = 0;
const ATA_CREATE_IDEMPOTENT = 1;
// Compute Budget: RequestHeapFrame, SetComputeUnitLimit, SetComputeUnitPrice, SetLoadedAccountsDataSizeLimit.
const COMPUTE_BUDGET_TAGS = new Set([1, 2, 3, 4]);

const isToken = (p: string) => p === TOKEN_PROGRAM_ID || p === TOKEN_2022_PROGRAM_ID;

export function inspectWalletInstructions(
  ixs: readonly Instruction[],
  ctx: WalletInstructionContext,
): { verdict: Verdict; seen: WalletInstructions } {
  const seen: WalletInstructions = {
    wrappedLamports: 0n,
    inputOut: 0n,
    tipLamports: 0n,
    platformFeeLamports: 0n,
    route: null,
  };
  const inputMint = ctx.intent.side === "buy" ? SOL_MINT : ctx.intent.mint;
  const budgetTags = new Set<number>();
  const once = { tip: false, platformFee: false };
  const routes: Array<{ ix: Instruction; swap: JupiterSwap }> = [];
  for (const ix of ixs) {
    const other = ix.accounts.find((a) => a.isSigner && a.pubkey !== ctx.wallet);
    if (other) return { ...refuse("signers", `an instruction asks ${other.pubkey} to sign`), seen };
    let r: Move;
    if (ix.programId === COMPUTE_BUDGET_PROGRAM_ID) r = computeBudget(ix, budgetTags);
    else if (ix.programId === SYSTEM_PROGRAM_ID) r = systemMove(ix, ctx, once);
    else if (isToken(ix.programId)) r = tokenMove(ix, ctx, inputMint);
    else if (ix.programId === ASSOCIATED_TOKEN_PROGRAM_ID) r = ataInstruction(ix, ctx);
    else if (ix.programId === JUPITER_V6_PROGRAM_ID) r = jupiterSwap(ix, routes);
    else r = null; // a program the operator added (LIVE_EXTRA_PROGRAMS): judged by its simulated effect
    if (!r) continue;
    if ("verdict" in r) return { ...r, seen };
    seen.tipLamports += r.tip ?? 0n;
    seen.platformFeeLamports += r.platformFee ?? 0n;
    seen.wrappedLamports += r.wrapped ?? 0n;
    seen.inputOut += r.input ?? 0n;
  }
  // A buy's input pays Jupiter's fee too; a sale pays it from its proceeds (judged by the simulation).
  const buy = ctx.intent.side === "buy";
  const solIn = seen.wrappedLamports + (buy ? seen.platformFeeLamports : 0n);
  const wrapAllowed = buy ? ctx.intent.inAmount : 0n;
  if (solIn > wrapAllowed)
    return {
      ...refuse("sol", `the swap wraps ${solIn} lamports; the input is ${wrapAllowed}`),
      seen,
    };
  if (seen.inputOut > ctx.intent.inAmount)
    return {
      ...refuse(
        "tokens",
        `the swap moves ${seen.inputOut} units of the input out; the input is ${ctx.intent.inAmount}`,
      ),
      seen,
    };
  // The route's input is the intent's less the order fee the message pays from a buy's input.
  const inAmount = ctx.intent.inAmount - (ctx.intent.side === "buy" ? seen.platformFeeLamports : 0n);
  const route = holdRoute(routes, { ...ctx.route, inAmount }, seen);
  if (route) return { ...route, seen };
  return { verdict: { ok: true }, seen };
}

type Move = { verdict: Verdict } | { wrapped?: bigint; input?: bigint; tip?: bigint; platformFee?: bigint } | null;

/** Jupiter v6: only its swap instructions, decoded (judged with the whole message seen). */
function jupiterSwap(ix: Instruction, routes: Array<{ ix: Instruction; swap: JupiterSwap }>): Move {
  const swap = decodeJupiterSwap(ix.data);
  if ("fault" in swap) return refuse("route", `a Jupiter instruction that cannot be read: ${swap.fault}`);
  routes.push({ ix, swap });
  return null;
}

/**
 * Exactly one Jupiter swap, its on-chain minimum held to ours; a looser slippage is written over
 * in the instruction's data (the message's own bytes) when `bounds.raise`.
 */
function holdRoute(
  routes: ReadonlyArray<{ ix: Instruction; swap: JupiterSwap }>,
  bounds: RouteBounds,
  seen: WalletInstructions,
): { verdict: Verdict } | null {
  if (routes.length !== 1)
    return refuse(
      "route",
      routes.length === 0
        ? "the swap carries no Jupiter route instruction whose minimum could be read"
        : "the swap carries more than one Jupiter route instruction",
    );
  const { ix, swap } = routes[0]!;
  const v = judgeRoute(swap, bounds);
  if (!v.ok) return refuse(v.check, v.reason);
  const tightened = v.slippageBps !== swap.slippageBps;
  if (tightened) new DataView(ix.data.buffer, ix.data.byteOffset).setUint16(swap.slippageAt, v.slippageBps, true);
  seen.route = {
    name: swap.name,
    slippageBps: v.slippageBps,
    tightenedFromBps: tightened ? swap.slippageBps : null,
    minimum: swap.kind === "exact_out" ? swap.amount! : routeMinimum(swap.quoted, v.slippageBps, swap.platformFeeBps),
  };
  return null;
}

const names = (ix: Instruction, ctx: WalletInstructionContext) =>
  ix.accounts.some((a) => a.pubkey === ctx.wallet || ctx.walletAccounts.has(a.pubkey));

/** Each compute-budget setting at most once (a second would fail on chain or hide a price), no accounts. */
function computeBudget(ix: Instruction, tags: Set<number>): Move {
  const tag = ix.data[0] ?? -1;
  if (!COMPUTE_BUDGET_TAGS.has(tag) || ix.accounts.length > 0)
    return refuse("fee", `an unknown compute-budget instruction (${tag})`);
  if (tags.has(tag)) return refuse("fee", `a second compute-budget instruction of kind ${tag}`);
  tags.add(tag);
  return null;
}

/**
 * System Program: every instruction naming the wallet must be a plain transfer from it, to
 * itself, into its wSOL account, to one tip account or (order mode) one payment of Jupiter's fee;
 * no seeds, no assign, no account creation in its name.
 */
function systemMove(ix: Instruction, ctx: WalletInstructionContext, once: { tip: boolean; platformFee: boolean }) {
  if (!names(ix, ctx)) return null;
  const tag = u32(ix.data, 0);
  if (tag !== SYSTEM_TRANSFER || ix.accounts[0]?.pubkey !== ctx.wallet)
    return refuse("sol", `a System Program instruction (${tag}) naming the wallet outside the route`);
  const to = ix.accounts[1]?.pubkey ?? "";
  const lamports = u64(ix.data, 4);
  if (lamports < 0n) return refuse("sol", "a malformed System transfer from the wallet");
  if (to === ctx.wallet) return {};
  if (to === ctx.wsolAccount) return { wrapped: lamports };
  if (ctx.tip?.accounts.has(to)) {
    if (once.tip) return refuse("sol", "the swap carries more than one tip");
    if (lamports > ctx.tip.maxLamports)
      return refuse("fee", `a tip of ${lamports} lamports is above the allowed ${ctx.tip.maxLamports}`);
    once.tip = true;
    return { tip: lamports };
  }
  if (ctx.platformFee && !once.platformFee && lamports <= ctx.platformFee.maxLamports) {
    once.platformFee = true;
    return { platformFee: lamports };
  }
  return refuse("sol", `the swap would transfer ${lamports} lamports from the wallet to ${to}, outside the route`);
}

/**
 * SPL Token (and Token-2022): the wallet may spend the input from its own accounts by checked
 * transfers, act as a pool's delegate, receive, sync wSOL and close its accounts into itself.
 * Anything else naming the wallet or its accounts is refused (extensions included).
 */
function tokenMove(ix: Instruction, ctx: WalletInstructionContext, inputMint: string): Move {
  if (!names(ix, ctx)) return null;
  const tag = ix.data[0];
  const a = (i: number) => ix.accounts[i]?.pubkey;
  const mine = (i: number) => ctx.walletAccounts.has(a(i) ?? "");
  const walletOnlyAt = (i: number) => ix.accounts.every((k, j) => j === i || k.pubkey !== ctx.wallet);
  switch (tag) {
    case TOKEN_TRANSFER:
    case TOKEN_TRANSFER_CHECKED: {
      const auth = tag === TOKEN_TRANSFER ? 2 : 3;
      if (!walletOnlyAt(auth)) return refuse("tokens", "a token transfer names the wallet in another role");
      if (!mine(0)) return null; // the wallet receives, or moves a pool's tokens as its delegate
      if (a(auth) !== ctx.wallet)
        return refuse("authority", `the swap would move the wallet's tokens (${a(0)}) under another authority`);
      if (tag === TOKEN_TRANSFER)
        return refuse("tokens", "an unchecked token transfer signed by the wallet (its mint cannot be verified)");
      const mint = a(1) ?? "";
      if (mint !== inputMint)
        return refuse("tokens", `the swap would move the wallet's ${mint} tokens, which it does not sell`);
      const amount = u64(ix.data, 1);
      return amount < 0n ? refuse("tokens", "a malformed token transfer") : { input: amount };
    }
    case TOKEN_SYNC_NATIVE:
      return null;
    case TOKEN_CLOSE:
      if (a(1) !== ctx.wallet || a(2) !== ctx.wallet)
        return refuse("sol", `the swap would close a token account of the wallet into ${a(1)}`);
      return null;
    case TOKEN_APPROVE:
    case TOKEN_APPROVE_CHECKED:
    case TOKEN_SET_AUTHORITY:
      return refuse("authority", "the swap would let another account control the wallet's tokens");
    case TOKEN_BURN:
    case TOKEN_BURN_CHECKED:
      return refuse("tokens", "the swap would burn the wallet's tokens");
    default:
      return refuse("tokens", `a token instruction (${tag}) naming the wallet or its accounts outside the route`);
  }
}

/**
 * Associated Token Account program: Create and CreateIdempotent only for the wallet's own account
 * of one of the swap's two mints (the wallet pays for its own accounts only, and the rent stays
 * its own); RecoverNested and anything else is no part of a swap.
 */
function ataInstruction(ix: Instruction, ctx: WalletInstructionContext): Move {
  const tag = ix.data.length === 0 ? ATA_CREATE : ix.data[0];
  if (tag !== ATA_CREATE && tag !== ATA_CREATE_IDEMPOTENT)
    return refuse("ata", `an Associated Token Account instruction (${tag}) outside the route`);
  const [payer, , owner, mint] = [0, 1, 2, 3].map((i) => ix.accounts[i]?.pubkey ?? "");
  if (owner !== ctx.wallet)
    return refuse(
      "ata",
      payer === ctx.wallet
        ? `the swap would create a token account for ${owner}, paid by the wallet`
        : `the swap would create a token account for ${owner}`,
    );
  if (mint !== ctx.intent.mint && mint !== SOL_MINT)
    return refuse("ata", `the swap would open a token account of ${mint}, which it does not trade`);
  return null;
}
