import type { AddressLookupTableAccount, VersionedTransaction } from "@solana/web3.js";
import { TradingError } from "../../errors.ts";
import { web3 } from "../../lazy/modules.ts";
import type { Logger } from "../../logger.ts";
import type { InspectorChain } from "./chain-reads.ts";
import {
  type AccountChange,
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

// Inspect before signing (issue 15): the aggregator's transaction is untrusted input. Before the
// wallet signs it: resolve its address lookup tables over RPC, allow only known programs and the
// wallet as sole signer, bound its fee, then simulate it with the wallet's writable accounts
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
}

export interface InspectionReport {
  feeLamports: bigint;
  effect: WalletEffect;
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
  const { verdict, effect } = judgeEffect(input.wallet, input.intent, changes, {
    feeLamports: fee.feeLamports,
    rentBudgetLamports: input.rentBudgetLamports ?? DEFAULT_RENT_BUDGET_LAMPORTS,
  });
  refuse(verdict);
  return { feeLamports: fee.feeLamports, effect, accountKeys: keys, programIds };
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
