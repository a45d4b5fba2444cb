// litesvm reports transaction errors as numbers (fieldless variants) or small classes; the RPC
// shim answers them in the JSON shape a real node uses (https://solana.com/docs/rpc/json-structures):
// "BlockhashNotFound", {"InstructionError": [2, {"Custom": 1}]}, {"InsufficientFundsForRent":
// {"account_index": 3}}. The names are the variant order of litesvm's internal.d.ts enums.

const TX_FIELDLESS = [
  "AccountInUse",
  "AccountLoadedTwice",
  "AccountNotFound",
  "ProgramAccountNotFound",
  "InsufficientFundsForFee",
  "InvalidAccountForFee",
  "AlreadyProcessed",
  "BlockhashNotFound",
  "CallChainTooDeep",
  "MissingSignatureForFee",
  "InvalidAccountIndex",
  "SignatureFailure",
  "InvalidProgramForExecution",
  "SanitizeFailure",
  "ClusterMaintenance",
  "AccountBorrowOutstanding",
  "WouldExceedMaxBlockCostLimit",
  "UnsupportedVersion",
  "InvalidWritableAccount",
  "WouldExceedMaxAccountCostLimit",
  "WouldExceedAccountDataBlockLimit",
  "TooManyAccountLocks",
  "AddressLookupTableNotFound",
  "InvalidAddressLookupTableOwner",
  "InvalidAddressLookupTableData",
  "InvalidAddressLookupTableIndex",
  "InvalidRentPayingAccount",
  "WouldExceedMaxVoteCostLimit",
  "WouldExceedAccountDataTotalLimit",
  "MaxLoadedAccountsDataSizeExceeded",
  "ResanitizationNeeded",
  "InvalidLoadedAccountsDataSizeLimit",
  "UnbalancedTransaction",
  "ProgramCacheHitMaxLimit",
  "CommitCancelled",
];

const IX_FIELDLESS = [
  "GenericError",
  "InvalidArgument",
  "InvalidInstructionData",
  "InvalidAccountData",
  "AccountDataTooSmall",
  "InsufficientFunds",
  "IncorrectProgramId",
  "MissingRequiredSignature",
  "AccountAlreadyInitialized",
  "UninitializedAccount",
  "UnbalancedInstruction",
  "ModifiedProgramId",
  "ExternalAccountLamportSpend",
  "ExternalAccountDataModified",
  "ReadonlyLamportChange",
  "ReadonlyDataModified",
  "DuplicateAccountIndex",
  "ExecutableModified",
  "RentEpochModified",
  "NotEnoughAccountKeys",
  "AccountDataSizeChanged",
  "AccountNotExecutable",
  "AccountBorrowFailed",
  "AccountBorrowOutstanding",
  "DuplicateAccountOutOfSync",
  "InvalidError",
  "ExecutableDataModified",
  "ExecutableLamportChange",
  "ExecutableAccountNotRentExempt",
  "UnsupportedProgramId",
  "CallDepth",
  "MissingAccount",
  "ReentrancyNotAllowed",
  "MaxSeedLengthExceeded",
  "InvalidSeeds",
  "InvalidRealloc",
  "ComputationalBudgetExceeded",
  "PrivilegeEscalation",
  "ProgramEnvironmentSetupFailure",
  "ProgramFailedToComplete",
  "ProgramFailedToCompile",
  "Immutable",
  "IncorrectAuthority",
  "AccountNotRentExempt",
  "InvalidAccountOwner",
  "ArithmeticOverflow",
  "UnsupportedSysvar",
  "IllegalOwner",
  "MaxAccountsDataAllocationsExceeded",
  "MaxAccountsExceeded",
  "MaxInstructionTraceLengthExceeded",
  "BuiltinProgramsMustConsumeComputeUnits",
  "BorshIoError",
];

type AnyErr = any;

function instructionErrorJson(e: AnyErr): unknown {
  if (typeof e === "number") return IX_FIELDLESS[e] ?? `InstructionError${e}`;
  if (e && typeof e.code === "number") return { Custom: e.code };
  if (e && typeof e.msg === "string") return { BorshIoError: e.msg };
  return "GenericError";
}

/** A litesvm transaction error in the JSON-RPC shape. */
export function transactionErrorJson(e: AnyErr): unknown {
  if (e === null || e === undefined) return null;
  if (typeof e === "number") return TX_FIELDLESS[e] ?? `TransactionError${e}`;
  const name = e.constructor?.name ?? "";
  if (name.endsWith("InstructionError")) return { InstructionError: [e.index, instructionErrorJson(e.err())] };
  if (name.endsWith("DuplicateInstruction")) return { DuplicateInstruction: e.index };
  if (name.endsWith("InsufficientFundsForRent")) return { InsufficientFundsForRent: { account_index: e.accountIndex } };
  if (name.endsWith("ProgramExecutionTemporarilyRestricted"))
    return { ProgramExecutionTemporarilyRestricted: { account_index: e.accountIndex } };
  return String(e);
}

/**
 * Whether a failed transaction was executed (landed failed, fee charged) rather than refused
 * before execution (bad blockhash, signature, fee payer...: never lands, no fee).
 */
export function landedDespiteError(json: unknown): boolean {
  return (
    typeof json === "object" &&
    json !== null &&
    ("InstructionError" in json || "InsufficientFundsForRent" in json || "DuplicateInstruction" in json)
  );
}
