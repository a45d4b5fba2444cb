import bs58 from "bs58";
import { SOL_MINT } from "../money.ts";

// A landed transaction as getTransaction tells it (src/market/solana-rpc.ts reads it), and what it
// changed for one owner: its SOL, its token accounts' rent, its tokens. Pure reads of the shape,
// no I/O: the live path settles fills and copy trading detects trades with them.

export interface TokenBalanceEntry {
  /** Index of the token account in the transaction's account keys (-1 when the node omits it). */
  accountIndex: number;
  mint: string;
  owner: string | null;
  /** Atomic units. */
  amount: bigint;
  decimals: number;
}

/** What getTransaction tells about one landed transaction (encoding json, v0 supported). */
export interface LandedTransaction {
  slot: number;
  err: unknown;
  feeLamports: bigint;
  /** Static account keys followed by loaded writable, then readonly addresses (balance order). */
  accountKeys: string[];
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalanceEntry[];
  postTokenBalances: TokenBalanceEntry[];
  /** Unix seconds of the block, when the node knows it. */
  blockTime?: number | null;
  /** The accounts that signed it (message header: the first numRequiredSignatures static keys). */
  signers?: string[];
  /** Its top-level instructions, each with the instructions it called (meta.innerInstructions). */
  instructions?: InstructionCall[];
}

/** One call of a landed transaction: its program, accounts resolved to addresses, and data. */
export interface Call {
  program: string;
  accounts: string[];
  /** The instruction data (json encoding gives it in base58); empty when the node gave none. */
  data: Uint8Array;
}

/** One top-level instruction of a landed transaction with the calls it made. */
interface InstructionCall extends Call {
  /**
   * Instructions it invoked (cross-program calls, at any depth), in order; `stackHeight` 2 for a
   * call it made itself, 3 for a call of that call, and so on (null where the node omits it).
   */
  inner: Array<Call & { stackHeight: number | null }>;
}

/**
 * Top-level instructions with their inner calls, indexes resolved against the full account list
 * (static, then loaded writable, then loaded readonly keys, as the runtime orders them). An entry
 * the node shapes otherwise is skipped: it can only make a transaction look less like a swap.
 */
export function instructionCalls(top: unknown, inner: unknown, keys: string[]): InstructionCall[] {
  // biome-ignore lint/suspicious/noExplicitAny: RPC JSON read defensively, every field checked
  const call = (ix: any): Call | null => {
    const program = keys[ix?.programIdIndex];
    if (program === undefined || !Array.isArray(ix?.accounts)) return null;
    let data: Uint8Array = new Uint8Array();
    try {
      if (typeof ix.data === "string") data = bs58.decode(ix.data);
    } catch {
      // Not base58: no data, so no transfer is read from it.
    }
    return {
      program,
      accounts: ix.accounts.flatMap((i: unknown) => (typeof i === "number" && keys[i] ? [keys[i]] : [])),
      data,
    };
  };
  const calls: InstructionCall[] = [];
  for (const ix of Array.isArray(top) ? top : []) {
    const c = call(ix);
    calls.push(c ? { ...c, inner: [] } : { program: "", accounts: [], data: new Uint8Array(), inner: [] });
  }
  for (const group of Array.isArray(inner) ? inner : []) {
    const parent = calls[group?.index];
    if (!parent || !Array.isArray(group?.instructions)) continue;
    for (const ix of group.instructions) {
      const c = call(ix);
      if (c) parent.inner.push({ ...c, stackHeight: Number.isInteger(ix?.stackHeight) ? ix.stackHeight : null });
    }
  }
  return calls.filter((c) => c.program !== "");
}

/**
 * The owner's SOL change in a landed transaction as the wallet sees it (lamports; negative when it
 * spent): its own lamports plus those of its wrapped-SOL token accounts the transaction touched.
 * A sale that pays out into wSOL and unwraps it (closing the account) moves the account's whole
 * balance to the wallet, wSOL the wallet held before included; counting the account's change too
 * leaves exactly what the transaction added, so pre-existing wSOL is never booked as proceeds.
 */
export function solDelta(tx: LandedTransaction, owner: string): bigint {
  const i = tx.accountKeys.indexOf(owner);
  const own = i < 0 ? 0n : (tx.postBalances[i] ?? 0n) - (tx.preBalances[i] ?? 0n);
  return own + tokenAccountLamportsDelta(tx, owner, SOL_MINT);
}

/**
 * The change in lamports of the owner's token accounts of `mint` that the transaction lists in
 * its token balances: an account created pays its rent (positive), one closed gives its lamports
 * back (negative). Accounts the node gives no index for count 0.
 */
export function tokenAccountLamportsDelta(tx: LandedTransaction, owner: string, mint: string): bigint {
  const indexes = new Set<number>();
  for (const e of [...tx.preTokenBalances, ...tx.postTokenBalances])
    if (e.owner === owner && e.mint === mint && e.accountIndex >= 0) indexes.add(e.accountIndex);
  let delta = 0n;
  for (const k of indexes) delta += (tx.postBalances[k] ?? 0n) - (tx.preBalances[k] ?? 0n);
  return delta;
}

/** The owner's change of one mint over all its token accounts (atomic units). */
export function tokenDelta(tx: LandedTransaction, owner: string, mint: string): bigint {
  const sum = (list: TokenBalanceEntry[]) =>
    list.filter((e) => e.owner === owner && e.mint === mint).reduce((a, e) => a + e.amount, 0n);
  return sum(tx.postTokenBalances) - sum(tx.preTokenBalances);
}
