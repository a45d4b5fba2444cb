import { createHash } from "node:crypto";
import { PublicKey, TransactionInstruction } from "@solana/web3.js";

// The fake Jupiter Aggregator v6 program of the litesvm chain (no Jupiter binary runs there). The
// chain aggregator's routes move the tokens with SPL Token transfers the pool lets the taker sign
// (chain-aggregator.ts), and end with a real v6 `route` instruction, encoded as Jupiter's IDL lays
// it out (discriminator sha256("global:route")[..8], route_plan: Vec<RoutePlanStep>, in_amount
// u64, quoted_out_amount u64, slippage_bps u16, platform_fee_bps u8) and with the accounts of
// `route`, at the program id JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4. The program deployed
// there is a few sBPF instructions assembled below into an ELF: it reads ITS OWN instruction's
// last 11 bytes (quoted_out_amount and slippage_bps) and fails with Jupiter's error 6001
// (SlippageToleranceExceeded) unless the user's destination token account (account 3) holds at
// least quoted_out_amount × (10000 − slippage_bps) / 10000: the minimum the real program enforces
// at the end of a route, read from the same bytes. It holds the absolute balance (a fresh
// account's is what arrived), and reads the tail of the exact-in layout (`route`,
// `shared_accounts_route`); the route itself is the transfers before it.

export const JUPITER_V6 = new PublicKey("JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4");
const JUPITER_EVENT_AUTHORITY = PublicKey.findProgramAddressSync([Buffer.from("__event_authority")], JUPITER_V6)[0];
/** Jupiter's SlippageToleranceExceeded, as the fake program returns it. */
export const SLIPPAGE_TOLERANCE_EXCEEDED = 6001;

/** Anchor's instruction discriminator: sha256("global:<name>")[0..8]. */
export const discriminator = (name: string): Buffer =>
  createHash("sha256").update(`global:${name}`).digest().subarray(0, 8);

/** What a route instruction says (what the aggregator wrote; a test may write anything). */
export interface RouteArgs {
  inAmount: bigint;
  quotedOutAmount: bigint;
  slippageBps: number;
  platformFeeBps: number;
  /** Each step: the Swap variant (7: Raydium, a variant without fields), percent, input and output index. */
  steps?: Array<{ swap: number; percent: number; input: number; output: number }>;
}

/** `route`'s data: discriminator, route_plan, in_amount, quoted_out_amount, slippage_bps, platform_fee_bps. */
export function routeData(a: RouteArgs): Buffer {
  const steps = a.steps ?? [{ swap: 7, percent: 100, input: 0, output: 1 }];
  const plan = Buffer.alloc(4 + steps.length * 4);
  plan.writeUInt32LE(steps.length, 0);
  steps.forEach((s, i) => {
    plan.writeUInt8(s.swap, 4 + i * 4);
    plan.writeUInt8(s.percent, 5 + i * 4);
    plan.writeUInt8(s.input, 6 + i * 4);
    plan.writeUInt8(s.output, 7 + i * 4);
  });
  const tail = Buffer.alloc(19);
  tail.writeBigUInt64LE(a.inAmount, 0);
  tail.writeBigUInt64LE(a.quotedOutAmount, 8);
  tail.writeUInt16LE(a.slippageBps, 16);
  tail.writeUInt8(a.platformFeeBps, 18);
  return Buffer.concat([discriminator("route"), plan, tail]);
}

/**
 * A v6 `route` instruction with its IDL's accounts: token program, user transfer authority
 * (signer), user source and destination token accounts, destination token account and platform
 * fee account (none: the program's id, as Anchor encodes an absent optional account), the
 * destination mint, the event authority and the program.
 */
export function routeInstruction(
  accounts: {
    tokenProgram: PublicKey;
    user: PublicKey;
    source: PublicKey;
    destination: PublicKey;
    destinationMint: PublicKey;
  },
  args: RouteArgs,
): TransactionInstruction {
  const ro = (pubkey: PublicKey) => ({ pubkey, isSigner: false, isWritable: false });
  return new TransactionInstruction({
    programId: JUPITER_V6,
    keys: [
      ro(accounts.tokenProgram),
      { pubkey: accounts.user, isSigner: true, isWritable: false },
      { pubkey: accounts.source, isSigner: false, isWritable: true },
      { pubkey: accounts.destination, isSigner: false, isWritable: true },
      ro(JUPITER_V6),
      ro(accounts.destinationMint),
      ro(JUPITER_V6),
      ro(JUPITER_EVENT_AUTHORITY),
      ro(JUPITER_V6),
    ],
    data: routeData(args),
  });
}

// ---- the program ---------------------------------------------------------------------------------

type Op = [opcode: number, dst: number, src: number, off: number, imm: number];

/**
 * The serialized input (loader v2/v3): u64 account count, each account either a duplicate (1 byte
 * index + 7 padding) or 0xff, signer, writable, executable, 4 padding, key, owner, u64 lamports,
 * u64 data length at +80, its data at +88, 10 KiB of realloc room, aligned to 8, u64 rent epoch;
 * then u64 instruction data length and the data. A token account's amount is at data + 64.
 */
const GUARD: Op[] = [
  [0x79, 2, 1, 0, 0], //  0 r2 = number of accounts
  [0xbf, 5, 1, 0, 0], //  1 r5 = cursor
  [0x07, 5, 0, 0, 8], //  2
  [0xb7, 4, 0, 0, 0], //  3 r4 = account index
  [0xb7, 8, 0, 0, 0], //  4 r8 = destination amount
  [0x3d, 4, 2, 14, 0], // 5 loop: index ≥ count → 20
  [0x71, 3, 5, 0, 0], //  6 r3 = duplicate marker
  [0x55, 3, 0, 9, 0xff], // 7 a duplicate → 17
  [0x55, 4, 0, 1, 3], //  8 not account 3 → 10
  [0x79, 8, 5, 152, 0], // 9 r8 = its token amount
  [0x79, 3, 5, 80, 0], // 10 r3 = data length
  [0x07, 5, 0, 0, 88], // 11
  [0x0f, 5, 3, 0, 0], // 12
  [0x07, 5, 0, 0, 10_240 + 7], // 13
  [0x57, 5, 0, 0, -8], // 14 align 8
  [0x07, 5, 0, 0, 8], // 15 rent epoch
  [0x05, 0, 0, 1, 0], // 16 → 18
  [0x07, 5, 0, 0, 8], // 17 duplicate: 8 bytes
  [0x07, 4, 0, 0, 1], // 18 next account
  [0x05, 0, 0, -15, 0], // 19 → 5
  [0x79, 6, 5, 0, 0], // 20 r6 = instruction data length
  [0x07, 5, 0, 0, 8], // 21
  [0x0f, 5, 6, 0, 0], // 22 r5 = end of the data
  [0x69, 7, 5, -3, 0], // 23 r7 = slippage_bps
  [0x79, 9, 5, -11, 0], // 24 r9 = quoted_out_amount
  [0xb7, 3, 0, 0, 10_000], // 25
  [0x1f, 3, 7, 0, 0], // 26 r3 = 10000 − slippage
  [0x2f, 9, 3, 0, 0], // 27
  [0x37, 9, 0, 0, 10_000], // 28 r9 = the minimum
  [0x3d, 8, 9, 2, 0], // 29 amount ≥ minimum → 32
  [0xb7, 0, 0, 0, SLIPPAGE_TOLERANCE_EXCEEDED], // 30
  [0x95, 0, 0, 0, 0], // 31
  [0xb7, 0, 0, 0, 0], // 32
  [0x95, 0, 0, 0, 0], // 33
];

function bytecode(ops: Op[]): Buffer {
  const b = Buffer.alloc(ops.length * 8);
  ops.forEach(([op, dst, src, off, imm], i) => {
    b.writeUInt8(op, i * 8);
    b.writeUInt8((src << 4) | dst, i * 8 + 1);
    b.writeInt16LE(off, i * 8 + 2);
    b.writeInt32LE(imm, i * 8 + 4);
  });
  return b;
}

/** A minimal sBPF v0 ELF: one PT_LOAD, a .text section (the entry point) and .shstrtab. */
function elf(text: Buffer): Buffer {
  const textOff = 128;
  const names = Buffer.from("\0.text\0.shstrtab\0");
  const namesOff = textOff + text.length;
  const shOff = Math.ceil((namesOff + names.length) / 8) * 8;
  const b = Buffer.alloc(shOff + 3 * 64);
  b.write("\x7fELF", 0, "latin1");
  b.set([2, 1, 1, 0], 4); // 64-bit, little-endian, version 1, System V ABI
  b.writeUInt16LE(3, 16); // ET_DYN
  b.writeUInt16LE(247, 18); // EM_BPF
  b.writeUInt32LE(1, 20);
  b.writeBigUInt64LE(BigInt(textOff), 24); // entry
  b.writeBigUInt64LE(64n, 32); // program headers
  b.writeBigUInt64LE(BigInt(shOff), 40); // section headers
  b.writeUInt16LE(64, 52);
  b.writeUInt16LE(56, 54);
  b.writeUInt16LE(1, 56);
  b.writeUInt16LE(64, 58);
  b.writeUInt16LE(3, 60);
  b.writeUInt16LE(2, 62); // .shstrtab
  b.writeUInt32LE(1, 64); // PT_LOAD
  b.writeUInt32LE(5, 68); // R+X
  for (const [at, v] of [
    [72, textOff],
    [80, textOff],
    [88, textOff],
    [96, text.length],
    [104, text.length],
    [112, 8],
  ] as const)
    b.writeBigUInt64LE(BigInt(v), at);
  text.copy(b, textOff);
  names.copy(b, namesOff);
  const section = (i: number, name: number, type: number, flags: number, addr: number, off: number, size: number) => {
    const o = shOff + i * 64;
    b.writeUInt32LE(name, o);
    b.writeUInt32LE(type, o + 4);
    b.writeBigUInt64LE(BigInt(flags), o + 8);
    b.writeBigUInt64LE(BigInt(addr), o + 16);
    b.writeBigUInt64LE(BigInt(off), o + 24);
    b.writeBigUInt64LE(BigInt(size), o + 32);
    b.writeBigUInt64LE(8n, o + 48);
  };
  section(1, 1, 1, 6, textOff, textOff, text.length); // .text: PROGBITS, alloc + exec
  section(2, 7, 3, 0, 0, namesOff, names.length); // .shstrtab: STRTAB
  return b;
}

/** The fake program's ELF, for LiteSVM.addProgram at JUPITER_V6. */
export const jupiterGuardProgram = (): Buffer => elf(bytecode(GUARD));
