import type { AddressLookupTableAccount, TransactionInstruction, VersionedTransaction } from "@solana/web3.js";
import { web3 } from "../../lazy/modules.ts";
import type { ApiInstruction, BuildResponse } from "../../market/jupiter-swap-v2.ts";
import { type BuildInspection, type Instruction, inspectBuildInstructions } from "./build-inspection.ts";
import type { InspectorChain } from "./chain-reads.ts";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  COMPUTE_BUDGET_PROGRAM_ID,
  checkSigners,
  type SwapIntent,
} from "./inspection-rules.ts";
import { type InspectionReport, inspectSwapTransaction, SwapRefusedError } from "./transaction-inspector.ts";

// Swap API v2 `build` mode: the v0 transaction is assembled here from /build's instructions, with
// OUR blockhash, OUR compute-unit limit and price (Jupiter's compute-budget instructions are
// dropped), lookup tables read from the chain (Jupiter's listing of their contents is only
// checked against them), and an optional Jito tip as the last instruction. Nothing is signed
// until the instructions passed build-inspection.ts and the assembled transaction passed the
// simulation inspection (transaction-inspector.ts) with the tip counted as spent input.

const ALT_PROGRAM_ID = "AddressLookupTab1e1111111111111111111111111";

export type BuildInstructions = Pick<
  BuildResponse,
  | "computeBudgetInstructions"
  | "setupInstructions"
  | "swapInstruction"
  | "cleanupInstruction"
  | "otherInstructions"
  | "addressesByLookupTableAddress"
>;

export interface AssemblyInput {
  build: BuildInstructions;
  taker: string;
  intent: SwapIntent;
  /** Our blockhash (read by the send path), never the one /build offers. */
  blockhash: string;
  computeUnitLimit: number;
  microLamportsPerUnit: bigint;
  lookupTables: readonly AddressLookupTableAccount[];
  allowedPrograms: ReadonlySet<string>;
  /** A Jito tip to one of `tipAccounts`, at most `maxTipLamports`. */
  tip?: { account: string; lamports: bigint; tipAccounts: ReadonlySet<string>; maxTipLamports: bigint };
}

interface Assembled {
  /** Unsigned. */
  transaction: VersionedTransaction;
  inspection: BuildInspection;
}

const decode = (ix: ApiInstruction): Instruction => ({
  programId: ix.programId,
  accounts: ix.accounts,
  data: new Uint8Array(Buffer.from(ix.data, "base64")),
});

/** The instruction lists of a /build answer (as parsed, or its raw document: missing lists are empty). */
interface RouteLists<T> {
  setupInstructions: readonly T[];
  swapInstruction: T;
  cleanupInstruction?: T | null;
  otherInstructions?: readonly T[];
}

/** /build's route in execution order: setup, swap, cleanup, then the other instructions. */
function routeOrder<T>(build: RouteLists<T>): T[] {
  return [
    ...build.setupInstructions,
    build.swapInstruction,
    ...(build.cleanupInstruction ? [build.cleanupInstruction] : []),
    ...(build.otherInstructions ?? []),
  ];
}

function routeInstructions(build: BuildInstructions): Instruction[] {
  return routeOrder(build).map(decode);
}

/**
 * Accounts the message compiled from the route for `payer` write-locks (what its priority fee
 * competes for), read from that message's header, not from the answer's flags: the live
 * assembly's and a simulated fill's (the /build answer the v2 client validated). Compiled without
 * lookup tables: a table changes how an account is addressed, never whether it is write-locked.
 * The Jito tip's account is not among them (every bundle locks it; the tip is its own auction).
 */
export function writableAccounts(build: RouteLists<ApiInstruction>, payer: string): string[] {
  const { PublicKey, TransactionMessage } = web3();
  const message = new TransactionMessage({
    payerKey: new PublicKey(payer),
    recentBlockhash: PublicKey.default.toBase58(),
    instructions: routeOrder(build).map((ix) => web3Instruction(decode(ix))),
  }).compileToV0Message();
  return message.staticAccountKeys.filter((_, i) => message.isAccountWritable(i)).map((k) => k.toBase58());
}

function web3Instruction(ix: Instruction): TransactionInstruction {
  const { PublicKey, TransactionInstruction } = web3();
  return new TransactionInstruction({
    programId: new PublicKey(ix.programId),
    keys: ix.accounts.map((a) => ({ pubkey: new PublicKey(a.pubkey), isSigner: a.isSigner, isWritable: a.isWritable })),
    data: Buffer.from(ix.data),
  });
}

function assembleBuildTransaction(input: AssemblyInput): Assembled {
  const { ComputeBudgetProgram, PublicKey, SystemProgram, TransactionMessage } = web3();
  const foreign = input.build.computeBudgetInstructions.find((ix) => ix.programId !== COMPUTE_BUDGET_PROGRAM_ID);
  if (foreign)
    throw new SwapRefusedError("programs", `a compute-budget instruction calls another program (${foreign.programId})`);
  const route = routeInstructions(input.build);
  const tipIx = input.tip
    ? SystemProgram.transfer({
        fromPubkey: new PublicKey(input.taker),
        toPubkey: new PublicKey(input.tip.account),
        lamports: input.tip.lamports,
      })
    : null;
  const inspected = [...route, ...(tipIx ? [asInstruction(tipIx)] : [])];
  const wallet = new PublicKey(input.taker);
  const ataOf = (mint: string, program: string) =>
    PublicKey.findProgramAddressSync(
      [wallet.toBytes(), new PublicKey(program).toBytes(), new PublicKey(mint).toBytes()],
      new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID),
    )[0].toBase58();
  const { verdict, seen } = inspectBuildInstructions(inspected, {
    taker: input.taker,
    intent: input.intent,
    ataOf,
    allowedPrograms: input.allowedPrograms,
    tip: input.tip ? { accounts: input.tip.tipAccounts, maxLamports: input.tip.maxTipLamports } : undefined,
  });
  if (!verdict.ok) throw new SwapRefusedError(verdict.check, verdict.reason);

  const instructions: TransactionInstruction[] = [
    ComputeBudgetProgram.setComputeUnitLimit({ units: input.computeUnitLimit }),
    ComputeBudgetProgram.setComputeUnitPrice({ microLamports: input.microLamportsPerUnit }),
    ...route.map(web3Instruction),
    ...(tipIx ? [tipIx] : []),
  ];
  const message = new TransactionMessage({
    payerKey: wallet,
    recentBlockhash: input.blockhash,
    instructions,
  }).compileToV0Message([...input.lookupTables]);
  const signers = message.staticAccountKeys.slice(0, message.header.numRequiredSignatures).map((k) => k.toBase58());
  const signed = checkSigners(signers, input.taker);
  if (!signed.ok) throw new SwapRefusedError(signed.check, signed.reason);
  return { transaction: new (web3().VersionedTransaction)(message), inspection: seen };
}

function asInstruction(ix: TransactionInstruction): Instruction {
  return {
    programId: ix.programId.toBase58(),
    accounts: ix.keys.map((k) => ({ pubkey: k.pubkey.toBase58(), isSigner: k.isSigner, isWritable: k.isWritable })),
    data: new Uint8Array(ix.data),
  };
}

/**
 * The lookup tables /build names, read from the chain: the transaction is compiled against what
 * the runtime will load, and an answer whose listing disagrees with the chain is refused.
 */
export async function resolveLookupTables(
  chain: InspectorChain,
  listed: BuildInstructions["addressesByLookupTableAddress"],
): Promise<AddressLookupTableAccount[]> {
  const entries = Object.entries(listed ?? {});
  if (entries.length === 0) return [];
  const { AddressLookupTableAccount, PublicKey } = web3();
  const read = await chain.getAccounts(entries.map(([address]) => address));
  return entries.map(([address, addresses], i) => {
    const acc = read.accounts[i];
    if (!acc || acc.owner !== ALT_PROGRAM_ID)
      throw new SwapRefusedError("programs", `address lookup table ${address} was not found`);
    const table = new AddressLookupTableAccount({
      key: new PublicKey(address),
      state: AddressLookupTableAccount.deserialize(acc.data),
    });
    const onChain = table.state.addresses.map((a) => a.toBase58());
    if (addresses.some((a, j) => onChain[j] !== a))
      throw new SwapRefusedError(
        "programs",
        `address lookup table ${address} does not hold what the aggregator listed`,
      );
    return table;
  });
}

export interface PreparedBuildSwap extends Assembled {
  report: InspectionReport;
}

/**
 * Lookup tables from the chain (or the caller's read of them for this swap), assembly with the
 * instruction inspection, then the simulation inspection of the assembled transaction, resolved
 * with the same tables it was compiled against. The tip is spent like input: a buy may lose it on
 * top of the input, a sell receives that much less.
 */
export async function prepareBuildSwap(
  deps: { chain: InspectorChain },
  input: Omit<AssemblyInput, "lookupTables"> & {
    maxFeeLamports: bigint;
    lookupTables?: readonly AddressLookupTableAccount[];
  },
): Promise<PreparedBuildSwap> {
  const lookupTables =
    input.lookupTables ?? (await resolveLookupTables(deps.chain, input.build.addressesByLookupTableAddress));
  const assembled = assembleBuildTransaction({ ...input, lookupTables });
  const tip = input.tip?.lamports ?? 0n;
  const intent: SwapIntent =
    input.intent.side === "buy"
      ? { ...input.intent, inAmount: input.intent.inAmount + tip }
      : { ...input.intent, minOutAmount: input.intent.minOutAmount - tip };
  const report = await inspectSwapTransaction(
    { chain: deps.chain, allowedPrograms: input.allowedPrograms },
    {
      transaction: assembled.transaction,
      wallet: input.taker,
      intent,
      maxFeeLamports: input.maxFeeLamports,
      lookupTables,
    },
  );
  return { ...assembled, report };
}
