import type { AddressLookupTableAccount, TransactionInstruction, VersionedTransaction } from "@solana/web3.js";
import { web3 } from "../../lazy/modules.ts";
import type { ApiInstruction, BuildResponse } from "../../market/jupiter-swap-v2.ts";
import type { InspectorChain } from "./chain-reads.ts";
import { COMPUTE_BUDGET_PROGRAM_ID, type SwapIntent } from "./inspection-rules.ts";
import { type InspectionReport, inspectSwapTransaction, SwapRefusedError } from "./transaction-inspector.ts";

// Swap API v2 `build` mode: the v0 transaction is assembled here from /build's instructions, with
// OUR blockhash, OUR compute-unit limit and price (Jupiter's compute-budget instructions are
// dropped), lookup tables read from the chain (Jupiter's listing of their contents is only
// checked against them), and an optional Jito tip as the last instruction. Nothing is signed
// until the assembled message passed the inspection (transaction-inspector.ts): its instructions
// as compiled (build-inspection.ts), then its simulation, the tip counted as spent input.

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

const decode = (ix: ApiInstruction) => ({
  programId: ix.programId,
  accounts: ix.accounts,
  data: Buffer.from(ix.data, "base64"),
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

function web3Instruction(ix: ReturnType<typeof decode>): TransactionInstruction {
  const { PublicKey, TransactionInstruction } = web3();
  return new TransactionInstruction({
    programId: new PublicKey(ix.programId),
    keys: ix.accounts.map((a) => ({ pubkey: new PublicKey(a.pubkey), isSigner: a.isSigner, isWritable: a.isWritable })),
    data: Buffer.from(ix.data),
  });
}

/**
 * The unsigned v0 message: our compute budget, /build's route, our tip. /build's JSON is only
 * material to build from: its flags become the message's header, which the inspection reads (a
 * taker flagged isSigner:false still signs as the fee payer; another signer is refused there).
 */
function assembleBuildTransaction(input: AssemblyInput): VersionedTransaction {
  const { ComputeBudgetProgram, PublicKey, SystemProgram, TransactionMessage } = web3();
  const foreign = input.build.computeBudgetInstructions.find((ix) => ix.programId !== COMPUTE_BUDGET_PROGRAM_ID);
  if (foreign)
    throw new SwapRefusedError("programs", `a compute-budget instruction calls another program (${foreign.programId})`);
  const wallet = new PublicKey(input.taker);
  const instructions: TransactionInstruction[] = [
    ComputeBudgetProgram.setComputeUnitLimit({ units: input.computeUnitLimit }),
    ComputeBudgetProgram.setComputeUnitPrice({ microLamports: input.microLamportsPerUnit }),
    ...routeOrder(input.build).map(decode).map(web3Instruction),
    ...(input.tip
      ? [
          SystemProgram.transfer({
            fromPubkey: wallet,
            toPubkey: new PublicKey(input.tip.account),
            lamports: input.tip.lamports,
          }),
        ]
      : []),
  ];
  const message = new TransactionMessage({
    payerKey: wallet,
    recentBlockhash: input.blockhash,
    instructions,
  }).compileToV0Message([...input.lookupTables]);
  return new (web3().VersionedTransaction)(message);
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

export interface PreparedBuildSwap {
  /** Unsigned: the very message the inspection read and simulated. */
  transaction: VersionedTransaction;
  report: InspectionReport;
}

/**
 * Lookup tables from the chain (or the caller's read of them for this swap), the assembly, then
 * the inspection of the assembled message (transaction-inspector.ts), resolved with the same
 * tables it was compiled against; the tip is allowed to one of the tip accounts, up to its cap.
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
  const transaction = assembleBuildTransaction({ ...input, lookupTables });
  const report = await inspectSwapTransaction(
    { chain: deps.chain, allowedPrograms: input.allowedPrograms },
    {
      transaction,
      wallet: input.taker,
      intent: input.intent,
      maxFeeLamports: input.maxFeeLamports,
      lookupTables,
      tip: input.tip ? { accounts: input.tip.tipAccounts, maxLamports: input.tip.maxTipLamports } : undefined,
      // We assembled it: a route looser than our minimum is tightened in the bytes we sign.
      tightenRoute: true,
    },
  );
  return { transaction, report };
}
