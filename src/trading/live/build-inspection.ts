import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "../../market/solana-rpc.ts";
import { SOL_MINT } from "../../money.ts";
import {
  type Check,
  COMPUTE_BUDGET_PROGRAM_ID,
  checkPrograms,
  type SwapIntent,
  SYSTEM_PROGRAM_ID,
  type Verdict,
} from "./inspection-rules.ts";

// Instruction-by-instruction inspection of a Swap API v2 /build answer, before anything is
// assembled or signed. /build hands us instructions, so unlike an opaque transaction each one can
// be read: the programs must be allowed, the taker the only signer, and every SOL or token
// movement the taker signs must be the route's input: lamports may leave the taker only into its
// own wrapped-SOL account (wrapping stays the taker's) up to the input of a buy, plus at most one
// Jito tip; tokens only from the taker's account of the input mint, up to the input; nothing may
// hand the taker's accounts or allowances to anyone. Jupiter's own compute-budget instructions are
// dropped (ours replace them), and none may hide among the others. The swap instruction itself
// (Jupiter's program) is judged by its simulated effect afterwards (transaction-inspector.ts).

export interface Instruction {
  programId: string;
  accounts: ReadonlyArray<{ pubkey: string; isSigner: boolean; isWritable: boolean }>;
  data: Uint8Array;
}

export interface BuildInspectionContext {
  taker: string;
  intent: SwapIntent;
  /** The taker's associated token account for `mint` under `program` (derived by the caller). */
  ataOf(mint: string, program: string): string;
  allowedPrograms: ReadonlySet<string>;
  /** Jito tip accounts and the most one tip may be; absent: no tip allowed. */
  tip?: { accounts: ReadonlySet<string>; maxLamports: bigint };
}

export interface BuildInspection {
  /** Lamports the taker wraps into its own wSOL account. */
  wrappedLamports: bigint;
  /** Input-mint units the taker's instructions move out of its accounts. */
  inputOut: bigint;
  tipLamports: bigint;
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
const SYSTEM_TRANSFER = 2;

const isToken = (p: string) => p === TOKEN_PROGRAM_ID || p === TOKEN_2022_PROGRAM_ID;

export function inspectBuildInstructions(
  ixs: readonly Instruction[],
  ctx: BuildInspectionContext,
): { verdict: Verdict; seen: BuildInspection } {
  const seen: BuildInspection = { wrappedLamports: 0n, inputOut: 0n, tipLamports: 0n };
  const programs = checkPrograms(
    ixs.map((ix) => ix.programId),
    ctx.allowedPrograms,
  );
  if (!programs.ok) return { verdict: programs, seen };
  const inputMint = ctx.intent.side === "buy" ? SOL_MINT : ctx.intent.mint;
  const wsolAta = ctx.ataOf(SOL_MINT, TOKEN_PROGRAM_ID);
  let tipped = false;
  for (const ix of ixs) {
    const other = ix.accounts.find((a) => a.isSigner && a.pubkey !== ctx.taker);
    if (other) return { ...refuse("signers", `an instruction asks ${other.pubkey} to sign`), seen };
    if (ix.programId === COMPUTE_BUDGET_PROGRAM_ID)
      return { ...refuse("fee", "a compute-budget instruction outside the compute-budget list"), seen };
    const r =
      ix.programId === SYSTEM_PROGRAM_ID
        ? systemMove(ix, ctx, wsolAta, tipped)
        : isToken(ix.programId)
          ? tokenMove(ix, ctx, inputMint)
          : null;
    if (!r) continue;
    if ("verdict" in r) return { ...r, seen };
    if (r.tip) {
      tipped = true;
      seen.tipLamports += r.tip;
    }
    seen.wrappedLamports += r.wrapped ?? 0n;
    seen.inputOut += r.input ?? 0n;
  }
  const wrapAllowed = ctx.intent.side === "buy" ? ctx.intent.inAmount : 0n;
  if (seen.wrappedLamports > wrapAllowed)
    return {
      ...refuse("sol", `the swap wraps ${seen.wrappedLamports} lamports; the input is ${wrapAllowed}`),
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
  return { verdict: { ok: true }, seen };
}

type Move = { verdict: Verdict } | { wrapped?: bigint; input?: bigint; tip?: bigint } | null;

const signedByTaker = (ix: Instruction, taker: string) => ix.accounts.some((a) => a.isSigner && a.pubkey === taker);

/**
 * System Program: whatever the taker signs must be a plain transfer from it, into its wSOL
 * account or one tip (no seeds, no assign, no account creation in its name).
 */
function systemMove(ix: Instruction, ctx: BuildInspectionContext, wsolAta: string, tipped: boolean): Move {
  if (!signedByTaker(ix, ctx.taker)) return null;
  const tag = u32(ix.data, 0);
  if (tag !== SYSTEM_TRANSFER || ix.accounts[0]?.pubkey !== ctx.taker)
    return refuse("sol", `a System Program instruction (${tag}) signed by the wallet outside the route`);
  const to = ix.accounts[1]?.pubkey ?? "";
  const lamports = u64(ix.data, 4);
  if (lamports < 0n) return refuse("sol", "a malformed System transfer from the wallet");
  if (to === wsolAta) return { wrapped: lamports };
  if (ctx.tip?.accounts.has(to)) {
    if (tipped) return refuse("sol", "the swap carries more than one tip");
    if (lamports > ctx.tip.maxLamports)
      return refuse("fee", `a tip of ${lamports} lamports is above the allowed ${ctx.tip.maxLamports}`);
    return { tip: lamports };
  }
  return refuse("sol", `the swap would transfer ${lamports} lamports from the wallet to ${to}, outside the route`);
}

/**
 * SPL Token: what the taker signs as authority may only spend the input, never give control away;
 * any other instruction the taker signs (extensions included) is refused.
 */
function tokenMove(ix: Instruction, ctx: BuildInspectionContext, inputMint: string): Move {
  const tag = ix.data[0];
  const a = (i: number) => ix.accounts[i]?.pubkey;
  switch (tag) {
    case TOKEN_TRANSFER:
      if (a(2) !== ctx.taker) return null;
      return refuse("tokens", "an unchecked token transfer signed by the wallet (its mint cannot be verified)");
    case TOKEN_TRANSFER_CHECKED: {
      if (a(3) !== ctx.taker) return null;
      const mint = a(1) ?? "";
      if (a(0) !== ctx.ataOf(mint, ix.programId)) return null; // the taker as delegate of another's account
      if (mint !== inputMint)
        return refuse("tokens", `the swap would move the wallet's ${mint} tokens, which it does not sell`);
      const amount = u64(ix.data, 1);
      return amount < 0n ? refuse("tokens", "a malformed token transfer") : { input: amount };
    }
    case TOKEN_APPROVE:
    case TOKEN_APPROVE_CHECKED:
    case TOKEN_SET_AUTHORITY: {
      const authority = tag === TOKEN_APPROVE ? a(2) : tag === TOKEN_APPROVE_CHECKED ? a(3) : a(1);
      if (authority !== ctx.taker) return null;
      return refuse("authority", "the swap would let another account control the wallet's tokens");
    }
    case TOKEN_BURN:
    case TOKEN_BURN_CHECKED:
      if (a(2) !== ctx.taker) return null;
      return refuse("tokens", "the swap would burn the wallet's tokens");
    case TOKEN_CLOSE:
      if (a(2) !== ctx.taker || a(1) === ctx.taker) return null;
      return refuse("sol", `the swap would close a wallet token account into ${a(1)}`);
    default:
      if (!signedByTaker(ix, ctx.taker)) return null;
      return refuse("tokens", `a token instruction (${tag}) signed by the wallet outside the route`);
  }
}
