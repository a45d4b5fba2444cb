import bs58 from "bs58";

// The on-chain byte layouts of SPL Token and Token-2022 mints and token accounts, read without a
// client library (https://github.com/solana-program/token, token-2022 "extension" TLV format):
//
//   Mint (82 bytes): mintAuthority COption<Pubkey> (4+32) | supply u64 | decimals u8 |
//                    isInitialized u8 | freezeAuthority COption<Pubkey> (4+32)
//   Account (165 bytes): mint | owner | amount u64 | delegate COption (4+32) | state u8 |
//                    isNative COption<u64> (4+8) | delegatedAmount u64 | closeAuthority COption (4+32)
//   Token-2022 with extensions: the base is padded to 165 bytes, byte 165 is the account type
//   (1 mint, 2 account), then TLV entries (type u16 LE, length u16 LE, value) from byte 166.
//
// A pure parser so that the mint reader, the transaction inspector and their tests agree on one
// reading. Anything that does not fit these layouts is `null`, never a guess.

const MINT_SIZE = 82;
const TOKEN_ACCOUNT_SIZE = 165;
const ACCOUNT_TYPE_MINT = 1;
const ACCOUNT_TYPE_ACCOUNT = 2;

/** Token-2022 mint extension type numbers (spl-token-2022 `ExtensionType`). */
export const MintExtension = {
  TransferFeeConfig: 1,
  MintCloseAuthority: 3,
  ConfidentialTransferMint: 4,
  DefaultAccountState: 6,
  NonTransferable: 9,
  InterestBearingConfig: 10,
  PermanentDelegate: 12,
  TransferHook: 14,
  ConfidentialTransferFeeConfig: 16,
  MetadataPointer: 18,
  TokenMetadata: 19,
  GroupPointer: 20,
  TokenGroup: 21,
  GroupMemberPointer: 22,
  TokenGroupMember: 23,
  ConfidentialMintBurn: 24,
  ScaledUiAmount: 25,
  Pausable: 26,
} as const;

/** Every mint extension type spl-token-2022 defines today; any other is unknown to us. */
export const KNOWN_MINT_EXTENSIONS: ReadonlySet<number> = new Set(Object.values(MintExtension));

/** DefaultAccountState's `state`: 2 = a new token account starts frozen. */
const ACCOUNT_STATE_FROZEN = 2;

interface TransferFee {
  epoch: bigint;
  maximumFee: bigint;
  basisPoints: number;
}

export interface ParsedMint {
  decimals: number;
  supply: bigint;
  isInitialized: boolean;
  mintAuthority: string | null;
  freezeAuthority: string | null;
  /** Token-2022 extension types present (empty for classic Token). */
  extensions: number[];
  /** Token-2022 TransferFeeConfig: the fee in force before and from `newer.epoch`. */
  transferFee: { older: TransferFee; newer: TransferFee } | null;
  /** PermanentDelegate: may move or burn any holder's tokens without their signature. */
  permanentDelegate: string | null;
  /** Pausable: the authority that may pause every transfer, and whether it has. */
  pauseAuthority: string | null;
  paused: boolean;
  /** TransferHook: the program every transfer calls (null: none set yet). */
  transferHookProgram: string | null;
  /** TransferHook: who may set or replace that program (null: nobody, the program is fixed). */
  transferHookAuthority: string | null;
  /** DefaultAccountState = frozen: a new token account starts frozen until the freeze authority thaws it. */
  defaultAccountFrozen: boolean;
}

export interface ParsedTokenAccount {
  mint: string;
  owner: string;
  amount: bigint;
  delegate: string | null;
  delegatedAmount: bigint;
  /** 0 uninitialized, 1 initialized, 2 frozen. */
  state: number;
  closeAuthority: string | null;
  /**
   * Token-2022 TransferFeeAmount: fees withheld in this account (0 without the extension). The
   * program refuses to close an account while it holds any.
   */
  withheldAmount: bigint;
}

/** Token-2022 account extension TransferFeeAmount (spl-token-2022 `ExtensionType`). */
const TRANSFER_FEE_AMOUNT = 2;

const key = (d: Uint8Array, at: number) => bs58.encode(d.subarray(at, at + 32));
const view = (d: Uint8Array) => new DataView(d.buffer, d.byteOffset, d.byteLength);

function optionKey(d: Uint8Array, at: number): string | null | undefined {
  const tag = view(d).getUint32(at, true);
  if (tag === 0) return null;
  if (tag === 1) return key(d, at + 4);
  return undefined; // not a COption: not this layout
}

function extensionEntries(d: Uint8Array, expectedType: number): Array<{ type: number; value: Uint8Array }> | null {
  if (d.length === MINT_SIZE || d.length === TOKEN_ACCOUNT_SIZE) return [];
  if (d.length <= TOKEN_ACCOUNT_SIZE || d[TOKEN_ACCOUNT_SIZE] !== expectedType) return null;
  const out: Array<{ type: number; value: Uint8Array }> = [];
  const v = view(d);
  let at = TOKEN_ACCOUNT_SIZE + 1;
  while (at + 4 <= d.length) {
    const type = v.getUint16(at, true);
    const len = v.getUint16(at + 2, true);
    if (type === 0 && len === 0) break; // zero padding after the last entry
    if (at + 4 + len > d.length) return null;
    out.push({ type, value: d.subarray(at + 4, at + 4 + len) });
    at += 4 + len;
  }
  return out;
}

/** An OptionalNonZeroPubkey (32 bytes, all zero = none) at `at` of an extension's value. */
function nonZeroKey(d: Uint8Array | undefined, at: number): string | null {
  if (!d || d.length < at + 32) return null;
  return d.subarray(at, at + 32).some((b) => b !== 0) ? key(d, at) : null;
}

function transferFeeAt(d: Uint8Array, at: number): TransferFee {
  const v = view(d);
  return {
    epoch: v.getBigUint64(at, true),
    maximumFee: v.getBigUint64(at + 8, true),
    basisPoints: v.getUint16(at + 16, true),
  };
}

/** A mint account's data (classic Token or Token-2022), or null when it is not one. */
export function parseMint(data: Uint8Array): ParsedMint | null {
  if (data.length < MINT_SIZE) return null;
  const mintAuthority = optionKey(data, 0);
  const freezeAuthority = optionKey(data, 46);
  if (mintAuthority === undefined || freezeAuthority === undefined) return null;
  const entries = extensionEntries(data, ACCOUNT_TYPE_MINT);
  if (entries === null) return null;
  let transferFee: ParsedMint["transferFee"] = null;
  const fee = entries.find((e) => e.type === MintExtension.TransferFeeConfig);
  // TransferFeeConfig: two authorities (64), withheld u64 (8), older fee (18), newer fee (18).
  if (fee && fee.value.length >= 108)
    transferFee = { older: transferFeeAt(fee.value, 72), newer: transferFeeAt(fee.value, 90) };
  const value = (type: number) => entries.find((e) => e.type === type)?.value;
  // PausableConfig: authority (32), paused bool (1). TransferHook: authority (32), program (32).
  const pausable = value(MintExtension.Pausable);
  const hook = value(MintExtension.TransferHook);
  const defaultState = value(MintExtension.DefaultAccountState);
  return {
    decimals: data[44]!,
    supply: view(data).getBigUint64(36, true),
    isInitialized: data[45] === 1,
    mintAuthority,
    freezeAuthority,
    extensions: entries.map((e) => e.type),
    transferFee,
    permanentDelegate: nonZeroKey(value(MintExtension.PermanentDelegate), 0),
    pauseAuthority: nonZeroKey(pausable, 0),
    paused: pausable !== undefined && pausable.length > 32 && pausable[32] !== 0,
    transferHookProgram: nonZeroKey(hook, 32),
    transferHookAuthority: nonZeroKey(hook, 0),
    defaultAccountFrozen: defaultState !== undefined && defaultState[0] === ACCOUNT_STATE_FROZEN,
  };
}

/** A token account's data (classic Token or Token-2022), or null when it is not one. */
export function parseTokenAccount(data: Uint8Array): ParsedTokenAccount | null {
  if (data.length < TOKEN_ACCOUNT_SIZE) return null;
  const entries = extensionEntries(data, ACCOUNT_TYPE_ACCOUNT);
  if (entries === null) return null;
  const v = view(data);
  const fee = entries.find((e) => e.type === TRANSFER_FEE_AMOUNT && e.value.length >= 8);
  const delegate = optionKey(data, 72);
  const closeAuthority = optionKey(data, 129);
  if (delegate === undefined || closeAuthority === undefined) return null;
  return {
    mint: key(data, 0),
    owner: key(data, 32),
    amount: v.getBigUint64(64, true),
    delegate,
    state: data[108]!,
    delegatedAmount: v.getBigUint64(121, true),
    closeAuthority,
    withheldAmount: fee ? view(fee.value).getBigUint64(0, true) : 0n,
  };
}
