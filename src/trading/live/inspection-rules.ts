import type { RawAccount } from "../../market/mint-info.ts";
import { SYSTEM_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "../../market/solana-rpc.ts";
import { parseTokenAccount } from "../../market/token-layouts.ts";
import { SOL_MINT } from "../../money.ts";

// The pure decisions of the transaction inspector (issue 15 "Inspect before signing"): which
// programs a swap may call, who may sign, what it costs in fees, and whether its simulated effect
// on the wallet is the swap that was asked for. Each refusal carries the check's name and a reason.

export const COMPUTE_BUDGET_PROGRAM_ID = "ComputeBudget111111111111111111111111111111";
export const ASSOCIATED_TOKEN_PROGRAM_ID = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
/** Jupiter Aggregator v6, the program the Swap API's routes are executed by. */
export const JUPITER_V6_PROGRAM_ID = "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4";

const KNOWN_PROGRAMS: readonly string[] = Object.freeze([
  COMPUTE_BUDGET_PROGRAM_ID,
  SYSTEM_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  TOKEN_2022_PROGRAM_ID,
  ASSOCIATED_TOKEN_PROGRAM_ID,
  JUPITER_V6_PROGRAM_ID,
]);

// LIVE_EXTRA_PROGRAMS is parsed where the configuration is (config.ts may not import trading/).
export { parseExtraPrograms } from "../../config.ts";

export function allowedPrograms(extra: readonly string[] = []): ReadonlySet<string> {
  return new Set([...KNOWN_PROGRAMS, ...extra]);
}

export type Check =
  | "signers"
  | "programs"
  | "fee"
  | "simulation"
  | "wallet"
  | "sol"
  | "tokens"
  | "authority"
  | "ata"
  | "route";
export type Verdict = { ok: true } | { ok: false; check: Check; reason: string };
const refuse = (check: Check, reason: string): Verdict => ({ ok: false, check, reason });
const OK: Verdict = { ok: true };

/** Exactly one signer, the wallet, which also pays the fees. */
export function checkSigners(signers: readonly string[], wallet: string): Verdict {
  if (signers[0] !== wallet) return refuse("signers", "The swap's fee payer is not the agent's wallet");
  if (signers.length !== 1)
    return refuse("signers", `The swap must be signed by the wallet alone; it asks for ${signers.length} signatures`);
  return OK;
}

/** Every top-level instruction calls an allowed program. */
export function checkPrograms(programIds: readonly string[], allowed: ReadonlySet<string>): Verdict {
  const unknown = [...new Set(programIds.filter((p) => !allowed.has(p)))];
  if (unknown.length > 0)
    return refuse("programs", `The swap calls a program that is not allowed: ${unknown.join(", ")}`);
  return OK;
}

export interface FeeOfTransaction {
  feeLamports: bigint;
  computeUnitLimit: bigint;
  microLamportsPerUnit: bigint;
}

/**
 * The fee the runtime charges: 5000 lamports per signature plus compute-unit price × limit
 * (SetComputeUnitLimit = 2, SetComputeUnitPrice = 3; without a limit 200k per instruction).
 */
export function transactionFee(
  instructions: ReadonlyArray<{ programId: string; data: Uint8Array }>,
  signatures: number,
): FeeOfTransaction {
  const others = instructions.filter((ix) => ix.programId !== COMPUTE_BUDGET_PROGRAM_ID).length;
  let limit = BigInt(Math.min(200_000 * others, 1_400_000));
  let price = 0n;
  for (const ix of instructions) {
    if (ix.programId !== COMPUTE_BUDGET_PROGRAM_ID) continue;
    const d = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
    if (ix.data[0] === 2 && ix.data.length >= 5) limit = BigInt(d.getUint32(1, true));
    if (ix.data[0] === 3 && ix.data.length >= 9) price = d.getBigUint64(1, true);
  }
  const priority = (price * limit + 999_999n) / 1_000_000n;
  return { feeLamports: 5_000n * BigInt(signatures) + priority, computeUnitLimit: limit, microLamportsPerUnit: price };
}

export function checkFee(fee: bigint, maxFeeLamports: bigint): Verdict {
  if (fee > maxFeeLamports)
    return refuse("fee", `The swap's fee of ${fee} lamports is above the allowed ${maxFeeLamports} lamports`);
  return OK;
}

/** What was asked: a buy spends `inAmount` lamports for ≥ minOut tokens; a sell the reverse. */
export interface SwapIntent {
  side: "buy" | "sell";
  mint: string;
  /** Lamports (buy) or token atomic units (sell) the wallet gives. */
  inAmount: bigint;
  /** The quote's otherAmountThreshold: tokens (buy) or lamports (sell) the wallet must get. */
  minOutAmount: bigint;
}

/** One writable account of the transaction, before and after the simulation (null: absent). */
export interface AccountChange {
  address: string;
  pre: RawAccount | null;
  post: RawAccount | null;
}

export interface EffectBudget {
  feeLamports: bigint;
  /** Lamports the swap may lock in new token accounts of the wallet (rent, refunded on close). */
  rentBudgetLamports: bigint;
}

export interface WalletEffect {
  /** Lamports that left the wallet and its token accounts (negative: received). */
  solOut: bigint;
  /** Net change of the traded mint over the wallet's token accounts. */
  tokenDelta: bigint;
  /** Lamports now held as rent by token accounts the swap created for the wallet. */
  newAccountRent: bigint;
}

const isTokenProgram = (p: string) => p === TOKEN_PROGRAM_ID || p === TOKEN_2022_PROGRAM_ID;
const tokenAccountOf = (a: RawAccount | null) => (a && isTokenProgram(a.owner) ? parseTokenAccount(a.data) : null);

/**
 * Judges the simulated effect on the wallet. The wallet's value is its own lamports plus the
 * lamports of token accounts it owns (rent and wrapped SOL stay the wallet's), so wrapping SOL or
 * creating its token account is not "spent", while a transfer to anyone else is.
 */
export function judgeEffect(
  wallet: string,
  intent: SwapIntent,
  changes: readonly AccountChange[],
  budget: EffectBudget,
): { verdict: Verdict; effect: WalletEffect } {
  const effect: WalletEffect = { solOut: 0n, tokenDelta: 0n, newAccountRent: 0n };
  const result = (verdict: Verdict) => ({ verdict, effect });
  const otherMints = new Map<string, bigint>();
  for (const c of changes) {
    if (c.address === wallet) {
      if (!c.pre || !c.post) return result(refuse("wallet", "The swap would close the wallet's account"));
      if (c.post.owner !== SYSTEM_PROGRAM_ID || c.post.data.length !== 0)
        return result(refuse("wallet", "The swap would hand the wallet's account to another program"));
      effect.solOut += c.pre.lamports - c.post.lamports;
      continue;
    }
    const pre = tokenAccountOf(c.pre);
    const post = tokenAccountOf(c.post);
    const preMine = pre?.owner === wallet;
    const postMine = post?.owner === wallet;
    if (!preMine && !postMine) continue;
    if (preMine && post && !postMine)
      return result(
        refuse("authority", `The swap would give the wallet's token account ${c.address} to another owner`),
      );
    if (
      postMine &&
      post.delegate !== null &&
      (pre?.delegate !== post.delegate || post.delegatedAmount > (pre?.delegatedAmount ?? 0n))
    )
      return result(refuse("authority", `The swap would let ${post.delegate} spend the wallet's tokens`));
    if (
      postMine &&
      post.closeAuthority !== null &&
      post.closeAuthority !== wallet &&
      pre?.closeAuthority !== post.closeAuthority
    )
      return result(refuse("authority", `The swap would let ${post.closeAuthority} close the wallet's token account`));
    effect.solOut += (c.pre?.lamports ?? 0n) - (c.post?.lamports ?? 0n);
    if (!preMine && postMine) effect.newAccountRent += c.post?.lamports ?? 0n;
    const mint = (post ?? pre)!.mint;
    const delta = (postMine ? post.amount : 0n) - (preMine ? pre.amount : 0n);
    if (mint === intent.mint) effect.tokenDelta += delta;
    else if (mint !== SOL_MINT) otherMints.set(mint, (otherMints.get(mint) ?? 0n) + delta);
  }
  for (const [mint, delta] of otherMints)
    if (delta < 0n) return result(refuse("tokens", `The swap would take ${-delta} units of another token (${mint})`));
  if (effect.newAccountRent > budget.rentBudgetLamports)
    return result(
      refuse(
        "sol",
        `The swap would lock ${effect.newAccountRent} lamports in new token accounts, above ${budget.rentBudgetLamports}`,
      ),
    );
  // Buy: at most the input plus the fee leaves. Sell: at least minOut arrives, less the fee.
  const allowedOut = (intent.side === "buy" ? intent.inAmount : -intent.minOutAmount) + budget.feeLamports;
  if (effect.solOut > allowedOut)
    return result(
      refuse(
        "sol",
        intent.side === "buy"
          ? `The swap would take ${effect.solOut} lamports from the wallet; at most ${allowedOut} (input plus fee) was intended`
          : `The swap would pay the wallet ${-effect.solOut} lamports net of fees; the quote promised at least ${intent.minOutAmount} less the ${budget.feeLamports}-lamport fee`,
      ),
    );
  if (intent.side === "buy" && effect.tokenDelta < intent.minOutAmount)
    return result(
      refuse(
        "tokens",
        `The swap would deliver ${effect.tokenDelta} tokens; the quote promised at least ${intent.minOutAmount}`,
      ),
    );
  if (intent.side === "sell" && -effect.tokenDelta > intent.inAmount)
    return result(
      refuse(
        "tokens",
        `The swap would take ${-effect.tokenDelta} tokens from the wallet; ${intent.inAmount} were to be sold`,
      ),
    );
  return result(OK);
}
