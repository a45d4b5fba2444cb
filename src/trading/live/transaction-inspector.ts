import type { AddressLookupTableAccount, VersionedTransaction } from "@solana/web3.js";
import { TradingError } from "../../errors.ts";
import { web3 } from "../../lazy/modules.ts";
import type { Logger } from "../../logger.ts";
import type { RawAccount } from "../../market/mint-info.ts";
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "../../market/solana-rpc.ts";
import { parseTokenAccount } from "../../market/token-layouts.ts";
import { SOL_MINT } from "../../money.ts";
import { type Instruction, inspectWalletInstructions, type WalletInstructions } from "./build-inspection.ts";
import type { InspectorChain } from "./chain-reads.ts";
import {
  type AccountChange,
  ASSOCIATED_TOKEN_PROGRAM_ID,
  type Check,
  checkFee,
  checkPrograms,
  checkSigners,
  judgeEffect,
  type SwapIntent,
  transactionFee,
  type Verdict,
  type WalletEffect,
} from "./inspection-rules.ts";

// Inspect before signing (issue 15, issue 32): the transaction is untrusted input, whoever built
// it (assembled here from /build, Jupiter's /order, v1's /swap). Before the wallet signs it:
// resolve its address lookup tables over RPC, allow only known programs and the wallet as sole
// signer, bound its fee, examine every instruction naming the wallet (build-inspection.ts), then
// simulate it with the wallet's writable accounts
// returned and compare them with the same accounts read just before: the wallet may lose at most
// the input plus the fee, must receive at least the quote's otherAmountThreshold, and keeps every
// other token, its token accounts' owners and delegates. Anything else is a TradingError naming
// the check, and nothing is signed.

const ALT_PROGRAM_ID = "AddressLookupTab1e1111111111111111111111111";

export interface InspectionInput {
  transaction: VersionedTransaction;
  wallet: string;
  intent: SwapIntent;
  /** Most the swap may pay in fees (signature fee plus the priority fee cap). */
  maxFeeLamports: bigint;
  /** Most it may lock as rent in new token accounts of the wallet (two accounts by default). */
  rentBudgetLamports?: bigint;
  /**
   * The lookup tables the transaction was compiled against, read from the chain by the caller for
   * this swap (build mode): its keys are resolved with them instead of a second read of the same
   * accounts. Absent, or not covering every table the message names: read here.
   */
  lookupTables?: readonly AddressLookupTableAccount[];
  /** Jito tip accounts and the most one tip may be (build mode with Jito); spent like input. */
  tip?: { accounts: ReadonlySet<string>; maxLamports: bigint };
  /** Order mode: the most Jupiter's fee may take from the wallet as one SOL transfer. */
  platformFeeLamports?: bigint;
  /** Order mode: the most platform_fee_bps the Jupiter route may take (0 otherwise: we ask none). */
  routeFeeBps?: number;
  /**
   * Build and v1 mode: a Jupiter route whose slippage is looser than our minimum allows is
   * tightened in the message's bytes (route-floor.ts) instead of refused. The transaction is
   * changed in place: the caller signs this very object.
   */
  tightenRoute?: boolean;
}

export interface InspectionReport {
  feeLamports: bigint;
  effect: WalletEffect;
  /** What the wallet's instructions in the message move (wrap, input, tip, Jupiter's fee). */
  instructions: WalletInstructions;
  /** Every account key, lookup tables resolved (static, then loaded writable, then readonly). */
  accountKeys: string[];
  programIds: string[];
}

export interface InspectorDeps {
  chain: InspectorChain;
  allowedPrograms: ReadonlySet<string>;
  logger?: Logger;
}

/** Rent of two token accounts (a Token-2022 account with extensions is larger than 165 bytes). */
const DEFAULT_RENT_BUDGET_LAMPORTS = 2n * 2_200_000n;

export class SwapRefusedError extends TradingError {
  constructor(
    readonly check: Check,
    reason: string,
  ) {
    super(`Swap refused before signing: ${reason}`, { check });
  }
}

/**
 * The one gate before the wallet signs (issue 32): the bytes to be signed are its only input.
 * Signers and writable flags come from the message header, accounts through lookup tables read
 * from the chain; every instruction naming the wallet or its token accounts passes the rules of
 * build-inspection.ts; then the simulated effect on the wallet is judged (inspection-rules.ts).
 */
export async function inspectSwapTransaction(deps: InspectorDeps, input: InspectionInput): Promise<InspectionReport> {
  const refuse = (v: Verdict): void => {
    if (v.ok) return;
    deps.logger?.warn("swap refused by inspection", { check: v.check, reason: v.reason, mint: input.intent.mint });
    throw new SwapRefusedError(v.check, v.reason);
  };
  const msg = input.transaction.message;
  const staticKeys = msg.staticAccountKeys.map((k) => k.toBase58());
  refuse(checkSigners(staticKeys.slice(0, msg.header.numRequiredSignatures), input.wallet));

  const programIds = msg.compiledInstructions.map((ix) => staticKeys[ix.programIdIndex] ?? "(lookup table)");
  refuse(checkPrograms(programIds, deps.allowedPrograms));
  const fee = transactionFee(
    msg.compiledInstructions.map((ix, i) => ({ programId: programIds[i]!, data: ix.data })),
    msg.header.numRequiredSignatures,
  );
  refuse(checkFee(fee.feeLamports, input.maxFeeLamports));

  const keys = await resolveKeys(deps.chain, input.transaction, input.lookupTables);
  const writable = writableKeys(input.transaction, keys);
  const before = await deps.chain.getAccounts(writable);
  const { verdict: named, seen } = inspectWalletInstructions(messageInstructions(input.transaction, keys), {
    wallet: input.wallet,
    intent: input.intent,
    walletAccounts: walletAccounts(input.wallet, input.intent.mint, writable, before.accounts),
    wsolAccount: associatedAccount(input.wallet, SOL_MINT, TOKEN_PROGRAM_ID),
    tip: input.tip,
    platformFee: input.platformFeeLamports === undefined ? undefined : { maxLamports: input.platformFeeLamports },
    route: {
      minOut: input.intent.minOutAmount,
      maxPlatformFeeBps: input.routeFeeBps ?? 0,
      raise: input.tightenRoute ?? false,
    },
  });
  refuse(named);
  if (seen.route?.tightenedFromBps != null)
    deps.logger?.info("route slippage tightened in the signed bytes to hold our minimum", {
      mint: input.intent.mint,
      route: seen.route.name,
      fromBps: seen.route.tightenedFromBps,
      toBps: seen.route.slippageBps,
      minimum: seen.route.minimum.toString(),
    });

  const base64 = Buffer.from(input.transaction.serialize()).toString("base64");
  const sim = await deps.chain.simulate(base64, writable, before.slot);
  if (sim.err !== null || !sim.accounts)
    refuse({ ok: false, check: "simulation", reason: `the swap would fail on chain (${JSON.stringify(sim.err)})` });
  const after = sim.accounts!;
  const changes: AccountChange[] = writable.map((address, i) => ({
    address,
    pre: before.accounts[i] ?? null,
    post: after[i] ?? null,
  }));
  // A tip is spent like input: a buy may lose it on top of the input, a sale receives that much less.
  const tip = seen.tipLamports;
  const intent: SwapIntent =
    input.intent.side === "buy"
      ? { ...input.intent, inAmount: input.intent.inAmount + tip }
      : { ...input.intent, minOutAmount: input.intent.minOutAmount - tip };
  const { verdict, effect } = judgeEffect(input.wallet, intent, changes, {
    feeLamports: fee.feeLamports,
    rentBudgetLamports: input.rentBudgetLamports ?? DEFAULT_RENT_BUDGET_LAMPORTS,
  });
  refuse(verdict);
  return { feeLamports: fee.feeLamports, effect, instructions: seen, accountKeys: keys, programIds };
}

/**
 * The message's instructions as the runtime sees them: program and accounts by index into the
 * resolved keys, each account's signer and writable flags from the header and lookups.
 */
export function messageInstructions(tx: VersionedTransaction, keys: readonly string[]): Instruction[] {
  const msg = tx.message;
  return msg.compiledInstructions.map((ix) => ({
    programId: keys[ix.programIdIndex] ?? "",
    accounts: ix.accountKeyIndexes.map((i) => ({
      pubkey: keys[i] ?? "",
      isSigner: msg.isAccountSigner(i),
      isWritable: msg.isAccountWritable(i),
    })),
    data: ix.data,
  }));
}

function associatedAccount(wallet: string, mint: string, program: string): string {
  const { PublicKey } = web3();
  return PublicKey.findProgramAddressSync(
    [new PublicKey(wallet).toBytes(), new PublicKey(program).toBytes(), new PublicKey(mint).toBytes()],
    new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID),
  )[0].toBase58();
}

/**
 * The wallet's token accounts among the message's writable accounts (every account an
 * instruction can debit, close or re-authorize is writable): those the chain shows it owns, and
 * its associated accounts of the traded mint and wSOL, which the message may create.
 */
function walletAccounts(
  wallet: string,
  mint: string,
  writable: readonly string[],
  pre: ReadonlyArray<RawAccount | null>,
): Set<string> {
  const out = new Set([
    associatedAccount(wallet, mint, TOKEN_PROGRAM_ID),
    associatedAccount(wallet, mint, TOKEN_2022_PROGRAM_ID),
    associatedAccount(wallet, SOL_MINT, TOKEN_PROGRAM_ID),
  ]);
  writable.forEach((address, i) => {
    const acc = pre[i];
    if (acc && (acc.owner === TOKEN_PROGRAM_ID || acc.owner === TOKEN_2022_PROGRAM_ID)) {
      const parsed = parseTokenAccount(acc.data);
      if (parsed?.owner === wallet) out.add(address);
    }
  });
  return out;
}

/** Static keys, then each lookup table's writable, then readonly entries (the runtime's order). */
async function resolveKeys(
  chain: InspectorChain,
  tx: VersionedTransaction,
  known: readonly AddressLookupTableAccount[] = [],
): Promise<string[]> {
  const lookups = tx.message.addressTableLookups;
  const staticKeys = tx.message.staticAccountKeys.map((k) => k.toBase58());
  if (lookups.length === 0) return staticKeys;
  const given = lookups.map((l) => known.find((t) => t.key.equals(l.accountKey)));
  const resolved = given.every((t) => t !== undefined) ? given : await readTables(chain, tx);
  try {
    const k = tx.message.getAccountKeys({ addressLookupTableAccounts: resolved });
    return k
      .keySegments()
      .flat()
      .map((p) => p.toBase58());
  } catch {
    throw new SwapRefusedError("programs", "the swap's address lookup table entries do not resolve");
  }
}

async function readTables(chain: InspectorChain, tx: VersionedTransaction): Promise<AddressLookupTableAccount[]> {
  const lookups = tx.message.addressTableLookups;
  const tables = await chain.getAccounts(lookups.map((l) => l.accountKey.toBase58()));
  const { AddressLookupTableAccount, PublicKey } = web3();
  return lookups.map((l, i) => {
    const acc = tables.accounts[i];
    if (!acc || acc.owner !== ALT_PROGRAM_ID)
      throw new SwapRefusedError("programs", `address lookup table ${l.accountKey.toBase58()} was not found`);
    return new AddressLookupTableAccount({
      key: new PublicKey(l.accountKey),
      state: AddressLookupTableAccount.deserialize(acc.data),
    });
  });
}

function writableKeys(tx: VersionedTransaction, keys: string[]): string[] {
  const out: string[] = [];
  keys.forEach((k, i) => {
    if (tx.message.isAccountWritable(i) && !out.includes(k)) out.push(k);
  });
  return out;
}
